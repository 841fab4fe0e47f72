"""The LLM harness: a language model behind any OpenAI-compatible chat endpoint plays a character.

Each turn is one chat request with a bounded context: the system prompt (the rules of play and
the program API page, docs/programs.md), then one user message holding the current observation as
text, a summary of what the character remembers, and the feedback of recent turns. The model
answers with tool calls (an action, a program, a wait); the harness runs them through the agent
API and keeps their results as feedback for the next turn. Nothing else is carried over, so the
context never grows.

Model calls that fail for a transient reason (5xx, 429, timeouts, connection errors) are retried
with exponential back-off; each interruption is posted to the server as an incident
`{"kind": "incident", "char", "cause", "start", "end"}` (ticks) so it enters the world's event
stream. In approval mode a person approves each program on stdin; the wait is an incident too.
"""

from __future__ import annotations

import json
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from asiworld.agents.sdk import ApiError, Client
from asiworld.agents.tools import ToolBox, openai_tools
from asiworld.agents.transcript import Transcript, prompt_summary
from asiworld.engine.errors import CodedError
from asiworld.resources import shipped

log = logging.getLogger(__name__)

PROGRAM_DOC = shipped("docs") / "programs.md"
RULES = """You play one character in ASIWorld, a persistent survival sandbox shared with other
agents. The world keeps running while you think. Survive (eat before hunger runs out, shelter and
sleep at night), gather, craft better tools, build a home, explore, and clear dungeons.

Each turn you see your observation as text, a summary of what you remember, and the results of
your recent tool calls. Answer with tool calls: one action tool (move, gather, craft, ...) starts
an operation that replaces your current one; `submit_program` hands the server a script that
keeps acting for you between turns; `wait_for_event` waits for your operation or program to end.
Coordinates are absolute (x grows east, y grows south). Refusals come back with a code and a
sentence: read them and try something else."""


@dataclass
class HarnessConfig:
    model: str
    name: str = "llm"
    label: str = ""
    think_seconds: float = 1.0  # pause between turns (the world keeps ticking)
    max_retries: int = 6  # per turn, for transient model errors
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    request_timeout: float = 60.0
    feedback_kept: int = 12  # recent tool results shown to the model
    max_tokens: int = 1024
    temperature: float | None = None  # None: the endpoint's default
    programs: bool = True  # offer submit_program / program_status / cancel_program
    approve_programs: bool = False
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
    tool_calls: int = 0
    incidents: list[dict] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)  # every request, failed ones too

    def to_dict(self) -> dict:
        return dict(vars(self))


TRANSIENT_STATUS = {408, 409, 429, 500, 502, 503, 504}
PROGRAM_TOOLS = {"submit_program", "program_status", "cancel_program"}


class ModelUnreachable(CodedError):
    """The model has failed every request for longer than `give_up_after` seconds."""


class MalformedReply(Exception):
    """A 200 answer the harness cannot use: no choices, a tool call that is cut off or names no
    tool it offered. Retried like a 5xx: a model's next answer is usually fine."""


def transient_cause(err: Exception) -> str | None:
    """The incident cause of a model error worth retrying; None for errors that are not."""
    import openai

    # A failure read back from a transcript (a resumed study replays its model calls): the
    # cause it had then.
    replayed = getattr(err, "incident_cause", None)
    if replayed is not None:
        return None if replayed == "model_refused" else replayed
    if isinstance(err, openai.APITimeoutError):
        return "model_timeout"
    if isinstance(err, openai.APIConnectionError):
        return "model_unreachable"
    if isinstance(err, openai.RateLimitError):
        return "model_rate_limited"
    if isinstance(err, openai.APIStatusError) and (
        err.status_code in TRANSIENT_STATUS or err.status_code >= 500
    ):
        return "model_error"
    # A 200 whose body is not JSON (a proxy's HTML page) or not a completion.
    if isinstance(err, MalformedReply | ValueError | openai.APIResponseValidationError):
        return "model_malformed"
    return None


