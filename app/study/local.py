"""The agent API of one character, served in-process from a study's pipeline.

`LocalClient` answers what the SDK's HTTP `Client` answers (observe, act, programs, events,
incidents, the tick), so the LLM harness and its tools play a study's characters unchanged and
no server is needed. `call` runs a world access where the world lives: directly for the lockstep
clock (the study's own loop is the only thread), on the runner's thread in realtime.

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
from typing import Any

from asiworld.agents.clients.sdk import ApiError
from asiworld.engine import codes

EVENTS_KEPT = 500
PROGRAM_ENDS = {"program_finished", "program_failed", "program_stopped", "program_interrupted"}
OUTCOME = "program_outcome"  # the server's name for any program end


@dataclass
class Wait:
    kinds: set[str] | None
    until_tick: int
    met: bool = False

    def wants(self, kind: str) -> bool:
        if self.kinds is None:
            return True
        return kind in self.kinds or (OUTCOME in self.kinds and kind in PROGRAM_ENDS)


class LocalClient:
    def __init__(
        self,
        pipeline: Any,
        character: int,
        call: Callable[[Callable[[], Any]], Any] | None = None,
        lockstep: bool = True,
        ticks_per_second: float = 1.0,
    ) -> None:
        self.pipeline = pipeline
        self.character = character
        self.call = call or (lambda fn: fn())
        self.lockstep = lockstep
        self.ticks_per_second = ticks_per_second
        self.events: deque[dict] = deque(maxlen=EVENTS_KEPT)
        self.seq = 0
        self.last_seq = 0
        self.observed_seq = 0
        self.stopped = False  # the study is over: a wait ends at once
        self.waiting: Wait | None = None
        self._arrived = threading.Condition()

    # --- fed by the study's observer, on the world's thread -------------------------------------

    def deliver(self, events: Iterable[dict]) -> None:
        mine = [e for e in events if e.get("char") == self.character]
        if not mine:
            return
        with self._arrived:
            for event in mine:
                self.seq += 1
                self.events.append({**event, "seq": self.seq})
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

    # --- the agent API ---------------------------------------------------------------------

    def observe(self, format: str = "json") -> dict:
        from asiworld.server.agent_api import program_lines

        def read() -> dict:
            pipeline, cid = self.pipeline, self.character
            if format == "text":
                obs = pipeline.observe(cid)  # consumes the events the text lists
                text = pipeline.world.observe_text(cid, obs)
                extra = {k: obs.get(k, []) for k in ("programs", "program_events")}
                return {"tick": obs["tick"], "text": text + program_lines(extra),
                        "self": obs["self"], "memory": obs.get("memory", {}), **extra}
            return pipeline.observe(cid)

        self.observed_seq = self.seq  # what a wait after this observation counts from
        return self.call(read)

    def act(self, action: dict) -> dict:
        def submit() -> dict:
            return {**self.pipeline.submit(self.character, action),
                    "tick": self.pipeline.world.tick}

        return self.call(submit)

    def run_program(self, name: str, source: str) -> dict:
        # realtime: compiled on the seat's thread, not the clock's (lockstep: one thread)
        prepared = None if self.lockstep else self.pipeline.prepare_program(name, source)
        return self.call(lambda: self.pipeline.submit_program(self.character, name, source,
                                                              prepared))

    def program_status(self, pid: int | None = None) -> dict:
        def read() -> dict:
            programs = self.pipeline.programs
            if programs is None:
                raise ApiError(codes.PROGRAMS_UNAVAILABLE, "this world hosts no programs")
            if pid is None:
                mine = [r.status_dict() for r in programs.programs_of(self.character)]
                return {"programs": mine}
            record = programs.record(self.character, pid)
            if record is None:
                raise ApiError(codes.UNKNOWN_PROGRAM, f"you have no program {pid}")
            return {**record.status_dict(), "logs": list(record.logs),
                    "outcome": record.outcome}

        return self.call(read)

    def cancel(self, pid: int) -> dict:
        self.program_status(pid)  # yours, or ApiError
        return self.call(lambda: self.pipeline.programs.cancel(self.character, pid))

    def wait_for_event(self, kinds: Iterable[str] | None = None, timeout: float = 30.0,
                       **_: Any) -> dict | None:
        wanted = set(kinds) if kinds else None
        if self.lockstep:
            now = self.tick()
            until = now + max(1, math.ceil(timeout * self.ticks_per_second))
            wait = Wait(wanted, until)
            with self._arrived:  # one that came since the model's observation counts too
                wait.met = any(e["seq"] > self.observed_seq and wait.wants(e["kind"])
                               for e in self.events)
                self.waiting = wait
            return {"kind": "waiting", "until_tick": until,
                    "note": "your next turn comes with such an event or at that tick"}
        with self._arrived:
            def found() -> dict | None:
                for event in self.events:
                    if event["seq"] > self.last_seq and (wanted is None or Wait(
                            wanted, 0).wants(event["kind"])):
                        return event
                return None

            self._arrived.wait_for(lambda: self.stopped or found() is not None, timeout=timeout)
            event = found()
            self.last_seq = self.seq
            return event

    def incident(self, cause: str, start: int | None = None, end: int | None = None,
                 detail: str = "") -> dict:
        def post() -> dict:
            now = self.pipeline.world.tick
            event = {"kind": "incident", "char": self.character, "cause": cause,
                     "start": now if start is None else start, "end": end}
            if detail:
                event["detail"] = detail[:500]
            # in realtime on the world's thread, saved before it is acknowledged (a resumed
            # study gives it back); a lockstep study replays the call that made it instead
            self.pipeline.add_event(event, durable=not self.lockstep)
            return event

        return self.call(post)

    def tick(self) -> int:
        return int(self.pipeline.world.tick)
