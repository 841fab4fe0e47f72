"""The study file: one shared world, its clock, and the configurations that play in it.

A study is a TOML file (read with tomllib) checked against the models below (pydantic, strict:
an unknown key or a value of the wrong type is an error, never ignored). `load_study(path)`
returns a `Study` or raises `StudyError(code, message)` whose message names the file, the line
and the key, so a bad file stops before anything starts. The commented example that
`asiworld study new` writes is `example.toml` beside this module; docs/studies.md documents
every key.
"""

from __future__ import annotations

import importlib.util
import math
import tomllib
from importlib.machinery import PathFinder
from pathlib import Path
from typing import Annotated, Any, Literal

from asiworld.agents.bots.builtin import available
from asiworld.agents.clients import guide
from asiworld.agents.clients.interface import InterfaceError, load_agent_class
from asiworld.engine import codes
from asiworld.engine.errors import CodedError
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from .lines import locate

NAME = r"^[A-Za-z0-9_-]{1,24}$"  # a character name that is also a safe file name
TARGET = r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$"  # module:Class


class StudyError(CodedError):
    """A study file that cannot be run: a stable code and a sentence naming file, line, key."""

    says_code = True


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


# --- the world and the clock -------------------------------------------------------------------


SEED = Annotated[int, Field(ge=0, le=2**63 - 1)]  # what a snapshot and the store can hold


class WorldSection(_Strict):
    seed: SEED | None = None
    seeds: list[SEED] | None = Field(None, min_length=1, max_length=10_000)
    minutes: int = Field(gt=0)
    size: int | None = Field(None, ge=48, le=4096)
    entry: Literal["synchronised"] = "synchronised"

    def seed_list(self) -> list[int]:
        if self.seeds is not None:
            return list(self.seeds)
        return [7 if self.seed is None else self.seed]


class Lockstep(_Strict):
    """The world waits for every answer; each model call is charged a think time in ticks:
    `fixed`: think_ticks per call; `tokens`: think_ticks + ceil(completion tokens /
    tokens_per_tick). With a deterministic endpoint the same study gives the same state hash."""

    kind: Literal["lockstep"]
    think: Literal["fixed", "tokens"] = "fixed"
    think_ticks: int = Field(3, ge=1, le=600)
    tokens_per_tick: float = Field(50.0, gt=0)

    def charge(self, completion_tokens: int) -> int:
        if self.think == "fixed":
            return self.think_ticks
        return self.think_ticks + math.ceil(max(0, completion_tokens) / self.tokens_per_tick)

    def describe(self) -> str:
        if self.think == "fixed":
            return f"lockstep: each model call costs {self.think_ticks} ticks"
        return (f"lockstep: each model call costs {self.think_ticks} ticks + one per "
                f"{self.tokens_per_tick:g} completion tokens")


class Realtime(_Strict):
    """The paper's setting: the world runs at `speed` ticks per real second and never waits;
    a model's latency is its think time, and programs keep acting meanwhile."""

    kind: Literal["realtime"]
    speed: float = Field(10.0, gt=0, le=10_000)

    def describe(self) -> str:
        return f"realtime: {self.speed:g} ticks per second, the world does not wait"


Clock = Annotated[Lockstep | Realtime, Field(discriminator="kind")]


class ServeSection(_Strict):
    """Where a study with external seats serves the agent API (asiworld.study.external): a
    loopback port (0: a free one; the URL is printed) and how long entry waits for every
    external seat's first call before the study stops with `external_absent`."""

    port: int = Field(0, ge=0, le=65535)
    entry_timeout: float = Field(300.0, gt=0, le=86_400)


# --- the configurations ------------------------------------------------------------------------


class PriceSection(_Strict):
    """US dollars per million tokens: prompt tokens (`input`), those of them the server had
    cached (`cached_input`; charged as input when not given) and completion tokens (`output`)."""

    input: float = Field(ge=0, allow_inf_nan=False)
    output: float = Field(ge=0, allow_inf_nan=False)
    cached_input: float | None = Field(None, ge=0, allow_inf_nan=False)


class BudgetSection(_Strict):
    """Caps on one seat: model calls, tokens (prompt and completion) and dollars (at its
    `price`). At the first call that reaches one, the seat stops calling its model."""

    calls: int | None = Field(None, ge=1)
    tokens: int | None = Field(None, ge=1)
    dollars: float | None = Field(None, gt=0, allow_inf_nan=False)


