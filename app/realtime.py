"""WorldRunner: the realtime clock, and the one thread that owns the world while it runs.

The live server runs its world on it, and so does a study on the realtime clock (the lockstep
clock is simply `Pipeline.step()` called as fast as the seats answer), so it sits below both.

The tick itself is the pipeline's (asiworld.pipeline.Pipeline.step: drivers, program host,
durability, the engine, observers in their fixed order); the runner only decides *when* it runs
(`speed` ticks per real second, paused, stepped by an admin) and runs everything that touches the
world (joins, actions, observations, keyframes, forks) as a command on its thread between ticks,
so the engine never sees two threads. Observers must not block (see `app/server/live.py`).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from asiworld.engine import World, codes
from asiworld.engine.errors import ActionResult, CodedError
from asiworld.engine.frames import FrameBuilder
from asiworld.pipeline import Pipeline, Tick, TickNotSaved

log = logging.getLogger(__name__)

# When the machine falls this far behind the schedule, forget the missed ticks instead of
# bursting to catch up (a burst would freeze the clients and then fast-forward them).
MAX_LAG_SECONDS = 1.0

class NotSaved(CodedError, RuntimeError):
    """What was asked was done in memory but could not be saved (a full disk): it is not
    acknowledged. A request gets 503 `not_saved`; the world pauses with the alarm on /healthz
    and tries again on its own every RETRY_SECONDS, applying what waited once it can save."""

    http_status = 503

    def __init__(self, message: str) -> None:
        super().__init__(codes.NOT_SAVED, message)


RETRY_SECONDS = 5.0  # a world paused because it could not save tries again this often


def _saving_failed(exc: BaseException) -> bool:
    """Whether a failure is the store's (a full disk, an I/O error), which may pass."""
    import sqlite3

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, TickNotSaved | sqlite3.Error | OSError | NotSaved):
            return True
        seen = seen.__cause__
    return False


class RunnerStopped(CodedError, RuntimeError):
    """The world's clock has stopped (a study at its horizon, a server shutting down): what was
    asked of it was not done. A request that meets it gets 503 `world_stopped`, not a 500."""

    http_status = 503

    def __init__(self, message: str) -> None:
        super().__init__(codes.WORLD_STOPPED, message)


class TurnStepped(CodedError, RuntimeError):
    """A lockstep study with outside seats steps its world turn by turn (asiworld.study.turns):
    a pause, resume or step by hand would tick it outside the turns and break its
    reproducibility, so an admin's is refused (409 `turn_stepped`)."""

    http_status = 409

    def __init__(self, who: str) -> None:
        super().__init__(codes.TURN_STEPPED, f"this world is stepped turn by turn by {who}: it "
                         "is not paused, resumed or stepped by hand")


