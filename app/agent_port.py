"""The agent port: the operations an agent plays its character with, and their one in-process
implementation over a pipeline.

`AgentPort` names them (observe, act, programs, events, waiting, incidents, the tick). Three
transports speak it, and a test (tests/test_agent_port.py) holds them to the same methods:

- **in process**, `PipelinePort` here: a study's model seats are one each, on either clock;
- **REST and Socket.IO**, asiworld.server.agent_api: each request is answered by a
  `PipelinePort` of the token's character, run on the server's runner thread;
- **HTTP**, asiworld.agents.sdk `Client`: the same methods over the REST API.

Every world access goes through the pipeline (`Pipeline.observe`, `submit`, `submit_program`,
`add_event`), so an agent's action meets the direct-action rule whichever way it came.

`PipelinePort.call` runs a world access where the world lives: directly for a lockstep clock
(the study's loop is the only thread), on the runner's thread in realtime and on a server.
Waiting differs by clock. In realtime `wait_for_event` blocks (up to its timeout, in seconds)
until an event of the asked kinds concerns the character. In lockstep nothing may block the
loop, so the call returns at once with `{"kind": "waiting", "until_tick": T}` and the study
holds the character's next turn until such an event arrives or tick T (one tick is one second
of game time); one that arrived since the model's observation ends the wait at once (the
operation it waits for may have finished while the model thought).
"""

from __future__ import annotations

import math
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from asiworld.engine import codes
from asiworld.engine.errors import CodedError

EVENTS_KEPT = 500  # per character; an agent reading less often than this misses the oldest
PROGRAM_ENDS = ("finished", "failed", "stopped", "interrupted")  # a program's final statuses
OUTCOME = "program_outcome"  # what an agent calls any program's end
OUTCOME_KINDS = frozenset(f"program_{status}" for status in PROGRAM_ENDS)  # the host's names


class ApiError(CodedError):
    """An answer that is an error: HTTP status, a stable code and a sentence (raised by every
    transport, `status` 0 when no server answered)."""

    def __init__(self, status: int, code: str, message: str, body: dict | None = None) -> None:
        super().__init__(code, message)
        self.status, self.body = status, body or {}
        self.http_status = status or None  # a server answers it with its own status
        self.retry_after = 0.0  # seconds, from a 429's Retry-After

    def __str__(self) -> str:
        return f"{self.status} {self.code}: {self.message}"


@runtime_checkable
class AgentPort(Protocol):
    """What an agent can do with its character, whatever carries it."""

    character: int | None

    def observe(self, format: str = "json") -> dict: ...

    def act(self, action: dict) -> dict: ...

    def run_program(self, name: str, source: str) -> dict: ...

    def program_status(self, pid: int | None = None) -> dict: ...

    def cancel(self, pid: int) -> dict: ...

    def events(self, after: int | None = None) -> list[dict]: ...

    def wait_for_event(
        self, kinds: Iterable[str] | None = None, timeout: float = 30.0
    ) -> dict | None: ...

    def incident(
        self, cause: str, start: int | None = None, end: int | None = None, detail: str = ""
    ) -> dict: ...

    def tick(self) -> int: ...


# --- what every transport answers alike ------------------------------------------------------


def text_observation(world: Any, char: int, obs: dict) -> dict:
    """The observation for language models, from the character's observation of this tick
    (`Pipeline.observe`, which consumed the events the text lists): the world's text with the
    character's programs under it."""
    extra = {key: obs.get(key, []) for key in ("programs", "program_events")}
    return {
        "tick": obs["tick"],
        "text": world.observe_text(char, obs) + program_lines(extra),
        "self": obs["self"],
        "memory": obs.get("memory", {}),
        **extra,
    }


def program_lines(extra: dict) -> str:
    """The programs' part of a text observation: status, outcome and the latest logs."""
    lines = []
    for status in extra.get("programs", []):
        where = f" line {status['line']}" if status.get("line") else ""
        lines.append(f"program #{status['id']} {status['name']}: {status['status']}{where}")
        if status.get("outcome") is not None:
            lines.append(f"  outcome: {status['outcome']}")
    for event in extra.get("program_events", [])[-10:]:
        if event["kind"] == "program_log":
            lines.append(f"  log: {event.get('text')}")
    return ("\n" + "\n".join(lines)) if lines else ""


