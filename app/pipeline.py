"""The pipeline: the one road a tick takes, above the engine. Every entry point steps its world
through `Pipeline.step()` — the live server's runner (its clock thread), `asiworld run`, the
Gymnasium environment, `asiworld program run` and the program kit — so there is one tick loop.

    pipeline = Pipeline(world, programs=ProgramManager(world), frames=FrameBuilder(world))
    pipeline.add_driver(agents)                     # anything with before_step(pipeline)
    pipeline.add_observer("recorder", recording.on_tick)
    while world.tick < horizon:                     # the clock: a loop, or the server's thread
        pipeline.step()

One tick, in this order:

1. **drivers** decide, in the order they were added (`driver.before_step(pipeline)`): built-in
   agents (asiworld.agents.bots.driver), and whatever else submits for its characters — a study's
   language-model seats, a scripted opponent. A driver reads `pipeline.world` and submits through
   `pipeline.submit` / `pipeline.submit_program`, so the direct-action rule always applies. A
   driver that raises is logged and skipped: a broken agent never stops the world.
2. **the program host** (`programs.before_step()`) resumes hosted programs, which submit too;
3. **durability**: the `durable` callbacks (a server's store) save what was accepted, before it
   is applied; if one raises, the tick does not happen (the exception propagates). Besides the
   engine's inputs, the inputs the engine never sees are saved too: program submissions and
   ends (the program host hands them to `journal`) and durable outside events (an agent's
   incident, `add_event(event, durable=True)`); a store that saves them calls
   `keep_inputs(sink)`, and on a restart brings them back (asiworld.server.persistence);
4. **the engine** steps (`world.step()`), then the program host reads the tick's events
   (`programs.after_step`);
5. the tick's events are the engine's (an `action` event whose submission named a `goal` carries
   it: what a built-in configuration is after, a model seat's tool call; the engine never sees
   it, so the state hash does not either), then the program host's lifecycle events and the
   `refused` events of actions the world refused at their submission, whoever submitted them
   (stamped with the tick they happened in), then **outside events** queued by `add_event`
   from any thread (an agent harness's incident), stamped with the new tick;
6. the frame is built (when the pipeline has a frame builder) and the **observers** see a `Tick`
   in a fixed order that does not depend on who registered first: OBSERVERS (recorder,
   assessment, agents, live, store; a study may add "transcripts"), then the `watch` callbacks
   (tests, tools that only read) in the order they were added. An observer that raises is
   logged; the next one still runs.

`replace_world(world)` is a fork or a resume: the world, the frame builder and the program host
(whose programs belonged to the old world's characters) move to the new world; drivers and
observers stay where they are and in the same order, and those that keep per-world state are told
through their `world_replaced(pipeline)` (drivers) or the observer's `on_replace` callback.

The pipeline holds no clock and no thread: a clock is whoever calls `step()` — a loop for
headless runs and lockstep studies (`run_until`), `asiworld.realtime.WorldRunner` for real
time. It does not import the agents, the server or the replay package, so all of them may use it.

Plugging in other agent kinds (a study): write a driver. `before_step(pipeline)` runs on the
clock's thread before every step; it reads `pipeline.observe(char)` and acts with
`pipeline.submit` / `pipeline.submit_program`. A driver whose decisions come from elsewhere (a
model endpoint) starts the call in its own thread and applies the answer in a later
`before_step`: under a realtime clock it applies whatever has arrived and never waits; under a
lockstep clock it waits (blocks in `before_step`) until the answer due at this tick is there, so
the same answers give the same state hash. Built-in configurations are
`asiworld.agents.bots.driver.BuiltinAgents` (one seeding rule), any `Agent` object goes in an
`AgentDriver`. A transcript writer is the "transcripts" observer; incidents are `add_event`.
"""

from __future__ import annotations

import logging
import queue
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from asiworld.engine import codes
from asiworld.engine.events import refused_event
from asiworld.engine.text import clean

log = logging.getLogger(__name__)

# The observers' order, whoever registers first: the recording sees a tick before anything that
# reacts to it; the agent API's event buffers and the live rooms publish it; the store commits it
# last (so what it saves is what everyone saw).
OBSERVERS: tuple[str, ...] = ("recorder", "assessment", "agents", "transcripts", "live", "store")
WATCH = "watch"
# A tick the store could not save must not pass unnoticed: the world would go on while nothing
# it acknowledges is kept. Its failure is raised once every observer has run (the clock pauses
# and raises the alarm); any other observer's failure is logged and the world goes on.
VITAL = frozenset({"store"})


GOAL_CHARS = 120  # a goal is a phrase; a client's longer text is cut


def _with_goals(events: list[dict], goals: dict[int, str]) -> list[dict]:
    """The tick's events, each `action` event of an op whose submitter named a goal a copy with
    `goal` (a copy: the world's own event dicts feed its observations, which stay as they were)."""
    return [{**ev, "goal": goals[ev["op"]]}
            if ev.get("kind") == "action" and ev.get("op") in goals else ev for ev in events]


class TickNotSaved(RuntimeError):
    """A vital observer (the store) failed on this tick; the tick itself was applied."""