class WorldRunner:
    def __init__(
        self,
        pipeline: Pipeline,
        speed: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.pipeline = pipeline
        self.speed = float(speed)
        self.paused = False
        # Why the last tick failed (its inputs could not be saved, a snapshot could not be
        # written): an alarm /healthz raises until an admin resumes the world.
        self.failure: str | None = None
        self._retry_at: float | None = None
        self._clock = clock
        self._commands: queue.Queue[tuple[Callable[[], Any], Future]] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._keyframe: dict | None = None
        self._tick_times: deque[float] = deque(maxlen=64)
        self._next_due = 0.0
        # A study's last tick (asiworld serve --study): the clock never steps past it, whoever
        # asks (a resume or an admin's step included).
        self.horizon: int | None = None
        # Who steps this world instead of its clock (a lockstep study's turns, calling
        # `advance` tick by tick): the thread then only serves calls, and pause, resume and
        # step are refused.
        self.stepped_by: str | None = None

    @property
    def at_horizon(self) -> bool:
        return self.horizon is not None and self.world.tick >= self.horizon

    @property
    def world(self) -> World:
        """The pipeline's world (a fork replaces it: never keep it across commands)."""
        return self.pipeline.world

    @property
    def frames(self) -> FrameBuilder:
        return self.pipeline.frames

    # --- commands (any thread) -------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def call(self, fn: Callable[[], Any], timeout: float = 10.0) -> Any:
        """Run `fn` on the runner thread between ticks and return its result.

        Without a running thread (tests, headless use) `fn` runs right here, which keeps the
        single-owner rule because then the caller is the only thread touching the world.
        """
        if threading.current_thread() is self._thread:
            return fn()  # a hook on the runner thread: the caller's own durability point follows
        if not self.running:
            result = fn()
            self._make_durable()
            return result
        future: Future = Future()
        self._commands.put((fn, future))
        return future.result(timeout=timeout)

    def submit(self, char: int, action: dict) -> ActionResult:
        """Validate and queue an action now; an accepted one applies at the next tick."""

        return self.call(lambda: self.world.submit(char, action))

    def add_event(self, event: dict) -> None:
        """Queue an event from outside the engine (an agent harness's incident), from any
        thread: it joins the next tick's events (Pipeline.add_event)."""
        self.pipeline.add_event(event)

    def replace_world(self, world: World, frames: FrameBuilder | None = None) -> None:
        """A fork or resume: the pipeline plays `world` from now on (runner thread only); the
        characters joining it get the grace this server gives (serve --grace-nights)."""
        world.grace_nights = self.world.grace_nights
        self.pipeline.replace_world(world, frames)
        self._keyframe = None

    def add_character(self, name: str, label: str = "human") -> int:
        def add() -> int:
            cid = self.world.add_character(name=name, label=label)
            self._keyframe = None  # the cached keyframe no longer lists everyone
            return cid

        return self.call(add)

    def keyframe(self) -> dict:
        """The spectator keyframe for the current tick (built once per tick, then shared)."""

        def build() -> dict:
            if self._keyframe is None or self._keyframe.get("tick") != self.world.tick:
                # A fresh builder: keyframe() resets a builder's delta baseline, and the live
                # builder's next delta must still cover everything since the last frame.
                self._keyframe = type(self.frames)(self.world).keyframe()
            return self._keyframe

        return self.call(build)

    def _by_hand(self) -> None:
        if self.stepped_by is not None:
            raise TurnStepped(self.stepped_by)

    def pause(self) -> None:
        self._by_hand()
        self.call(lambda: setattr(self, "paused", True))

    def resume(self) -> None:
        self._by_hand()

        def go() -> None:
            self.paused = False
            self.failure = None  # an admin saw the alarm and resumes: the next tick tells
            self._retry_at = None
            self._next_due = self._clock()

        self.call(go)

    def set_speed(self, speed: float) -> None:
        if not speed > 0:
            raise ValueError("speed must be a positive number of ticks per second")

        def change() -> None:
            self.speed = float(speed)
            self._next_due = self._clock() + 1.0 / self.speed

        self.call(change)

    def step(self, n: int = 1) -> int:
        """Advance `n` ticks now (also while paused); returns the new tick."""
        self._by_hand()

        def run() -> int:
            for _ in range(n):
                self.advance()
            return self.world.tick

        return self.call(run, timeout=max(10.0, n * 0.5))

    def stats(self) -> dict:
        times = list(self._tick_times)
        measured = 0.0
        if len(times) >= 2 and times[-1] > times[0]:
            measured = (len(times) - 1) / (times[-1] - times[0])
        return {
            "tick": self.world.tick,
            "speed": self.speed,
            "paused": self.paused,
            "measured_tps": round(measured, 2),
            "running": self.running and self.failure is None,
            "failure": self.failure,
            "horizon": self.horizon,
            "stepped_by": self.stepped_by,
            "grace_nights": self.world.grace_nights,
        }

    # --- the tick (runner thread only) ------------------------------------------------------

    def advance(self) -> Tick:
        """One tick of the pipeline; if this tick's inputs cannot be saved the world pauses."""
        if self.at_horizon:
            raise RunnerStopped(f"the study reached its horizon (tick {self.horizon})")
        try:
            tick = self.pipeline.step()
        except Exception as exc:
            self.paused = True
            self.failure = f"tick {self.world.tick + 1} failed: {type(exc).__name__}: {exc}"[:500]
            # a store that could not write (a full disk) may write again; anything else
            # waits for an admin, who reads the alarm first
            self._retry_at = self._clock() + RETRY_SECONDS if _saving_failed(exc) else None
            log.exception("the tick failed (its inputs could not be saved?): the world is paused")
            raise
        self._tick_times.append(self._clock())
        return tick

    # --- thread lifecycle -------------------------------------------------------------------

    def start(self) -> None:
        """Start the clock thread (a green thread when eventlet has monkey-patched threading)."""
        if self.running:
            return
        self._stop.clear()
        self._next_due = self._clock()
        self._thread = threading.Thread(target=self._loop, name="world-runner", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        self._thread = None
        self._fail_pending()

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._run_commands(block_until=None)
            now = self._clock()
            if self.stepped_by is not None:  # its ticks are another thread's `advance` calls
                self._run_commands(block_until=now + 0.1)
                continue
            if self.paused and self._retry_at is not None and now >= self._retry_at:
                self._retry(now)  # paused by a failure, not by an admin: try to go on
                continue
            if self.paused or self.at_horizon:
                self._run_commands(block_until=now + 0.1)
                continue
            if now >= self._next_due:
                try:
                    self.advance()
                except Exception:  # inputs could not be saved: advance() paused the world
                    continue
                self._next_due += 1.0 / self.speed  # accumulate: sleep jitter never adds up
                if self._clock() - self._next_due > MAX_LAG_SECONDS:
                    self._next_due = self._clock()
                # A world behind its schedule steps tick after tick without waiting. Under
                # eventlet this thread is a green thread that only lets the server's green
                # threads run when it waits, so it lets them run once per tick here (a no-op
                # for real threads, which the OS switches anyway).
                time.sleep(0)
                continue
            self._run_commands(block_until=self._next_due)

    def _retry(self, now: float) -> None:
        """One tick of a world a failure paused: if it saves, the alarm ends and the world goes
        on (what was acknowledged meanwhile was saved first); else it waits RETRY_SECONDS."""
        self._retry_at = now + RETRY_SECONDS
        try:
            self.pipeline.make_durable()
            self.advance()
        except Exception:
            log.warning("the world still cannot save; trying again in %g s", RETRY_SECONDS)
            return
        log.warning("the world saves again: going on")
        self.paused = False
        self.failure = None
        self._retry_at = None
        self._next_due = self._clock()

    def _run_commands(self, block_until: float | None) -> None:
        while True:
            if block_until is None:
                try:
                    fn, future = self._commands.get_nowait()
                except queue.Empty:
                    return
            else:
                wait = block_until - self._clock()
                if wait <= 0:
                    return
                try:
                    fn, future = self._commands.get(timeout=wait)
                except queue.Empty:
                    return
            if future.set_running_or_notify_cancel():
                try:
                    result = fn()
                    self._make_durable()  # acknowledged only once saved
                    future.set_result(result)
                except BaseException as exc:  # handed back to the caller's thread
                    future.set_exception(exc)

    def _make_durable(self) -> None:
        try:
            self.pipeline.make_durable()
        except CodedError:
            raise
        except Exception as exc:  # sqlite's "database or disk is full", an I/O error
            self.paused = True
            self.failure = f"inputs could not be saved: {type(exc).__name__}: {exc}"[:500]
            self._retry_at = self._clock() + RETRY_SECONDS
            raise NotSaved(f"this could not be saved ({type(exc).__name__}: {exc}), so it is "
                           "not acknowledged; the world is paused and tries again every "
                           f"{RETRY_SECONDS:g} s") from exc

    def _fail_pending(self) -> None:
        while True:
            try:
                _, future = self._commands.get_nowait()
            except queue.Empty:
                return
            if future.set_running_or_notify_cancel():
                future.set_exception(RunnerStopped("the world runner has stopped"))