def program_report(record: Any) -> dict:
    """One program as its owner asks for it: status, logs and outcome."""
    return {**record.status_dict(), "logs": list(record.logs), "outcome": record.outcome}


def program_outcome(record: Any, tick: int) -> dict:
    """The `program_outcome` event an agent is told when one of its programs ends."""
    return {
        "tick": tick,
        "kind": OUTCOME,
        "char": record.char,
        "program": record.id,
        "name": record.name,
        "status": record.status,
        "outcome": record.outcome,
    }


def unknown_program(pid: int) -> ApiError:
    # Another character's program gets this very answer, so ids tell nothing about them.
    return ApiError(404, codes.UNKNOWN_PROGRAM, f"this character has no program {pid}")


# --- the in-process port -----------------------------------------------------------------------


@dataclass
class Wait:
    kinds: set[str] | None
    until_tick: int
    met: bool = False

    def wants(self, kind: str) -> bool:
        if self.kinds is None:
            return True
        return kind in self.kinds or (OUTCOME in self.kinds and kind in OUTCOME_KINDS)


def tool_call(action: Any) -> str | None:
    """A model's action as the tool call it was: "tool call move_to(x=70, y=41)"."""
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        return None
    args = ", ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}"
                     for k, v in action.items() if k != "type")
    return f"tool call {action['type']}({args})"


def _without_goal(event: dict) -> dict:
    return {k: v for k, v in event.items() if k != "goal"} if "goal" in event else event


