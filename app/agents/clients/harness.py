"""The LLM harness: a language model behind any OpenAI-compatible chat endpoint plays a character.

Each turn is one chat request with a bounded context: the system prompt (the player's guide,
asiworld.agents.clients.guide, or a study's own template), then one user message holding the clock, the
current observation (text or JSON), a summary of what the character remembers, and the results
of recent tool calls; a configuration may also keep its last turns as chat messages. The model
answers with tool calls (an action, a program, a wait); the harness runs them through the agent
API and keeps their results as feedback for the next turn. With `text_actions`, an answer in
plain text ("move north", or a JSON action) is read as an action too, and recorded as such.

Every answer is one of these classes, counted per seat and written on its transcript line:
`tool_call`, `text_action`, `text` (no action in it), `empty`, `malformed` (a completion the
harness cannot use: no choices, a tool call cut off or naming no offered tool) and `failed` (no
answer: an HTTP error, a timeout, a refused request). Malformed and failed calls that may go
better next time are retried with exponential back-off; each interruption is posted to the
server as an incident `{"kind": "incident", "char", "cause", "start", "end"}` (ticks) so it
enters the world's event stream. In approval mode a person approves each program on stdin; the
wait is an incident too. A seat with a budget stops calling its model at the cap: an incident
`budget_exhausted`, its programs cancelled, its character left standing.

The request body is built and encoded in one place (asiworld.agents.clients.request) and sent as those
bytes (asiworld.agents.clients.endpoint), so the transcript rebuilds every request exactly.
"""

from __future__ import annotations

import json
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from asiworld.agents.clients import guide, request
from asiworld.agents.clients.budget import Budget, Prices
from asiworld.agents.clients.endpoint import ModelError, Reply, ToolCall
from asiworld.agents.clients.sdk import ApiError, Client
from asiworld.agents.clients.text_actions import read_action
from asiworld.agents.clients.tools import ToolBox, openai_tools
from asiworld.agents.clients.transcript import Transcript, prompt_summary
from asiworld.engine import codes, load_content
from asiworld.engine.errors import CodedError

log = logging.getLogger(__name__)

REPLY_CLASSES = ("tool_call", "text_action", "text", "empty", "malformed", "failed")
TEXT_ACTIONS = ("off", "parse", "json")
OBSERVATIONS = ("text", "json")
TOOL_CHOICES = ("auto", "required", "none")


@dataclass
class HarnessConfig:
    model: str
    name: str = "llm"
    label: str = ""
    think_seconds: float = 1.0  # pause between turns (the world keeps ticking)
    max_retries: int = 6  # per turn, for transient model errors
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    request_timeout: float = 60.0  # seconds for a whole request, its answer read in full
    feedback_kept: int = 12  # recent tool results shown to the model
    history_turns: int = 0  # earlier turns kept as chat messages (0: each turn stands alone)
    max_tokens: int = 1024
    temperature: float | None = None  # None: the endpoint's default
    tool_choice: str | None = None  # sent as is; None: not sent (the endpoint's default)
    text_actions: str = "off"  # off | parse | json (module docstring)
    observation: str = "text"  # text | json
    tool_schemas: str = "full"  # full | compact (asiworld.agents.clients.tools.openai_tools)
    programs: bool = True  # offer submit_program / program_status / cancel_program
    approve_programs: bool = False
    # The system prompt, rendered; None: the player's guide with the settings below.
    system: str | None = None
    prompt_source: str = "default"  # where the system prompt came from (a file, or "default")
    horizon_tick: int | None = None  # the study's end, shown in every prompt's clock line
    clock: str = ""  # the clock's rule in words, for the guide
    prices: Prices | None = None
    budget: Budget | None = None
    # Seconds the model may stay unreachable (every try failing transiently) before `run` stops
    # with ModelUnreachable; None: never stop (a study records the incidents and goes on).
    give_up_after: float | None = None
    # Sent as the request's `user` (the OpenAI field naming who a request is for): one game's
    # seat, so an endpoint serving several worlds at once (a study's seeds on Ray) can tell
    # them apart. None: not sent.
    session: str | None = None