def chat_completion(llm: Any, **body: Any) -> Any:
    """`llm.chat.completions.create(**body)`. An openai.OpenAI client is handed the tools and
    the messages as `extra_body`, which it sends as they are: given as `tools` and `messages`
    it walks them against its typed parameters first (about 5 ms of the interpreter per call
    for the tools, 0.3 ms for the messages, which a study's clock shares), for the same JSON
    on the wire (`messages` keeps its place: the extra body replaces the empty list)."""
    import openai

    if isinstance(llm, openai.OpenAI):
        extra = {**body.get("extra_body", {})}
        for key in ("tools", "messages"):
            if key in body:
                extra[key] = body[key]
        body = {**body, "extra_body": extra, "messages": []}
        body.pop("tools", None)
    return llm.chat.completions.create(**body)


def system_prompt() -> str:
    # The page ships in the wheel (asiworld/docs); a missing one is a packaging bug, so it raises.
    programs = PROGRAM_DOC.read_text(encoding="utf-8")
    return f"{RULES}\n\n# The program API\n\n{programs}"


def memory_summary(memory: dict, limit: int = 12) -> str:
    """A few lines from the character's memory: how much it has seen, what it last saw where."""
    seen = memory.get("seen_tiles", 0)
    remembered = sorted(memory.get("entities", []), key=lambda e: -e.get("tick", 0))[:limit]
    lines = [f"you have seen {seen} tiles"]
    for e in remembered:
        lines.append(f"- {e['kind']} #{e['id']} at ({e['x']}, {e['y']}) seen at tick {e['tick']}")
    return "\n".join(lines)


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
    tool_calls: list[dict] = field(default_factory=list)
    content: str | None = None  # the answer's text, when it has one
    error: dict | None = None


@dataclass
class Pending:
    """A turn between its question and its answer: the lockstep clock applies the answer at
    `tick_answered` (the tick sent plus the think time charged for every call it took)."""

    turn: int
    messages: list[dict]
    tick_sent: int | None
    reply: Any = None
    calls: list[Call] = field(default_factory=list)
    incidents: list[tuple[str, int | None, int | None, str]] = field(default_factory=list)
    tick_answered: int | None = None
    spent: int = 0  # lockstep: think ticks charged so far