class PipelinePort:
    """One character's agent port, served in process from a pipeline (see the module
    docstring). `started(pid)` is told of each program accepted, on the world's thread."""

    def __init__(
        self,
        pipeline: Any,
        character: int,
        call: Callable[[Callable[[], Any]], Any] | None = None,
        lockstep: bool = True,
        ticks_per_second: float = 1.0,
        started: Callable[[int], None] | None = None,
        tool_calls: bool = False,
    ) -> None:
        self.pipeline = pipeline
        self.character = character
        # A model seat's port (study/seats.py): each action is a tool call, and its `action`
        # event carries it as the goal ("tool call move_to(x=70, y=41)") for spectators.
        self.tool_calls = tool_calls
        self.call = call or (lambda fn: fn())
        self.lockstep = lockstep
        self.ticks_per_second = ticks_per_second
        self.started = started
        self.buffer: deque[dict] = deque(maxlen=EVENTS_KEPT)
        self.seq = 0
        self.last_seq = 0
        self.observed_seq = 0
        self.stopped = False  # the study is over: a wait ends at once
        self.waiting: Wait | None = None
        self._arrived = threading.Condition()

    # --- fed by its owner's observer, on the world's thread -------------------------------------

    def deliver(self, events: Iterable[dict]) -> None:
        # an action's `goal` is for spectators: the agent knows what it asked
        mine = [_without_goal(e) for e in events if e.get("char") == self.character]
        if not mine:
            return
        with self._arrived:
            for event in mine:
                self.seq += 1
                self.buffer.append({**event, "seq": self.seq})
                if self.waiting is not None and self.waiting.wants(event["kind"]):
                    self.waiting.met = True
            self._arrived.notify_all()

    def seen_all(self) -> None:
        """Count every event delivered so far as seen: a resumed realtime study's seat is not
        handed, as news, what happened before the kill (it observes the world as it is)."""
        with self._arrived:
            self.last_seq = self.observed_seq = self.seq

    def stop(self) -> None:
        """The study has reached its horizon: a model's wait ends now, not at its timeout."""
        with self._arrived:
            self.stopped = True
            self._arrived.notify_all()

    def ready(self, tick: int) -> bool:
        """Lockstep: whether a wait the model asked for is over (an event came, or its time)."""
        wait = self.waiting
        if wait is None:
            return True
        if wait.met or tick >= wait.until_tick:
            self.waiting = None
            return True
        return False

    # --- the agent port ------------------------------------------------------------------------

    def observe(self, format: str = "json") -> dict:
        def read() -> dict:
            obs = self.pipeline.observe(self.character)  # consumes the events the text lists
            if format == "text":
                return text_observation(self.pipeline.world, self.character, obs)
            return obs

        self.observed_seq = self.seq  # what a wait after this observation counts from
        return self.call(read)

    def act(self, action: dict) -> dict:
        goal = tool_call(action) if self.tool_calls else None

        def submit() -> dict:
            return {**self.pipeline.submit(self.character, action, goal=goal),
                    "tick": self.pipeline.world.tick}

        return self.call(submit)

    def run_program(self, name: str, source: str) -> dict:
        # realtime: compiled on the caller's thread, not the clock's (lockstep: one thread)
        prepared = None if self.lockstep else self.pipeline.prepare_program(name, source)

        def submit() -> dict:
            reply = self.pipeline.submit_program(self.character, name, source, prepared)
            if reply.get("ok") and self.started is not None:
                self.started(reply["id"])
            return reply

        try:
            return self.call(submit)
        except BaseException:
            if hasattr(prepared, "close"):  # never handed over: its process ends here
                prepared.close()
            raise

    def program_status(self, pid: int | None = None) -> dict:
        def read() -> dict:
            programs = self.pipeline.programs
            if programs is None:
                raise ApiError(409, codes.PROGRAMS_UNAVAILABLE, "this world hosts no programs")
            if pid is None:
                return {"programs": [r.status_dict() for r in programs.programs_of(self.character)]}
            record = programs.record(self.character, pid)
            if record is None:
                raise unknown_program(pid)
            return program_report(record)

        return self.call(read)

    def cancel(self, pid: int) -> dict:
        """The program host's answer (`ok: false` with `not_running` once it has ended)."""
        self.program_status(pid)  # yours, or ApiError
        return self.call(lambda: self.pipeline.programs.cancel(self.character, pid))

    def events(self, after: int | None = None) -> list[dict]:
        """Events concerning the character since `after` (default: since the last call)."""
        with self._arrived:
            after = self.last_seq if after is None else after
            found = [e for e in self.buffer if e["seq"] > after]
            self.last_seq = max([self.last_seq] + [e["seq"] for e in found])
            return found

    def wait_for_event(
        self, kinds: Iterable[str] | None = None, timeout: float = 30.0
    ) -> dict | None:
        wanted = set(kinds) if kinds else None
        if self.lockstep:
            now = self.tick()
            until = now + max(1, math.ceil(timeout * self.ticks_per_second))
            wait = Wait(wanted, until)
            with self._arrived:  # one that came since the model's observation counts too
                wait.met = any(e["seq"] > self.observed_seq and wait.wants(e["kind"])
                               for e in self.buffer)
                self.waiting = wait
            return {"kind": "waiting", "until_tick": until,
                    "note": "your next turn comes with such an event or at that tick"}
        with self._arrived:
            def found() -> dict | None:
                for event in self.buffer:
                    if event["seq"] > self.last_seq and (wanted is None or Wait(
                            wanted, 0).wants(event["kind"])):
                        return event
                return None

            self._arrived.wait_for(lambda: self.stopped or found() is not None, timeout=timeout)
            event = found()
            self.last_seq = self.seq
            return event

    def incident(
        self, cause: str, start: int | None = None, end: int | None = None, detail: str = ""
    ) -> dict:
        def post() -> dict:
            now = self.pipeline.world.tick
            event = {"kind": "incident", "char": self.character, "cause": cause,
                     "start": now if start is None else start, "end": end}
            if detail:
                event["detail"] = detail[:500]
            # in realtime on the world's thread, saved before it is acknowledged (a server or a
            # resumed study gives it back); a lockstep study replays the call that made it
            self.pipeline.add_event(event, durable=not self.lockstep)
            return event

        return self.call(post)

    def tick(self) -> int:
        return int(self.pipeline.world.tick)