@dataclass
class HarnessStats:
    turns: int = 0
    calls: int = 0  # model requests, failed ones included
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    dollars: float = 0.0
    tool_calls: int = 0  # actions taken: tool calls and text actions
    replies: dict[str, int] = field(default_factory=lambda: dict.fromkeys(REPLY_CLASSES, 0))
    incidents: list[dict] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)  # every request, failed ones too
    exhausted: str | None = None  # the budget cap reached, in words

    def to_dict(self) -> dict:
        return {**vars(self), "dollars": round(self.dollars, 6)}

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


PROGRAM_TOOLS = {"submit_program", "program_status", "cancel_program"}
# A tool call's arguments past this are no call (a program's source is at most 50,000
# characters): 10 MB of arguments once cost a 2-minute study 1.3 GB and 301 MB of transcripts.
ARGUMENTS_LIMIT = 64 * 1024
# An answer's text kept past this is cut (the transcript, the next prompt's kept turns).
CONTENT_LIMIT = 64 * 1024


class ModelUnreachable(CodedError):
    """The model has failed every request for longer than `give_up_after` seconds."""


class MalformedReply(ModelError):
    """A 200 answer the harness cannot use: a tool call that is cut off or names no tool it
    offered. Retried like a 5xx: a model's next answer is usually fine."""

    def __init__(self, detail: str) -> None:
        super().__init__("model_malformed", detail)


def memory_summary(memory: dict, limit: int = 12) -> str:
    """A few lines from the character's memory: how much it has seen, what it last saw where."""
    seen = memory.get("seen_tiles", 0)
    remembered = sorted(memory.get("entities", []), key=lambda e: -e.get("tick", 0))[:limit]
    lines = [f"you have seen {seen} tiles"]
    for e in remembered:
        lines.append(f"- {e['kind']} #{e['id']} at ({e['x']}, {e['y']}) seen at tick {e['tick']}")
    return "\n".join(lines)


def system_prompt(config: HarnessConfig | None = None) -> str:
    """The system prompt a harness with `config` sends (the default player's guide without)."""
    if config is not None and config.system is not None:
        return config.system
    horizon = None
    if config is not None and config.horizon_tick is not None:
        horizon = config.horizon_tick // load_content().time.ticks_per_minute
    return guide.system_prompt(
        horizon_minutes=horizon,
        clock=config.clock if config is not None and config.clock else guide.LIVE_CLOCK,
        programs=config.programs if config is not None else True,
    )


def clock_line(tick: int, horizon_tick: int | None, time_: Any = None) -> str:
    """Where the turn stands in the day and in the study: the time until night (or day) and
    until the horizon, in minutes, as the prompt's first section says it. `time_`: the
    content's time section (read once by the caller: loading the content parses its files)."""
    if time_ is None:
        time_ = load_content().time
    per_minute = time_.ticks_per_minute
    day_ticks = time_.day_minutes * per_minute
    night_at = time_.night_starts_minute * per_minute
    into = tick % day_ticks
    day = tick // day_ticks + 1
    if into < night_at:
        phase = f"day {day}, daytime: night falls in {_minutes(night_at - into)}"
    else:
        phase = f"day {day}, night: day breaks in {_minutes(day_ticks - into)}"
    line = f"tick {tick} (minute {tick // per_minute}); {phase}"
    if horizon_tick is not None:
        left = max(0, horizon_tick - tick)
        line += (f"; the study ends at tick {horizon_tick} (minute {horizon_tick // per_minute}),"
                 f" in {_minutes(left)}")
    return line


def _minutes(ticks: int) -> str:
    minutes = ticks / 60
    return f"{minutes:.0f} minutes" if minutes >= 10 else f"{minutes:.1f} minutes"


def response_format(specs: list[dict]) -> dict:
    """One JSON action, `{"tool": NAME, "arguments": {...}}`, each tool's arguments its own
    schema: a server with constrained decoding (llama.cpp, vLLM, OpenAI) can only answer an
    action it offered."""
    choices = [{
        "type": "object",
        "properties": {"tool": {"const": t["function"]["name"]},
                       "arguments": t["function"]["parameters"]},
        "required": ["tool", "arguments"],
    } for t in specs]
    return {"type": "json_schema", "json_schema": {"name": "action", "schema": {"anyOf": choices}}}


@dataclass
class Call:
    """One model request as the transcript records it."""

    number: int
    turn: int
    attempt: int
    tick_sent: int | None
    latency_ms: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    dollars: float = 0.0
    reply: str = "failed"  # its class (REPLY_CLASSES)
    tool_calls: list[dict] = field(default_factory=list)
    content: str | None = None  # the answer's text, when it has one
    text_action: dict | None = None  # the action read from the text, and how
    error: dict | None = None