class Harness:
    """Plays one character through a model. `turn()` is one whole turn; a clock that must apply
    answers at a tick of its own calls `begin()`, `ask(pending)` (the model, perhaps on another
    thread) and `finish(pending)` instead. With `charge` (lockstep), every call costs the ticks
    `charge(completion_tokens)` returns (None for a failed call) on the turn's own clock, and the
    incidents wait for `finish` so they enter the world in the same order every run."""

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
        self.llm = llm  # an openai.OpenAI (or anything with .chat.completions.create)
        self.config = config
        self.tools = ToolBox(client)
        specs = openai_tools()
        if not config.programs:
            specs = [t for t in specs if t["function"]["name"] not in PROGRAM_TOOLS]
        self.tool_specs = specs
        self.offered = {t["function"]["name"] for t in specs}
        self.approver = approver
        self.pause = pause or (lambda: sleep(config.think_seconds))
        self.sleep = sleep
        self.feedback: deque[str] = deque(maxlen=max(1, config.feedback_kept))
        self.stats = HarnessStats()
        self.system = system_prompt()
        self.transcript = transcript
        self.charge = charge
        self.calls_made = transcript.last_call if transcript is not None else 0
        self.clock = clock
        self.down_since: float | None = None  # when the current outage began (clock seconds)
        self.down_cause = ""

    # --- one turn ---------------------------------------------------------------------------

    def context(self) -> list[dict]:
        obs = self.client.observe("text")
        recent = "\n".join(self.feedback) if self.config.feedback_kept else ""
        user = (
            f"## Now\n{obs['text']}\n\n## Memory\n{memory_summary(obs.get('memory') or {})}\n\n"
            f"## Your recent tool calls and their results\n{recent or '(nothing yet)'}\n\n"
            "What do you do?"
        )
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]

    def turn(self) -> bool:
        """One model request and its tool calls. False when the model could not be reached
        (after retries); the harness goes on with the next turn either way."""
        pending = self.begin()
        self.ask(pending)
        return self.finish(pending)

    def begin(self) -> Pending:
        self.stats.turns += 1
        return Pending(self.stats.turns, self.context(), self._tick())

    def ask(self, pending: Pending) -> Pending:
        """The model's answer (or None after the retries), with back-off; safe on a thread of
        its own: it touches the world only in realtime (to read the tick)."""
        pending.reply = self._complete(pending)
        pending.tick_answered = self._clock(pending)
        return pending

    def finish(self, pending: Pending) -> bool:
        """Run the answer's tool calls, post the incidents, write the transcript."""
        for cause, start, end, detail in pending.incidents:
            self._post_incident(cause, start, end, detail)
        results: list[str] = []
        reply = pending.reply
        if reply is not None:
            message = reply.choices[0].message
            calls = message.tool_calls or []
            if not calls and message.content:
                self.feedback.append(said_feedback(message.content))
            for call in calls:
                self.stats.tool_calls += 1
                results.append(self._run_tool(call.function.name, call.function.arguments))
            self.feedback.extend(results)
        self._write(pending, results)
        return reply is not None

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
            stats.latencies_ms.append(float(line.get("latency_ms") or 0.0))
            error = line.get("error")
            if error:
                stats.failures += 1
                if error.get("cause") == "model_refused":
                    self.feedback.append(failed_feedback(str(error.get("detail", ""))))
                continue
            if line.get("tick_answered") is None:
                continue  # an earlier try of its turn, or a turn never acted on
            tools = line.get("tool_calls") or []
            stats.tool_calls += len(tools)
            if not tools and line.get("content"):
                self.feedback.append(said_feedback(line["content"]))
            self.feedback.extend(line.get("results") or [])
        stats.incidents = [{k: e.get(k) for k in ("cause", "start", "end", "detail")}
                           for e in incidents]

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
        """Play `turns` turns (None: until stopped). Raises ModelUnreachable once the model has
        been failing for longer than `give_up_after` (when set)."""
        done = 0
        while turns is None or done < turns:
            self.turn()
            done += 1
            if self._given_up():
                raise ModelUnreachable(
                    "model_unreachable",
                    f"the model has not answered for {self.outage_seconds():.0f} s "
                    f"({self.down_cause}); giving up (--give-up-after "
                    f"{self.config.give_up_after:g})",
                )
            if turns is None or done < turns:
                self.pause()
        return self.stats

    # --- the model, with back-off and incidents ------------------------------------------------

    def _complete(self, pending: Pending) -> Any:
        cfg = self.config
        started: int | None = None
        cause = ""
        detail = ""
        extra: dict[str, Any] = {} if cfg.temperature is None else {"temperature": cfg.temperature}
        if cfg.session is not None:
            extra["user"] = cfg.session
        for attempt in range(cfg.max_retries + 1):
            self.stats.calls += 1
            self.calls_made += 1
            call = Call(self.calls_made, pending.turn, attempt + 1, self._clock(pending))
            pending.calls.append(call)
            begun = time.perf_counter()
            try:
                reply = chat_completion(
                    self.llm,
                    model=cfg.model,
                    messages=pending.messages,
                    tools=self.tool_specs,
                    max_tokens=cfg.max_tokens,
                    timeout=cfg.request_timeout,
                    **extra,
                )
                self._count(call, reply)
                self._check(reply)
            except Exception as err:  # sorted below: transient ones are retried
                call.latency_ms = round((time.perf_counter() - begun) * 1000, 3)
                self.stats.latencies_ms.append(call.latency_ms)
                kind = transient_cause(err)
                self.stats.failures += 1
                self._spend(pending, None)
                call.error = {"cause": kind or "model_refused", "detail": _said(err)}
                if kind is None:
                    if started is not None:
                        self._incident(cause, started, detail, pending)
                    self._incident("model_refused", self._clock(pending), str(err), pending)
                    self.feedback.append(failed_feedback(str(err)))
                    return None
                if started is None:
                    started = call.tick_sent
                cause, detail = kind, _said(err)
                if self.down_since is None:
                    self.down_since = self.clock()
                self.down_cause = f"{kind}: {detail}"
                log.warning("model call failed (%s), attempt %d", detail, attempt + 1)
                if self._given_up():
                    break
                if attempt < cfg.max_retries:
                    self.sleep(min(cfg.backoff_max, cfg.backoff_base * 2**attempt))
                continue
            call.latency_ms = round((time.perf_counter() - begun) * 1000, 3)
            self.stats.latencies_ms.append(call.latency_ms)
            self._spend(pending, call.completion_tokens)
            self.down_since = None
            if started is not None:
                self._incident(cause, started, detail, pending)
            return reply
        tries = len([c for c in pending.calls if c.error])
        self._incident(cause, started, detail + f" (gave up after {tries} tries)", pending)
        return None

    def _count(self, call: Call, reply: Any) -> None:
        usage = getattr(reply, "usage", None)
        if usage is not None:
            call.prompt_tokens = usage.prompt_tokens or 0
            call.completion_tokens = usage.completion_tokens or 0
            self.stats.prompt_tokens += call.prompt_tokens
            self.stats.completion_tokens += call.completion_tokens
        choices = getattr(reply, "choices", None) or []
        message = getattr(choices[0], "message", None) if choices else None
        call.content = getattr(message, "content", None)
        for tc in getattr(message, "tool_calls", None) or []:
            call.tool_calls.append(
                {"name": tc.function.name, "arguments": tc.function.arguments}
            )

    def _check(self, reply: Any) -> None:
        """A usable answer: a choice whose tool calls name offered tools with JSON objects."""
        choices = getattr(reply, "choices", None)
        if not choices:
            raise MalformedReply("the answer has no choices")
        message = getattr(choices[0], "message", None)
        if message is None:
            raise MalformedReply("the answer's choice has no message")
        for tc in message.tool_calls or []:
            name = tc.function.name
            if name not in self.offered:
                raise MalformedReply(f"the answer calls {name!r}, a tool it was not offered")
            try:
                args = json.loads(tc.function.arguments or "{}")
            except ValueError:
                raise MalformedReply(
                    f"the arguments of {name} are not JSON (cut off?): "
                    f"{(tc.function.arguments or '')[:80]!r}"
                ) from None
            if not isinstance(args, dict):
                raise MalformedReply(f"the arguments of {name} are not a JSON object")

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
        for call in pending.calls:
            last = call is pending.calls[-1]
            self.transcript.write({
                "call": call.number, "turn": call.turn, "attempt": call.attempt,
                "tick_sent": call.tick_sent, "tick_answered": answered if last else None,
                "latency_ms": call.latency_ms, "prompt_tokens": call.prompt_tokens,
                "completion_tokens": call.completion_tokens, "tool_calls": call.tool_calls,
                "content": call.content,
                "results": results if last and call.error is None else [],
                "error": call.error,
                # once per turn: what the model was shown, in short
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


def said_feedback(content: str) -> str:
    """What a turn answered without a tool call adds to the next prompt's feedback."""
    return f"you said (no tool call): {content.strip()[:300]}"


def failed_feedback(detail: str) -> str:
    """What a refused model request adds to the next prompt's feedback."""
    return f"(the model request failed: {detail[:200]})"


def _said(err: Exception) -> str:
    return f"{type(err).__name__}: {str(err)[:200]}"