@dataclass
class Tick:
    """What happened in one tick, handed to every observer."""

    tick: int
    events: list[dict]
    frame: dict | None = None
    inputs: list[tuple[int, int | None, dict]] = field(default_factory=list)  # input-log rows
    world: Any = None


class Driver(Protocol):
    """Something that decides for some characters before each step (see the module docstring).
    It may also define `world_replaced(pipeline)`, called after a fork or resume."""

    def before_step(self, pipeline: Pipeline) -> None: ...


@dataclass
class _Observer:
    name: str
    on_tick: Callable[[Tick], None]
    on_replace: Callable[[Pipeline], None] | None = None


class PipelineError(ValueError):
    """A pipeline was wired wrongly (an observer name outside its order, a second one of a kind)."""


class Pipeline:
    def __init__(
        self,
        world: Any,
        *,
        programs: Any = None,
        frames: Any = None,
        observer_order: tuple[str, ...] = OBSERVERS,
    ) -> None:
        self.world = world
        self.programs = programs  # an asiworld.programs.manager.ProgramManager, or None
        self.frames = frames  # a FrameBuilder for this world, or None (no frames built)
        self.drivers: list[Any] = []
        self.durable: list[Callable[[], None]] = []
        # Where inputs outside the engine go to be saved (see keep_inputs), or None.
        self.journal: Callable[[dict], None] | None = None
        self._order = tuple(observer_order)
        self._observers: list[_Observer] = []
        self._outside: queue.SimpleQueue[dict] = queue.SimpleQueue()
        # program lifecycle events and refusals, stamped when they happen (see step)
        self._tick_events: list[dict] = []
        # op id -> the goal its submitter named, until the tick that starts the op (see step)
        self._goals: dict[int, str] = {}
        self._log_seen = world.input_log_end
        self.engine_seconds = 0.0  # time spent in world.step (benchmarks, a study's costs)
        # The same in this process's CPU time (a shared machine), kept only when `cpu_clock` is
        # set (`asiworld bench engine`): reading that clock is a system call, twice a tick, a
        # twentieth of a one-character step.
        self.cpu_clock = False
        self.engine_cpu_seconds = 0.0
        if programs is not None:
            programs.sink = self._tick_event

    # --- wiring -----------------------------------------------------------------------------

    def add_driver(self, driver: Any) -> Any:
        """Add a driver; drivers decide in the order they were added."""
        self.drivers.append(driver)
        return driver

    def add_observer(
        self,
        name: str,
        on_tick: Callable[[Tick], None],
        on_replace: Callable[[Pipeline], None] | None = None,
    ) -> None:
        """Register the observer `name` (one of the pipeline's observer order); it is called in
        that order, wherever it was registered."""
        if name not in self._order:
            raise PipelineError(f"no observer {name!r}; the order is {', '.join(self._order)}")
        if any(o.name == name for o in self._observers):
            raise PipelineError(f"the pipeline already has a {name!r} observer")
        self._observers.append(_Observer(name, on_tick, on_replace))
        self._observers.sort(key=lambda o: self._rank(o.name))

    def watch(self, on_tick: Callable[[Tick], None]) -> Callable[[Tick], None]:
        """Add a callback that only reads each tick, after every observer (usable as a
        decorator)."""
        self._observers.append(_Observer(WATCH, on_tick))
        self._observers.sort(key=lambda o: self._rank(o.name))
        return on_tick

    def observers(self) -> list[str]:
        """The observers' names, in the order they see a tick."""
        return [o.name for o in self._observers]

    def _rank(self, name: str) -> int:
        return len(self._order) if name == WATCH else self._order.index(name)

    def keep_inputs(self, sink: Callable[[dict], None]) -> None:
        """Hand every input outside the engine to `sink` from now on, on the clock's thread: the
        program host's submissions and ends and durable outside events (a store saves them with
        the engine's inputs, before they are acknowledged)."""
        self.journal = sink
        if self.programs is not None:
            self.programs.journal = sink

    def make_durable(self) -> None:
        """Run the durability callbacks (a server also calls this after every command)."""
        for callback in self.durable:
            callback()

    # --- outside inputs ---------------------------------------------------------------------

    def add_event(self, event: dict, durable: bool = False) -> None:
        """Queue an event from outside the engine (any thread); it joins the next tick's events,
        stamped with that tick. `durable`: an input that must survive a restart (an agent's
        incident, acknowledged to it): handed to the journal too — call it on the clock's
        thread then (`WorldRunner.call`), so it is saved before the acknowledgement."""
        event = clean(dict(event))  # an incident's detail is a model's or a client's text
        if durable and self.journal is not None:
            self.journal({"kind": "event", "event": dict(event)})
        self._outside.put(event)

    def submit(self, char: int, action: Any, goal: str | None = None) -> dict:
        """A direct action for a character, through the program host when there is one (a direct
        action stops that character's program). The engine's answer as a dict; a refusal also
        joins the tick's events as `refused` (every seat's, so the evaluation counts them).
        `goal`: why, in a few words ("smelt iron ingots", "tool call move_to"): the `action`
        event that starts the op carries it, for spectators; the engine never sees it."""
        if self.programs is not None:
            result = self.programs.submit_direct(char, action).to_dict()
        else:
            result = self.world.submit(char, action).to_dict()
        if not result["ok"] and isinstance(char, int):
            self._tick_event(refused_event(char, action, result["code"]))
        elif goal and result.get("op") is not None:
            self._goals[result["op"]] = clean(str(goal))[:GOAL_CHARS]
        return result

    def prepare_program(self, name: Any, source: Any) -> Any:
        """Compile a program off the clock's thread before it is handed over (any thread: a
        live server's request, a realtime seat): a ticket for `submit_program`, a refusal, or
        None (it compiles at its submission)."""
        if self.programs is None:
            return None
        return self.programs.prepare(name, source)

    def submit_program(self, char: int, name: str, source: Any, prepared: Any = None) -> dict:
        """Hand a program to the program host for a character (`prepared`: its ticket from
        `prepare_program`)."""
        if self.programs is None:
            return {
                "ok": False,
                "code": codes.PROGRAMS_UNAVAILABLE,
                "message": "this world hosts no programs",
            }
        return self.programs.submit(char, name, source, prepared)

    def observe(self, char: int, **options: Any) -> dict:
        """A character's observation with its programs' status (what an agent decides on)."""
        obs = self.world.observe(char, **options)
        if self.programs is not None:
            obs.update(self.programs.observation_extra(char))
        return obs

    # --- the tick ---------------------------------------------------------------------------

    def step(self, inputs: list[tuple[int, dict]] | None = None) -> Tick:
        """One tick (see the module docstring for the order). `inputs`: actions acknowledged
        before, applied again at this tick after what was queued (a resumed realtime study
        re-applies its saved log through here, asiworld.study.resume), as the engine's
        re-simulation does."""
        for driver in list(self.drivers):
            try:
                driver.before_step(self)
            except Exception:  # a broken agent must not stop the world
                log.exception("driver %r failed", driver)
        if self.programs is not None:
            self.programs.before_step()
        self.make_durable()  # nothing is applied that is not saved
        world = self.world
        cpu = time.process_time() if self.cpu_clock else 0.0
        started = time.perf_counter()
        events = world.step(inputs)
        self.engine_seconds += time.perf_counter() - started
        if self.cpu_clock:
            self.engine_cpu_seconds += time.process_time() - cpu
        if self.programs is not None:
            self.programs.after_step(events)
        if self._goals:
            events = _with_goals(events, self._goals)
            self._goals = {}  # every op queued before this step started in it, or never will
        if self._tick_events:
            events = events + self._tick_events
            self._tick_events = []
        while not self._outside.empty():
            events.append({**self._outside.get_nowait(), "tick": world.tick})
        frame = self.frames.frame(events) if self.frames is not None else None
        # The engine's input log is the record of what was applied (joins, humans, agents).
        inputs, self._log_seen = world.inputs_since(self._log_seen), world.input_log_end
        tick = Tick(tick=world.tick, events=events, frame=frame, inputs=inputs, world=world)
        failed: Exception | None = None
        for observer in list(self._observers):
            try:
                observer.on_tick(tick)
            except Exception as exc:  # a broken observer must not stop the others
                log.exception("observer %s failed", observer.name)
                if observer.name in VITAL and failed is None:
                    failed = exc
        if failed is not None:
            raise TickNotSaved(f"tick {world.tick} was applied but not saved: "
                               f"{type(failed).__name__}: {failed}") from failed
        return tick

    def run_until(self, tick: int, stop: Callable[[], bool] | None = None) -> int:
        """Step until the world reaches `tick` (or `stop()` says so after a step): the lockstep
        clock. Returns the world's tick."""
        while self.world.tick < tick:
            self.step()
            if stop is not None and stop():
                break
        return self.world.tick

    def _tick_event(self, event: dict) -> None:
        # Program starts and ends and refusals join the tick's events, stamped when they happen.
        self._tick_events.append({"tick": self.world.tick, **event})

    # --- forks and resumes ------------------------------------------------------------------

    def replace_world(self, world: Any, frames: Any = None) -> None:
        """Everything now plays `world` (a fork, a resume): a fresh frame baseline (`frames`, or
        a new builder of the same kind), the program host moves to it (the old world's programs
        end: their character ids name other characters now), drivers and observers stay, in
        the same order, and are told."""
        self.world = world
        if frames is not None:
            self.frames = frames
        elif self.frames is not None:
            self.frames = type(self.frames)(world)
        if self.programs is not None:
            self.programs.rebind(world)
        self._tick_events = []
        self._goals = {}
        self._log_seen = world.input_log_end
        for driver in list(self.drivers):
            replaced = getattr(driver, "world_replaced", None)
            if replaced is not None:
                replaced(self)
        for observer in list(self._observers):
            if observer.on_replace is not None:
                observer.on_replace(self)

    def close(self) -> None:
        """Stop the program host's process, if one was started."""
        if self.programs is not None:
            self.programs.close()