@dataclass
class Pending:
    """A turn between its question and its answer: the lockstep clock applies the answer at
    `tick_answered` (the tick sent plus the think time charged for every call it took)."""

    turn: int
    messages: list[dict]  # every message but the system prompt
    tick_sent: int | None
    reply: Reply | None = None
    calls: list[Call] = field(default_factory=list)
    incidents: list[tuple[str, int | None, int | None, str]] = field(default_factory=list)
    tick_answered: int | None = None
    spent: int = 0  # lockstep: think ticks charged so far


class Harness:
    """Plays one character through a model. `turn()` is one whole turn; a clock that must apply
    answers at a tick of its own calls `begin()`, `ask(pending)` (the model, perhaps on another
    thread) and `finish(pending)` instead. With `charge` (lockstep), every call costs the ticks
    `charge(completion_tokens)` returns (None for a failed call) on the turn's own clock, and the
    incidents wait for `finish` so they enter the world in the same order every run.

    `llm` is an asiworld.agents.clients.endpoint.Endpoint (or anything with its
    `complete(body: bytes, timeout) -> Reply`)."""

    def __init__(
        self,
        client: Client,
        llm: Any,
        config: HarnessConfig,
        approver: Callable[[str], str] = input,
        pause: Callable[[], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        transcript: Transcript | None = None,
        charge: Callable[[int | None], int] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.llm = llm
        self.config = config
        self.tools = ToolBox(client)
        specs = openai_tools(compact=config.tool_schemas == "compact")
        if not config.programs:
            specs = [t for t in specs if t["function"]["name"] not in PROGRAM_TOOLS]
        self.tool_specs = specs
        self.offered = {t["function"]["name"] for t in specs}
        self.parameters = {t["function"]["name"]: t["function"]["parameters"] for t in specs}
        self.approver = approver
        self.pause = pause or (lambda: sleep(config.think_seconds))
        self.sleep = sleep
        self.feedback: deque[str] = deque(maxlen=max(1, config.feedback_kept))
        self.history: deque[list[dict]] = deque(maxlen=max(1, config.history_turns))
        self.stats = HarnessStats()
        self.system = system_prompt(config)

        self.time = load_content().time  # the clock line's day and night, read once
        self.settings = self._settings()
        self.encoder = request.Encoder(self.system, self.tool_specs, self.settings)
        self.system_sha256 = request.text_digest(self.system)
        self.tools_sha256 = request.tools_digest(self.tool_specs)
        self.transcript = transcript
        self.kept_settings = self.settings
        if transcript is not None:
            transcript.keep_prompt(self.system)
            transcript.keep_tools(self.tool_specs)
            if "response_format" in self.settings:  # its sha256 on each line, once in a file
                digest = transcript.keep_format(self.settings["response_format"])
                self.kept_settings = {**self.settings, "response_format": {"sha256": digest}}
        self.charge = charge
        self.calls_made = transcript.last_call if transcript is not None else 0
        self.clock = clock
        self.down_since: float | None = None  # when the current outage began (clock seconds)
        self.down_cause = ""
        self.programs_ended = False  # a spent seat's programs, once
        self.phase = "idle"  # what the seat is doing, for a study's progress line

    def _settings(self) -> dict[str, Any]:
        """Everything of a request but its messages and tools, in the order sent."""
        cfg = self.config
        settings: dict[str, Any] = {"model": cfg.model}
        if cfg.tool_choice is not None:
            settings["tool_choice"] = cfg.tool_choice
        if cfg.text_actions == "json":
            settings["response_format"] = response_format(self.tool_specs)
        settings["max_tokens"] = cfg.max_tokens
        if cfg.temperature is not None:
            settings["temperature"] = cfg.temperature
        if cfg.session is not None:
            settings["user"] = cfg.session
        return settings

    @property
    def exhausted(self) -> bool:
        """The seat's budget is spent: it calls its model no more."""
        return self.stats.exhausted is not None

    # --- one turn ---------------------------------------------------------------------------

    def context(self) -> list[dict]:
        """The turn's messages after the system prompt: the kept turns, then this one."""
        cfg = self.config
        if cfg.observation == "json":
            obs = self.client.observe("json")
            now = json.dumps({k: v for k, v in obs.items() if k != "memory"},
                             separators=(",", ":"))
        else:
            obs = self.client.observe("text")
            now = obs["text"]
        recent = "\n".join(self.feedback) if cfg.feedback_kept else ""
        user = (
            f"## Clock\n{clock_line(int(obs.get('tick', 0)), cfg.horizon_tick, self.time)}\n\n"
            f"## Now\n{now}\n\n## Memory\n{memory_summary(obs.get('memory') or {})}\n\n"
            f"## Your recent tool calls and their results\n{recent or '(nothing yet)'}\n\n"
            "What do you do?"
        )
        kept = [m for turn in self.history for m in turn] if cfg.history_turns else []
        return [*kept, {"role": "user", "content": user}]

    def turn(self) -> bool:
        """One model request and its tool calls. False when the model could not be reached
        (after retries) or the budget is spent; the harness goes on with the next turn."""
        if self.exhausted:
            return False
        pending = self.begin()
        self.ask(pending)
        return self.finish(pending)

    def begin(self) -> Pending:
        self.stats.turns += 1
        return Pending(self.stats.turns, self.context(), self._tick())

    def ask(self, pending: Pending) -> Pending:
        """The model's answer (or None after the retries), with back-off; safe on a thread of
        its own: it touches the world only in realtime (to read the tick)."""
        self.phase = "waiting for its model"
        pending.reply = self._complete(pending)
        pending.tick_answered = self._clock(pending)
        self.phase = "answered"
        return pending

    def finish(self, pending: Pending) -> bool:
        """Run the answer's tool calls (or its text action), post the incidents, write the
        transcript; cancel the seat's programs once its budget is spent."""
        for cause, start, end, detail in pending.incidents:
            self._post_incident(cause, start, end, detail)
        results: list[str] = []
        reply = pending.reply
        call = pending.calls[-1] if pending.calls else None
        if reply is not None and call is not None:
            for tc in reply.tool_calls:
                self.stats.tool_calls += 1
                results.append(self._run_tool(tc.name, tc.arguments))
            if call.text_action is not None:
                self.stats.tool_calls += 1
                action = call.text_action
                line = self._run_tool(action["tool"], json.dumps(action["arguments"]))
                results.append(f"{line} [read from your text]")
            if call.reply == "text":
                self.feedback.append(said_feedback(reply.content or ""))
            elif call.reply == "empty":
                self.feedback.append(EMPTY_FEEDBACK)
            self.feedback.extend(results)
            self._keep_turn(pending, reply, results)
        if self.exhausted and not self.programs_ended:
            self.programs_ended = True
            self._end_programs()
        self._write(pending, results)
        self.phase = "idle"
        return reply is not None

    def _keep_turn(self, pending: Pending, reply: Reply, results: list[str]) -> None:
        """This turn as chat messages for the next ones (history_turns): the question, the
        answer (its content "" rather than null beside tool calls: llama.cpp refuses null
        there) and one tool message per call."""
        if not self.config.history_turns:
            return
        question = pending.messages[-1]
        answer: dict[str, Any] = {"role": "assistant", "content": reply.content or ""}
        if reply.tool_calls:
            answer["tool_calls"] = [{"id": tc.id, "type": "function",
                                     "function": {"name": tc.name, "arguments": tc.arguments}}
                                    for tc in reply.tool_calls]
        turn = [question, answer]
        for tc, result in zip(reply.tool_calls, results, strict=False):
            turn.append({"role": "tool", "tool_call_id": tc.id, "content": result})
        self.history.append(turn)

    def restore(self, calls: list[dict], incidents: list[dict]) -> None:
        """Go on where a transcript stops (a resumed realtime study's seat): its counts (the
        cost table covers the whole study), its incidents (the world's incident events of its
        character), and the feedback of its last turns as the next prompt would have shown it.
        Call numbers go on from the transcript already (Transcript.last_call)."""
        stats = self.stats
        for line in calls:
            stats.calls += 1
            stats.turns = max(stats.turns, int(line.get("turn") or 0))
            stats.prompt_tokens += int(line.get("prompt_tokens") or 0)
            stats.completion_tokens += int(line.get("completion_tokens") or 0)
            stats.cached_tokens += int(line.get("cached_tokens") or 0)
            stats.dollars += float(line.get("dollars") or 0.0)
            stats.latencies_ms.append(float(line.get("latency_ms") or 0.0))
            kind = line.get("reply") or ("failed" if line.get("error") else "tool_call")
            stats.replies[kind] = stats.replies.get(kind, 0) + 1
            error = line.get("error")
            if error:
                stats.failures += 1
                if error.get("cause") == "model_refused":
                    self.feedback.append(failed_feedback(str(error.get("detail", ""))))
                continue
            if line.get("tick_answered") is None:
                continue  # an earlier try of its turn, or a turn never acted on
            tools = line.get("tool_calls") or []
            stats.tool_calls += len(tools) + (1 if line.get("text_action") else 0)
            if kind == "text" and line.get("content"):
                self.feedback.append(said_feedback(line["content"]))
            self.feedback.extend(line.get("results") or [])
        stats.incidents = [{k: e.get(k) for k in ("cause", "start", "end", "detail")}
                           for e in incidents]
        if any(e.get("cause") == "budget_exhausted" for e in incidents):
            stats.exhausted = next(str(e.get("detail", "")) for e in incidents
                                   if e.get("cause") == "budget_exhausted")

    def outage_seconds(self) -> float:
        """How long every model request has been failing transiently (0 when it answers)."""
        return 0.0 if self.down_since is None else self.clock() - self.down_since

    def _given_up(self) -> bool:
        limit = self.config.give_up_after
        return limit is not None and self.down_since is not None and self.outage_seconds() >= limit

    def abandon(self, pending: Pending) -> None:
        """A turn the clock will never apply (the study reached its horizon): its calls are
        written to the transcript, its tool calls never run."""
        self._write(pending, [])

    def run(self, turns: int | None = None) -> HarnessStats:
        """Play `turns` turns (None: until stopped or the budget is spent). Raises
        ModelUnreachable once the model has been failing for longer than `give_up_after`."""
        done = 0
        # a client told its study ended (a 410 a tool call answered) plays no more turns
        while ((turns is None or done < turns) and not self.exhausted
               and not getattr(self.client, "ended", False)):
            await_turn = getattr(self.client, "await_turn", None)  # the SDK's, over REST
            if await_turn is not None and await_turn() is None and self.client.takes_turns:
                continue  # on a lockstep study: no turn came within the wait, ask again
            self.turn()
            done += 1
            if self._given_up():
                raise ModelUnreachable(
                    codes.MODEL_UNREACHABLE,
                    f"the model has not answered for {self.outage_seconds():.0f} s "
                    f"({self.down_cause}); giving up (--give-up-after "
                    f"{self.config.give_up_after:g})",
                )
            if ((turns is None or done < turns) and not self.exhausted
                    and not getattr(self.client, "takes_turns", False)):
                self.pause()
        return self.stats

    # --- the model, with back-off and incidents ------------------------------------------------

    def request_bytes(self, messages: list[dict]) -> bytes:
        return self.encoder.encode(messages)

    def _complete(self, pending: Pending) -> Reply | None:
        cfg = self.config
        started: int | None = None
        cause = ""
        detail = ""
        body = self.request_bytes(pending.messages)
        for attempt in range(cfg.max_retries + 1):
            if self.exhausted:
                break
            self.stats.calls += 1
            self.calls_made += 1
            call = Call(self.calls_made, pending.turn, attempt + 1, self._clock(pending))
            pending.calls.append(call)
            begun = time.perf_counter()
            try:
                reply = self.llm.complete(body, cfg.request_timeout)
                self._count(call, reply)
                self._check(reply)
            except ModelError as err:  # sorted below: transient ones are retried
                call.latency_ms = round((time.perf_counter() - begun) * 1000, 3)
                self.stats.latencies_ms.append(call.latency_ms)
                self.stats.failures += 1
                call.reply = "malformed" if err.cause == "model_malformed" else "failed"
                self.stats.replies[call.reply] += 1
                self._spend(pending, None)
                call.error = {"cause": err.cause, "detail": err.detail[:300]}
                self._check_budget(call, pending)
                if not err.transient:
                    if started is not None:
                        self._incident(cause, started, detail, pending)
                    self._incident("model_refused", self._clock(pending), err.detail, pending)
                    self.feedback.append(failed_feedback(err.detail))
                    return None
                if started is None:
                    started = call.tick_sent
                cause, detail = err.cause, err.detail[:300]
                if self.down_since is None:
                    self.down_since = self.clock()
                self.down_cause = f"{err.cause}: {detail}"
                log.warning("model call failed (%s), attempt %d", detail, attempt + 1)
                if self._given_up():
                    break
                if attempt < cfg.max_retries and not self.exhausted:
                    self.sleep(min(cfg.backoff_max, cfg.backoff_base * 2**attempt))
                continue
            call.latency_ms = round((time.perf_counter() - begun) * 1000, 3)
            self.stats.latencies_ms.append(call.latency_ms)
            self._classify(call, reply)
            self._spend(pending, call.completion_tokens)
            self.down_since = None
            if started is not None:
                self._incident(cause, started, detail, pending)
            self._check_budget(call, pending)
            return reply
        if started is not None:
            tries = len([c for c in pending.calls if c.error])
            self._incident(cause, started, detail + f" (gave up after {tries} tries)", pending)
        return None

    def _count(self, call: Call, reply: Reply) -> None:
        if reply.content is not None and len(reply.content) > CONTENT_LIMIT:
            reply.content = reply.content[:CONTENT_LIMIT] + " [cut]"
        usage = reply.usage
        call.prompt_tokens = usage.prompt_tokens or 0
        call.completion_tokens = usage.completion_tokens or 0
        call.cached_tokens = usage.cached_tokens or 0
        self.stats.prompt_tokens += call.prompt_tokens
        self.stats.completion_tokens += call.completion_tokens
        self.stats.cached_tokens += call.cached_tokens
        if self.config.prices is not None:
            call.dollars = self.config.prices.dollars(call.prompt_tokens, call.completion_tokens,
                                                      call.cached_tokens)
            self.stats.dollars += call.dollars
        call.content = reply.content
        call.tool_calls = [{"name": tc.name, "arguments": tc.arguments[:ARGUMENTS_LIMIT + 1]}
                           for tc in reply.tool_calls]

    def _check(self, reply: Reply) -> None:
        """A usable answer: its tool calls name offered tools with JSON objects."""
        for tc in reply.tool_calls:
            if len(tc.arguments) > ARGUMENTS_LIMIT:
                raise MalformedReply(f"the arguments of {tc.name[:40]!r} are "
                                     f"{len(tc.arguments):,} characters (at most "
                                     f"{ARGUMENTS_LIMIT:,})")
            if tc.name not in self.offered:
                raise MalformedReply(f"the answer calls {tc.name!r}, a tool it was not offered")
            try:
                args = json.loads(tc.arguments or "{}")
            except ValueError:
                raise MalformedReply(
                    f"the arguments of {tc.name} are not JSON (cut off?): "
                    f"{(tc.arguments or '')[:80]!r}"
                ) from None
            if not isinstance(args, dict):
                raise MalformedReply(f"the arguments of {tc.name} are not a JSON object")

    def _classify(self, call: Call, reply: Reply) -> None:
        if reply.tool_calls:
            call.reply = "tool_call"
        elif self.config.text_actions != "off" and (
                found := read_action(reply.content, self.parameters)) is not None:
            call.reply = "text_action"
            call.text_action = {"tool": found[0], "arguments": found[1], "read": found[2]}
        elif (reply.content or "").strip():
            call.reply = "text"
        else:
            call.reply = "empty"
        self.stats.replies[call.reply] += 1

    def _check_budget(self, call: Call, pending: Pending) -> None:
        budget = self.config.budget
        if budget is None or self.exhausted:
            return
        reached = budget.reached(self.stats.calls, self.stats.tokens, self.stats.dollars)
        if reached is not None:
            self.stats.exhausted = reached
            self._incident("budget_exhausted", self._clock(pending),
                           f"the seat's budget is spent ({reached}); it calls its model no more",
                           pending)

    def _end_programs(self) -> None:
        """A spent seat's programs end now: nobody is left to read their outcomes."""
        if not self.config.programs:
            return
        try:
            for status in self.client.program_status().get("programs", []):
                if status.get("status") in ("running", "waiting"):
                    self.client.cancel(int(status["id"]))
        except ApiError as err:
            log.warning("could not stop the programs of a spent seat: %s", err)

    def _clock(self, pending: Pending) -> int | None:
        """The turn's tick: the world's in realtime; in lockstep the tick sent plus the think
        time charged for the calls so far."""
        if self.charge is None:
            return self._tick()
        return None if pending.tick_sent is None else pending.tick_sent + pending.spent

    def _spend(self, pending: Pending, completion_tokens: int | None) -> None:
        if self.charge is not None:
            pending.spent += max(1, int(self.charge(completion_tokens)))

    def _tick(self) -> int | None:
        try:
            return self.client.tick()
        except ApiError:
            return None

    def _incident(
        self, cause: str, start: int | None, detail: str, pending: Pending | None = None
    ) -> None:
        end = self._clock(pending) if pending is not None else self._tick()
        if start is None or end is None:
            start = end = start if start is not None else end
        self.stats.incidents.append({"cause": cause, "start": start, "end": end, "detail": detail})
        if self.charge is None or pending is None:
            self._post_incident(cause, start, end, detail)
        else:
            pending.incidents.append((cause, start, end, detail))

    def _post_incident(self, cause: str, start: int | None, end: int | None, detail: str) -> None:
        try:
            self.client.incident(cause, start, end, detail)
        except ApiError as err:  # the record stays in the stats even if the server is away
            log.warning("could not post the incident: %s", err)

    def _write(self, pending: Pending, results: list[str]) -> None:
        if self.transcript is None:
            return
        answered = pending.tick_answered
        prompt = prompt_summary(pending.messages)
        asked = {"system": self.system_sha256, "tools": self.tools_sha256,
                 "messages": pending.messages, "settings": self.kept_settings}
        for call in pending.calls:
            last = call is pending.calls[-1]
            self.transcript.write({
                "call": call.number, "turn": call.turn, "attempt": call.attempt,
                "tick_sent": call.tick_sent, "tick_answered": answered if last else None,
                "latency_ms": call.latency_ms, "prompt_tokens": call.prompt_tokens,
                "completion_tokens": call.completion_tokens,
                "cached_tokens": call.cached_tokens, "dollars": round(call.dollars, 8),
                "reply": call.reply, "tool_calls": call.tool_calls, "content": call.content,
                "text_action": call.text_action,
                "results": results if last and call.error is None else [],
                "error": call.error,
                "request": asked,
                # once per turn: what the model was shown, in short (the replay viewer's)
                "prompt": prompt if call is pending.calls[0] else "",
            })

    # --- tools ---------------------------------------------------------------------------------

    def _run_tool(self, name: str, raw_args: str | None) -> str:
        try:
            args = json.loads(raw_args or "{}")
        except ValueError:
            return f"{name}({raw_args}) -> bad_argument: the arguments are not JSON"
        if name == "submit_program" and self.config.approve_programs:
            refusal = self._approve(args)
            if refusal:
                return f"{name}({args.get('name')}) -> {refusal}"
        result = self.tools.call(name, args)
        shown = json.dumps(args, separators=(",", ":"))[:200]
        return f"{name}({shown}) -> {json.dumps(result, separators=(',', ':'))[:400]}"

    def _approve(self, args: dict) -> str | None:
        """Ask a person on the terminal; the wait is recorded as an `approval_wait` incident."""
        start = self._tick()
        prompt = (
            f"\n--- program {args.get('name')!r} ---\n{args.get('source', '')}\n---\n"
            "approve this program? [y/N] "
        )
        try:
            answer = self.approver(prompt)
        except EOFError:
            answer = ""
        self._incident("approval_wait", start, f"program {args.get('name')!r}")
        if answer.strip().lower() in ("y", "yes"):
            return None
        return "not_approved: the operator did not approve this program"


EMPTY_FEEDBACK = "(your last answer was empty: answer with a tool call)"


def said_feedback(content: str) -> str:
    """What a turn answered without a tool call adds to the next prompt's feedback."""
    return f"you said (no tool call): {content.strip()[:300]}"


def failed_feedback(detail: str) -> str:
    """What a refused model request adds to the next prompt's feedback."""
    return f"(the model request failed: {detail[:200]})"


def tool_call_of(record: dict, index: int) -> ToolCall:
    """A transcript's tool call as the endpoint gives it (a resumed study answers from it)."""
    tc = record["tool_calls"][index]
    return ToolCall(id=f"call_{record['call']}_{index}", name=tc["name"],
                    arguments=tc.get("arguments") or "")
