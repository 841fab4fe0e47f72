"""The game API as programs see it: one function per action, plus observation helpers.

The action functions are made from the engine's action table, which the engine side sends with
each program as plain data (the sandbox does not load the engine: that would take a second and
the world's memory per host): the same names, argument order, defaults and bounds, and the same
refusal sentences as the engine's own check (`asiworld.engine.actions.parse`; a test holds the
two to the same answers), before anything leaves the sandbox, so only plain ints, strings and
lists of ints ever do. Each
call builds the action dict exactly as in docs/engine-interface.md and blocks until the operation
ends. The character is always the program's own: no argument can name another acting character.
The table of action calls in docs/programs.md is written from the same table (`api_doc`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Protocol

from asiworld.programs.sizes import log_line, short_text

MAX_CODE = 64
MAX_MESSAGE = 1000


class GameError(Exception):
    """A refused or failed game action; programs may catch it (`except GameError as e`).

    Not a CodedError like every other error of the project: this module runs in the program
    host, which must not load the engine (a second and the world's memory per host); a GameError
    crosses to the engine side as {"code", "message"} only."""

    def __init__(self, code: str, message: str) -> None:
        # A program may raise its own: whatever it passes is kept as bounded text.
        code, message = short_text(code, MAX_CODE), short_text(message, MAX_MESSAGE)
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ProgramHandle(Protocol):
    def call(self, action: dict) -> dict: ...
    def latest_observation(self) -> dict: ...
    def log(self, text: str) -> None: ...


def signature(action: dict[str, Any]) -> inspect.Signature:
    """The call's parameters: the action's arguments in table order; an optional one defaults
    to the table's default, or to None (left out of the action)."""
    params = [
        inspect.Parameter(
            name,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=inspect.Parameter.empty if arg["required"] else arg["default"],
        )
        for name, arg in action["args"].items()
    ]
    return inspect.Signature(params)


def action_function(call: Callable[[dict], dict], action: dict[str, Any]) -> Callable[..., dict]:
    """One action as a blocking function: bind, check against the table, submit."""
    kind = action["type"]
    params = signature(action)

    def act(*values: Any, **named: Any) -> dict:
        try:  # a wrong call is the program's bug, as in Python: a TypeError naming the call
            bound = params.bind(*values, **named)
        except TypeError as exc:
            raise TypeError(f"{kind}() {exc}") from None
        given = {n: list(v) if type(v) is tuple else v for n, v in bound.arguments.items()}
        return call(checked(action, given))

    act.__name__ = act.__qualname__ = kind
    act.__doc__ = action["help"]
    act.__signature__ = params  # type: ignore[attr-defined]
    return act


def checked(action: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """The action dict for these arguments, defaults filled in, or GameError("bad_argument")
    with the engine's sentence. Exact types only: a program must not hand the world an object
    of its own making (a subclass of int or str)."""
    kind = action["type"]
    out: dict[str, Any] = {"type": kind}
    for name, arg in action["args"].items():
        value = given.get(name)
        if value is None:
            if arg["required"]:
                raise GameError("bad_argument", f"{kind} needs {name!r}")
            if arg["default"] is not None:
                out[name] = arg["default"]
            continue
        out[name] = _value(kind, name, arg, value)
    forms = action.get("forms") or []
    if forms and not any(all(n in out for n in form) for form in forms):
        said = ", or ".join(" and ".join(repr(n) for n in form) for form in forms)
        raise GameError("bad_argument", f"{kind} needs {said}")
    return out


def _value(kind: str, name: str, arg: dict[str, Any], value: Any) -> Any:
    def refuse(what: str) -> GameError:
        return GameError("bad_argument", f"{kind}: {name!r} {what}")

    if arg["kind"] == "int":
        if type(value) is not int:
            raise refuse("must be a whole number")
        low, high = arg["low"], arg["high"]
        if (low is not None and value < low) or (high is not None and value > high):
            raise refuse(f"must be between {low} and {high}")
        return value
    if arg["kind"] == "int_list":
        if type(value) is not list or len(value) > arg["max_items"] or not all(
            type(v) is int for v in value
        ):
            raise refuse(f"must be a list of at most {arg['max_items']} ids")
        return list(value)
    if type(value) is not str:
        raise refuse("must be text")
    if "max_len" in arg and len(value) > arg["max_len"]:
        raise refuse(f"is longer than {arg['max_len']} characters")
    if arg.get("choices") is not None:
        if value not in arg["choices"]:
            raise refuse(f"must be one of {', '.join(arg['choices'])}")
    elif len(value) < arg.get("min_len", 1):
        raise refuse("must not be empty")
    return value


def build_api(rt: ProgramHandle, table: list[dict[str, Any]]) -> dict[str, Callable[..., Any]]:
    """The functions visible to one program, bound to its runtime; `table` is the engine's
    action table (`asiworld.engine.actions.describe()`)."""
    api: dict[str, Callable[..., Any]] = {
        action["type"]: action_function(rt.call, action) for action in table
    }
    say = api.get("say")
    if say is not None:
        api["say"] = _say_any_value(say, table)

    # -- reading the world (never blocks) -------------------------------------------------
    def observe() -> dict:
        return rt.latest_observation()

    def me() -> dict:
        return rt.latest_observation().get("self", {})

    def position() -> tuple:
        own = me()
        return (own.get("x"), own.get("y"))

    def inventory() -> dict:
        return {slot["item"]: slot["count"] for slot in me().get("inventory", [])}

    def count(item: str) -> int:
        return inventory().get(item, 0)

    def tick() -> int:
        return rt.latest_observation().get("tick", 0)

    def entities(kind: str | None = None) -> list:
        seen = rt.latest_observation().get("entities", [])
        return [e for e in seen if kind is None or e.get("kind") == kind]

    def log(*values: Any) -> None:
        rt.log(log_line(values, MAX_MESSAGE))

    api.update(
        observe=observe,
        me=me,
        position=position,
        inventory=inventory,
        count=count,
        tick=tick,
        entities=entities,
        log=log,
        print=log,
    )
    return {name: GameFunction(name, fn) for name, fn in api.items()}


class GameFunction:
    """One game function as a program sees it: called like the function it wraps, and shown
    as `<game function move>`, not with this module's names and a memory address."""

    __slots__ = ("_name", "_function")

    def __init__(self, name: str, function: Callable[..., Any]) -> None:
        function.__qualname__ = name  # a wrong call's TypeError says `move()`, not build_api's
        self._name, self._function = name, function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._function(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<game function {self._name}>"


def _say_any_value(say: Callable[..., dict], table: list[dict[str, Any]]) -> Callable[..., dict]:
    """`say(42)` says "42", and a long text is cut to what the world takes: a program talks
    the way it prints."""
    limit = next(a for a in table if a["type"] == "say")["args"]["text"]["max_len"]

    def say_text(text: Any) -> dict:
        if type(text) not in (str, int, float, bool):
            raise GameError("bad_argument", "say() takes text")
        return say(str(text)[:limit])

    say_text.__name__ = "say"
    return say_text


# --- the docs page's table of action calls ---------------------------------------------------

DOC_BEGIN = "<!-- action calls: written from the engine's action table by `asiworld program api-doc` -->"
DOC_END = "<!-- end of action calls -->"


def call_text(action: dict[str, Any]) -> str:
    """`craft(recipe, count=1)`."""
    parts = []
    for name, arg in action["args"].items():
        if arg["required"]:
            parts.append(name)
        else:
            parts.append(f"{name}={arg['default']!r}")
    return f"{action['type']}({', '.join(parts)})"


def arg_text(name: str, arg: dict[str, Any]) -> str:
    """`count`: 1..50: how many times to craft the recipe."""
    kind = arg["kind"]
    if arg.get("choices"):
        shape = " / ".join(f'`"{c}"`' for c in arg["choices"])
    elif kind == "int":
        low, high = arg.get("low"), arg.get("high")
        shape = "id" if low == 0 and high is None else f"{low}..{high}"
        if low is None and high is None:
            shape = "whole number"
    elif kind == "str":
        shape = f"text, {arg['min_len']}..{arg['max_len']} characters"
    else:
        shape = f"list of at most {arg['max_items']} ids"
    return f"`{name}`: {shape}" + (f": {arg['help']}" if arg.get("help") else "")


def api_doc(table: list[dict[str, Any]]) -> str:
    """The markdown table of action calls, between its markers."""
    lines = [DOC_BEGIN, "| call | what it does | arguments |", "|---|---|---|"]
    for action in table:
        args = "; ".join(arg_text(n, a) for n, a in action["args"].items()) or "none"
        forms = action.get("forms")
        if forms:
            args += " (give " + ", or ".join(" and ".join(f) for f in forms) + ")"
        lines.append(f"| `{call_text(action)}` | {action['help']} | {args} |")
    lines.append(DOC_END)
    return "\n".join(lines)


def doc_section(text: str) -> str | None:
    """The generated section of a page, markers included; None when the page has none."""
    start, end = text.find(DOC_BEGIN), text.find(DOC_END)
    if start < 0 or end < start:
        return None
    return text[start : end + len(DOC_END)]