class OpenAIConfiguration(_Strict):
    """A language model behind an OpenAI-compatible chat endpoint, played by the harness."""

    kind: Literal["openai"]
    name: str = Field(pattern=NAME)
    label: str = Field("", max_length=32)
    model_url: str = Field(min_length=1)
    model: str = Field(min_length=1)
    api_key_env: str = "OPENAI_API_KEY"
    pause_ticks: int = Field(0, ge=0, le=6000)  # think pacing: ticks between two turns
    max_tokens: int = Field(1024, ge=1)
    temperature: float = Field(0.0, ge=0, le=2)
    history: int = Field(12, ge=0, le=200)  # recent tool results shown to the model
    programs: bool = True  # may host programs (submit_program)
    request_timeout: float = Field(60.0, gt=0, le=3600, allow_inf_nan=False)
    max_retries: int = Field(6, ge=0, le=50)
    backoff_seconds: float = Field(1.0, ge=0, le=600, allow_inf_nan=False)
    # the prompt (docs/studies.md, "The prompt")
    prompt: str | None = Field(None, min_length=1)  # a system-prompt template file
    instructions: str = Field("", max_length=20_000)  # added at the template's {{instructions}}
    observation: Literal["text", "json"] = "text"
    tool_schemas: Literal["full", "compact"] = "full"  # compact: no parameter descriptions
    history_turns: int = Field(0, ge=0, le=50)  # earlier turns kept as chat messages
    tool_choice: Literal["auto", "required", "none"] | None = None  # None: not sent
    text_actions: Literal["off", "parse", "json"] = "off"
    # what it costs, and where it stops
    price: PriceSection | None = None
    budget: BudgetSection | None = None
    # the template file's text, read with the study file (a Ray worker has no such file)
    _template: str | None = PrivateAttr(None)

    @property
    def template(self) -> str | None:
        return self._template


class BuiltinConfiguration(_Strict):
    """One of the built-in configurations (app/agents/bots/builtin.py) with its parameters."""

    kind: Literal["builtin"]
    name: str = Field(pattern=NAME)
    label: str = Field("", max_length=32)
    agent: str
    think_ticks: int = Field(3, ge=1, le=600)
    seed: SEED | None = None  # default: derived from the world seed and the seat


class PythonConfiguration(_Strict):
    """The user's own agent: `module:Class` implementing asiworld.agents.clients.interface.StudyAgent,
    built with `params` as keyword arguments."""

    kind: Literal["python"]
    name: str = Field(pattern=NAME)
    label: str = Field("", max_length=32)
    agent: str = Field(pattern=TARGET)
    think_ticks: int = Field(3, ge=1, le=600)
    params: dict[str, Any] = Field(default_factory=dict)
    _folder: Path | None = PrivateAttr(None)  # the study file's, searched first for `agent`

    @property
    def folder(self) -> Path | None:
        return self._folder


HUMAN_TURN_SECONDS = 300.0  # a human seat's default lockstep turn: five minutes


class ExternalConfiguration(_Strict):
    """A seat for an agent that connects by itself; the study prints its token and waits."""

    kind: Literal["external"]
    name: str = Field(pattern=NAME)
    label: str = Field("", max_length=32)
    # on the lockstep clock: wall seconds the world waits for the seat's decision in its turn
    turn_seconds: float = Field(30.0, gt=0, le=3600)


class HumanConfiguration(ExternalConfiguration):
    """A seat a person plays in the browser: an external seat whose agent is the /play page
    (its join link, with the seat's token, is printed). A person reads and decides slower than
    a program, so the lockstep turn waits longer by default."""

    kind: Literal["human"]  # type: ignore[assignment]
    turn_seconds: float = Field(HUMAN_TURN_SECONDS, gt=0, le=86_400)


Configuration = Annotated[
    OpenAIConfiguration | BuiltinConfiguration | PythonConfiguration | HumanConfiguration
    | ExternalConfiguration,
    Field(discriminator="kind"),
]
KINDS = ("openai", "builtin", "python", "external", "human")


class Study(_Strict):
    title: str = ""
    world: WorldSection
    clock: Clock = Field(default_factory=lambda: Lockstep(kind="lockstep"))
    serve: ServeSection = Field(default_factory=ServeSection)
    configuration: list[Configuration] = Field(min_length=1)

    @property
    def configurations(self) -> list[Any]:
        return list(self.configuration)


# --- reading a file ----------------------------------------------------------------------------


def load_study(path: str | Path, imports: bool = True) -> tuple[Study, str]:
    """The study in `path` and its text; StudyError for anything that keeps it from running."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StudyError(codes.STUDY_MISSING, f"no study file at {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise StudyError(codes.UNREADABLE_STUDY, f"cannot read {path}: {exc}") from None
    return parse_study(text, str(path), path.parent, imports), text


def parse_study(text: str, where: str = "study.toml", base: Path | None = None,
                imports: bool = True) -> Study:
    """The study in `text`; `base` is the folder its relative paths (prompt templates) are
    read from (the study file's own; default: the current folder). `imports`: python agents'
    modules are imported to check their class (False, `study check`: only found, so checking
    a file runs none of its code)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise StudyError(codes.BAD_TOML, f"{where}: not valid TOML: {exc}") from None
    except RecursionError:
        raise StudyError(codes.BAD_TOML, f"{where}: arrays or tables nested too deep to read") \
            from None
    try:
        study = Study.model_validate(data)
    except ValidationError as exc:
        raise _explain(exc, text, where) from None
    _check_names(study, text, where)
    _check_agents(study, text, where, Path(".") if base is None else base, imports)
    _read_prompts(study, text, where, Path(".") if base is None else base)
    return study


def _at(text: str, where: str, loc: tuple[Any, ...]) -> str:
    line = locate(text, loc)
    return f"{where} line {line}" if line is not None else where


def _key(loc: tuple[Any, ...]) -> str:
    """`world.minutes`, `configuration[2].model` (1-based, as a person counts tables)."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part + 1}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


CODES = {
    "missing": codes.MISSING_KEY,
    "extra_forbidden": codes.UNKNOWN_KEY,
    "union_tag_invalid": codes.UNKNOWN_KIND,
    "union_tag_not_found": codes.MISSING_KEY,
    "literal_error": codes.BAD_VALUE,
    "string_pattern_mismatch": codes.BAD_VALUE,
}


def _explain(exc: ValidationError, text: str, where: str) -> StudyError:
    """The first problem in the file's own order, as one StudyError."""
    errors = []
    for err in exc.errors():
        # A discriminated union puts the tag in the location (configuration.0.openai.model).
        loc = tuple(p for p in err["loc"] if p not in KINDS and p not in ("lockstep", "realtime"))
        at = (*loc, "kind") if err["type"] == "union_tag_invalid" else loc
        # A misspelt key also leaves the right one missing: the misspelling is the news.
        errors.append((err["type"] != "extra_forbidden", locate(text, at) or 0, loc, err))
    errors.sort(key=lambda e: e[:2])
    *_, loc, err = errors[0]
    kind, key = err["type"], _key(loc)
    at = _at(text, where, (*loc, "kind") if kind == "union_tag_invalid" else loc)
    code = CODES.get(kind) or (codes.WRONG_TYPE if kind.endswith("_type") else codes.BAD_VALUE)
    if kind == "missing":
        message = f"{at}: `{key}` is required"
    elif kind == "extra_forbidden" and "human" in err["loc"]:
        code = codes.HUMAN_SEAT_OPTION
        message = (f"{at}: a human seat takes no `{key}`: a person plays it from the /play "
                   "page its join link opens" + _allowed(err["loc"]))
    elif kind == "extra_forbidden":
        message = f"{at}: unknown key `{key}`" + _allowed(err["loc"])
    elif kind == "union_tag_invalid":
        choices = ", ".join(KINDS) if loc[0] == "configuration" else \
            "lockstep, realtime"
        message = f"{at}: `{key}.kind` is {err['input'].get('kind')!r}; kinds: {choices}"
    elif kind == "union_tag_not_found":
        message = f"{at}: `{key}` needs a `kind`"
    else:
        message = f"{at}: `{key}`: {err['msg']} (got {_shown(err.get('input'))})"
    return StudyError(code, message)


TABLES: dict[Any, type[BaseModel]] = {
    "world": WorldSection, "lockstep": Lockstep, "realtime": Realtime,
    "openai": OpenAIConfiguration, "builtin": BuiltinConfiguration,
    "python": PythonConfiguration, "external": ExternalConfiguration,
    "human": HumanConfiguration, "serve": ServeSection,
    "price": PriceSection, "budget": BudgetSection,
}


def _allowed(raw_loc: tuple[Any, ...]) -> str:
    """The keys the table holding an unknown key may have (its kind's, for a tagged table)."""
    parents = [p for p in raw_loc[:-1] if not isinstance(p, int)]
    model = TABLES.get(parents[-1]) if parents else Study
    if model is None:
        return ""
    return "; keys: " + ", ".join(model.model_fields)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_names(study: Study, text: str, where: str) -> None:
    seen: dict[str, int] = {}
    for i, conf in enumerate(study.configuration):
        if conf.name in seen:
            at = _at(text, where, ("configuration", i, "name"))
            raise StudyError(
                codes.DUPLICATE_NAME,
                f"{at}: configuration name {conf.name!r} is used twice "
                f"(configuration {seen[conf.name] + 1} and {i + 1}); names must differ",
            )
        seen[conf.name] = i


def _check_agents(study: Study, text: str, where: str, base: Path, imports: bool = True) -> None:
    """Built-in names exist, python agents import and look like the interface (without
    `imports`: their module is found and compiled, not run). A python agent's module is looked
    for in the study file's folder first, then on the import path."""
    for i, conf in enumerate(study.configuration):
        if isinstance(conf, BuiltinConfiguration) and conf.agent not in available():
            at = _at(text, where, ("configuration", i, "agent"))
            raise StudyError(
                codes.UNKNOWN_CONFIGURATION,
                f"{at}: `configuration[{i + 1}].agent` {conf.agent!r} is not a built-in "
                f"configuration; available: {', '.join(available())}",
            )
        if not isinstance(conf, PythonConfiguration):
            continue
        conf._folder = base.resolve()
        try:
            if imports:
                load_agent_class(conf.agent, conf._folder)
            else:
                _find_agent_module(conf.agent.partition(":")[0], conf._folder)
        except InterfaceError as exc:
            at = _at(text, where, ("configuration", i, "agent"))
            raise StudyError(exc.code, f"{at}: {exc.message}") from None


def _find_agent_module(module: str, base: Path) -> None:
    """The agent's top module is in `base` or on the import path, and its source compiles
    (compiling runs none of it)."""
    top = module.partition(".")[0]
    found = PathFinder.find_spec(top, [str(base)])
    if found is None:
        try:
            found = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            found = None
    if found is None:
        raise InterfaceError(codes.AGENT_NOT_FOUND, f"cannot import {module!r}: no module {top!r} "
                             f"in {base} nor on the import path (sys.path)")
    origin = Path(found.origin) if found.origin and found.origin.endswith(".py") else None
    if origin is None or top != module:
        return
    try:
        compile(origin.read_bytes(), str(origin), "exec")
    except SyntaxError as exc:
        raise InterfaceError(codes.AGENT_NOT_FOUND, f"cannot import {module!r}: {origin.name} "
                             f"line {exc.lineno}: {exc.msg}") from None
    except (OSError, ValueError) as exc:
        raise InterfaceError(codes.AGENT_NOT_FOUND, f"cannot read {origin}: {exc}") from None


def _read_prompts(study: Study, text: str, where: str, base: Path) -> None:
    """Read each model seat's prompt template and render it once, so a missing file or an
    unknown placeholder stops the study before anything starts."""
    for i, conf in enumerate(study.configuration):
        if not isinstance(conf, OpenAIConfiguration):
            continue
        template = guide.default_template()
        if conf.prompt is not None:
            at = _at(text, where, ("configuration", i, "prompt"))
            path = Path(conf.prompt) if Path(conf.prompt).is_absolute() else base / conf.prompt
            try:
                template = path.read_text(encoding="utf-8")
            except FileNotFoundError:
                raise StudyError(codes.TEMPLATE_MISSING, f"{at}: no prompt template at {path} "
                                 "(a path is read from the study file's folder)") from None
            except (OSError, UnicodeDecodeError) as exc:
                raise StudyError(codes.UNREADABLE_TEMPLATE, f"{at}: cannot read {path}: {exc}") \
                    from None
            conf._template = template
        try:
            render_prompt(study, conf)
        except CodedError as exc:
            raise StudyError(exc.code, f"configuration {conf.name!r}: {exc.message}") from None


def render_prompt(study: Study, conf: OpenAIConfiguration) -> str:
    """The system prompt a model seat sends: its template (the player's guide by default)
    filled in with this study's horizon and clock and the seat's settings."""
    template = conf.template if conf.template is not None else guide.default_template()
    return guide.render(template, horizon_minutes=study.world.minutes,
                        clock=study.clock.describe(), programs=conf.programs,
                        instructions=conf.instructions, where=conf.prompt or "the default prompt")


def example_text() -> str:
    return (Path(__file__).parent / "example.toml").read_text(encoding="utf-8")

