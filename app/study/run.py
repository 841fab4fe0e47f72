"""`asiworld study run`: one study world on the pipeline, its clock, and what it writes.

Every configuration gets its character at tick 0, before the first step (synchronised entry:
the clock starts only when all have joined), named after the configuration. Built-in and python
configurations are pipeline drivers (asiworld.agents.bots.driver), model configurations are
LLM-harness seats (seats.py); the clock is the loop below (lockstep) or the server's WorldRunner
(realtime). Nothing here steps the world itself: the pipeline does (asiworld.pipeline).

DIR gets what a headless run writes (events.jsonl, results.json, report.md, figures/,
replay.asirep; written by the evaluation and replay packages) and, per model configuration,
transcripts/NAME.jsonl. results.json also holds the asiworld version, the git commit (when the
code runs from a checkout), the content hash, the study file itself, the clock and its rule,
and the cost table's rows (`costs`).

A study keeps its progress in its folder (world.sqlite3: the world's acknowledged inputs, and
for a realtime one the journal of its programs and incidents; the transcripts) and a killed one
is resumed from there (resume.py: a lockstep study is played again, a realtime one re-applies
what was acknowledged).
"""

from __future__ import annotations

import sys
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from asiworld import provenance
from asiworld.agents.bots.driver import AgentDriver, BuiltinAgents, builtin_seed
from asiworld.agents.clients.interface import InterfaceError, make_interface_agent
from asiworld.agents.clients.transcript import read_transcript
from asiworld.engine import codes
from asiworld.evaluation import compare_runs
from asiworld.evaluation.figure_options import DEFAULT
from asiworld.evaluation.report import evaluate
from asiworld.headless.run import write_outputs
from asiworld.pipeline import Tick
from asiworld.programs.pool import LIVE_SLICE_DEADLINE
from asiworld.realtime import WorldRunner
from asiworld.replay.headless import record_run
from asiworld.session import Session
from asiworld.spawn_guard import WHY, rerunning_main

from .decisions import DecisionLog
from .external import ExternalSeats
from .figure_workers import FigureWorkers
from .progress import StudyProgress
from .resume import (
    STORE_NAME,
    Catchup,
    ReplayedModel,
    Resume,
    StudyStore,
    identity,
    mismatch,
    saved_study,
)
from .seats import LockstepSeats, ModelSeat, RealtimeSeats, seat_model
from .spec import (
    BuiltinConfiguration,
    ExternalConfiguration,
    Lockstep,
    OpenAIConfiguration,
    PythonConfiguration,
    Study,
    StudyError,
)
from .turns import ExternalTurns

REALTIME_SWITCH_SECONDS = 0.0005
EXTERNAL_CALLS = "external_calls"  # the store's meta key for the external seats' call counts
FIGURE_WORKERS_FROM_MINUTES = 30  # of world time (minutes x seeds): shorter studies draw here


class StudyRun:
    """One seed's world of a study. With `resume`, the folder holds this study interrupted:
    it is played again from the store and the transcripts up to where it stopped (resume.py),
    then on to the horizon."""

    def __init__(self, study: Study, text: str, out: Path, seed: int,
                 where: str = "study.toml", resume: bool = False,
                 serve_external: bool = True) -> None:
        self.study, self.text, self.out, self.seed, self.where = study, text, Path(out), seed, where
        self.external: ExternalSeats | None = None
        if any(isinstance(c, ExternalConfiguration) for c in study.configurations):
            # its port, before anything starts; `serve --study` seats them on its own server
            self.external = ExternalSeats(study.serve, listen=serve_external)
        session = Session.build(seed=seed, size=study.world.size,
                                slice_deadline=program_deadline(study.clock))
        self.content, self.world = session.content, session.world
        self.horizon = study.world.minutes * self.content.time.ticks_per_minute
        if self.external is not None:  # shown on a human seat's page
            self.external.study = {
                "title": study.title, "clock": study.clock.kind, "minutes": study.world.minutes,
                "ticks_per_minute": self.content.time.ticks_per_minute,
                "horizon_tick": self.horizon}
        self.programs, self.pipeline = session.programs, session.pipeline
        self.events: list[dict[str, Any]] = []
        self.characters: list[dict[str, Any]] = []
        self.kinds: dict[str, str] = {}
        self.builtins = self.pipeline.add_driver(BuiltinAgents())
        self.users = self.pipeline.add_driver(AgentDriver())
        self.model_seats: list[ModelSeat] = []
        self.models: LockstepSeats | RealtimeSeats | None = None
        self.runner: Any = None
        self.turns: ExternalTurns | None = None  # a lockstep study's external seats' turns
        self.decisions: DecisionLog | None = None  # and their decisions, kept
        self.pipeline.watch(self._collect)
        self.lockstep = isinstance(study.clock, Lockstep)
        self.identity = identity(text, seed)
        self.resume: Resume | None = None
        self.store: StudyStore | None = None
        self.replayed: dict[str, ReplayedModel] = {}
        self.resumed: list[int] = []  # the ticks this study went on from after interruptions
        self.started_at = 0  # the tick this process's clock started from
        if resume:  # an interrupted study's folder (check_resumable)
            self.resume = Resume(self.out, self.horizon, self.identity)

    # --- entry ---------------------------------------------------------------------------

    def _enter(self, say: Any, runner: Any = None) -> None:
        clock = self.study.clock
        call = None
        if runner is not None:  # the live server's clock (asiworld serve --study)
            self.runner = runner
            call = None if isinstance(clock, Lockstep) else runner.call
        elif not isinstance(clock, Lockstep):
            self.runner = WorldRunner(self.pipeline, speed=clock.speed)
            call = self.runner.call
        elif self.external is not None:
            # the world's thread, which serves the agent API's calls; the study steps it turn
            # by turn (`_lockstep_turns`), it never ticks by itself
            self.runner = WorldRunner(self.pipeline)
        if isinstance(clock, Lockstep) and self.external is not None:
            # on `study run` and on the live server alike
            self.turns = self.external.turns = ExternalTurns(clock.charge(0), clock.charge)
            # every decision kept as it acts: a killed study is played again from them
            self.decisions = DecisionLog(self.out)
            self.turns.on_decided = lambda seat, record: self.decisions.write(seat.name, record)
        world = self.pipeline.world
        for index, conf in enumerate(self.study.configurations):
            label = conf.label or conf.name
            cid = world.add_character(conf.name, label=label)
            self.characters.append({"id": cid, "name": conf.name, "label": label})
            self.kinds[conf.name] = conf.kind
            if isinstance(conf, BuiltinConfiguration):
                seed = builtin_seed(self.seed, index) if conf.seed is None else conf.seed
                self.builtins.seat(self.pipeline, cid, conf.agent, seed, conf.think_ticks)
            elif isinstance(conf, PythonConfiguration):
                try:
                    agent = make_interface_agent(conf.agent, conf.params, conf.think_ticks,
                                                 conf.folder)
                except InterfaceError as exc:
                    raise StudyError(exc.code, f"configuration {conf.name!r}: {exc.message}") \
                        from None
                self.users.add(cid, agent, tick=world.tick, config=conf.name)
            elif isinstance(conf, OpenAIConfiguration):
                seat = seat_model(self.pipeline, self.study, conf, cid, self.out, self.horizon,
                                  call=call)
                if self.resume is not None and self.lockstep:
                    self._replay_transcript(seat)
                self.model_seats.append(seat)
            elif isinstance(conf, ExternalConfiguration):
                self.external.add(conf, cid)
                if self.turns is not None:
                    self.turns.add(conf.name, cid, conf.turn_seconds, world.tick)
                    if self.resume is not None:
                        self.turns.replay[cid] = deque(self.decisions.read(conf.name))
        if isinstance(clock, Lockstep):
            self.models = self.pipeline.add_driver(LockstepSeats(self.model_seats, clock))
        else:
            self.models = RealtimeSeats(self.model_seats)
        # a watcher: the "agents" observer is the served agent API's when there are external
        # seats; what a seat's client is handed does not change the world
        self.pipeline.watch(lambda tick: self.models.deliver(tick.events))
        if self.external is not None:
            self.pipeline.watch(self._keep_external_calls)
            if self.resume is not None:
                self.external.earlier = dict(self.resume.store.meta(EXTERNAL_CALLS, {}))
        if self.resume is None or self.lockstep:
            self._open_external(say)

    def _keep_external_calls(self, tick: Tick) -> None:
        """Once a minute of world time the external seats' call counts go into the store, so
        a resumed study's cost table counts the calls made before the kill (all but the last
        minute's)."""
        if tick.tick % 60 == 0 and self.store is not None:
            self.store.keep_meta(EXTERNAL_CALLS, self.external.all_calls())

    def _open_external(self, say: Any) -> None:
        """Serve the external seats' agent API (a resumed realtime study: once caught up, since
        their calls would land on the world while it is brought forward)."""
        if self.external is not None and self.external.listens:
            self.external.open(self.runner, say)

    def _replay_transcript(self, seat: ModelSeat) -> None:
        """A resumed seat: its calls so far are answered from its transcript, numbered from 1
        again (the transcript skips the lines it has), and their back-off is not slept again."""
        harness = seat.harness
        replayed = ReplayedModel(harness.llm, read_transcript(seat.transcript.path))
        sleep = harness.sleep
        harness.llm = replayed
        harness.calls_made = 0
        harness.sleep = lambda seconds: None if replayed.replaying else sleep(seconds)
        self.replayed[seat.conf.name] = replayed

    def _collect(self, tick: Tick) -> None:
        self.events.extend(tick.events)

    # --- the clock -------------------------------------------------------------------------

    def run(self, say: Any = None, progress: bool = False) -> dict[str, Any]:
        """The study to its horizon; `progress`: a progress line on stderr (progress.py)."""
        say = say or (lambda line: print(line, file=sys.stderr))

        started = time.perf_counter()
        shown = None
        try:
            self.begin(say=say)
            if progress:
                shown = StudyProgress(self)
                self.pipeline.watch(shown.on_tick)
            if self.runner is None:
                self.pipeline.run_until(self.horizon)
            elif self.turns is not None:
                self._lockstep_turns(say)
            else:
                self._realtime(say)
        finally:
            if shown is not None:
                shown.done()
            self.finish()
        return self.results(time.perf_counter() - started)

    def begin(self, runner: Any = None, say: Any = None) -> None:
        """Everything before the clock: the store (a new study's, before the joins: they are
        inputs too), the recording and the seats (`prepare`), and an interrupted study brought
        back to where its store stopped. `runner`: as for `prepare`."""
        say = say or (lambda line: print(line, file=sys.stderr))
        if self.resume is None:
            self.store = StudyStore(self.out, self.horizon)
            self.store.begin(self.pipeline, self.identity, self.study.world.size,
                             journal=not self.lockstep)
        self.prepare(runner, say)
        say(f"{len(self.characters)} configurations joined at tick {self.world.tick}; "
            f"{self.study.clock.describe()}; horizon tick {self.horizon}")
        if self.resume is not None:
            if self.turns is not None:  # played again turn by turn: _lockstep_turns
                self._announce_catch_up(say)
            elif self.lockstep:
                self._catch_up(say)
            else:
                self._catch_up_realtime(say)
        self.started_at = self.world.tick

    def prepare(self, runner: Any = None, say: Any = None) -> None:
        """Record into DIR/replay.asirep and seat every configuration at tick 0. `runner`: a
        clock that is already there (the live server's WorldRunner on this pipeline), which
        the caller starts, then `start_models()`, and stops at the horizon."""
        labels = [c.label or c.name for c in self.study.configurations]
        self.recording = record_run(self.world, labels, self.horizon, self.out,
                                    title=self.study.title)
        self.pipeline.add_observer("recorder", self.recording.on_tick)
        if any(getattr(c, "programs", True) for c in self.study.configurations):
            # The program host starts now, not at the first program: its start-up (the
            # zygote's imports, a fork) held that tick; a realtime clock waits for it here.
            self.programs.start_host(wait=not self.lockstep)
        self._enter(say or (lambda line: print(line, file=sys.stderr)), runner)

    def start_models(self) -> None:
        """Realtime model seats start calling (lockstep ones are the pipeline's driver)."""
        if isinstance(self.models, RealtimeSeats):
            self.models.start()

    def finish(self) -> None:
        """Stop the external and model seats, the clock and the program host; close the
        replay."""
        if self.models is not None:
            self.models.close()
        if self.external is not None:
            if self.store is not None and self.external.seats:
                self.store.keep_meta(EXTERNAL_CALLS, self.external.all_calls())
            self.external.close()
        if self.decisions is not None:
            self.decisions.close()
        if self.runner is not None:
            self.runner.stop()
        # last: until the seats and the clock have stopped, what they hand over is saved
        for store in (self.store, self.resume.store if self.resume is not None else None):
            if store is not None:
                store.close()  # twice is harmless
        self.pipeline.close()
        recording = getattr(self, "recording", None)
        if recording is not None:
            # The model turns go into the replay too (the viewer shows them per character).
            recording.add_turns(self.out / "transcripts",
                                {seat.conf.name: seat.char for seat in self.model_seats})
            recording.close()

    def _catch_up(self, say: Any) -> None:
        """Play the interrupted study again up to the last tick its store saved, checking each
        tick's inputs against the acknowledged ones; then save again from there."""
        resume = self.resume
        self._announce_catch_up(say)
        self.pipeline.run_until(resume.target, stop=lambda: resume.diverged is not None)
        self._caught_up(say)

    def _announce_catch_up(self, say: Any) -> None:
        resume = self.resume
        calls = sum(len(r.calls) for r in self.replayed.values())
        kept = sum(len(d) for d in self.turns.replay.values()) if self.turns is not None else 0
        turns = f", {kept} outside seats' decisions kept" if self.turns is not None else ""
        say(f"resuming the interrupted study in {self.out}: replaying ticks 0..{resume.target} "
            f"({resume.inputs} acknowledged inputs, {calls} model calls from the transcripts"
            f"{turns})")
        self.pipeline.watch(resume.check)

    def _caught_up(self, say: Any) -> None:
        """The replay reached the store's last tick (or went another way: resume_diverged):
        from here the store saves again."""
        resume = self.resume
        if resume.diverged is not None:
            resume.store.close()
            raise StudyError(codes.RESUME_DIVERGED, f"{self.out}: {resume.diverged}")
        self.store = resume.store
        self.store.attach_pipeline(self.pipeline)
        self.started_at = self.world.tick
        say(f"caught up at tick {self.world.tick}; going on to tick {self.horizon}")

    def _catch_up_realtime(self, say: Any) -> None:
        """Bring an interrupted realtime study's world back to where its store stopped, from
        what was acknowledged (resume.Catchup); then its players come back as a restarted
        server's do, and the store saves again from here."""
        resume = self.resume
        catchup = Catchup(resume.store, resume.target)
        say(f"resuming the interrupted realtime study in {self.out}: re-applying ticks "
            f"0..{resume.target} ({catchup.inputs} acknowledged inputs); built-in agents start "
            "anew there, running programs end interrupted, model seats go on from their "
            "transcripts")
        try:
            catchup.run(self.pipeline)
        except StudyError:
            resume.store.close()
            raise
        self.store = resume.store
        self.store.attach_pipeline(self.pipeline, journal=True)
        self.resumed = self.store.resumed(self.world.tick)
        if self.programs is not None:
            # after the store is attached: the interruptions are journaled like any end
            self.programs.restore_state({}, catchup.programs)

        for seat in self.model_seats:
            mine = [e for e in self.events
                    if e.get("kind") == "incident" and e.get("char") == seat.char]
            seat.harness.restore(read_transcript(seat.transcript.path), mine)
            seat.client.seen_all()
        self._mark_resumed()
        self._open_external(say)
        say(f"caught up at tick {self.world.tick}; going on to tick {self.horizon}")

    def _mark_resumed(self) -> None:
        """One `resumed` event per configuration's character, saying how its player came back
        (the replay's timeline marks it, so a change of play there is explained); journaled,
        so a second resume gives it back too."""
        how = {"builtin": "its built-in agent started anew",
               "python": "its agent started anew",
               "openai": "its model seat went on from its transcript",
               "external": "its external agent was given a new token",
               "human": "its person was given a new join link"}
        for char in self.characters:
            kind = self.kinds[char["name"]]
            self.pipeline.add_event({"kind": "resumed", "char": char["id"],
                                     "killed_at": self.world.tick, "detail": how[kind]},
                                    durable=True)

    def _realtime(self, say: Any) -> None:
        done = threading.Event()
        runner = self.runner

        def at_horizon(tick: Tick) -> None:  # on the runner thread: stop before the next tick
            if tick.tick >= self.horizon:
                runner.paused = True
                if self.external is not None:
                    self.external.end(tick.tick)
                done.set()

        self.pipeline.watch(at_horizon)
        # The clock thread shares the interpreter with every seat's harness (prompts of tens of
        # kilobytes to build and parse): hand the GIL over more often than the default 5 ms,
        # which is half a tick at 100 ticks/s, so a tick is not late by a harness's turn.
        switch = sys.getswitchinterval()
        sys.setswitchinterval(min(switch, REALTIME_SWITCH_SECONDS))
        try:
            self._clock_until_horizon(say, runner, done)
        finally:
            sys.setswitchinterval(switch)

    def _lockstep_turns(self, say: Any, entered: Any = None, pace: Any = None,
                        halted: Any = None) -> None:
        """A lockstep study with external seats: the world's thread serves their calls, and
        the world is stepped here, tick by tick, each tick once the turns that fall on it are
        decided (asiworld.study.turns). A seat absent at the entry deadline is an incident
        and is offered no turn; the study goes on without it.

        The live server (study/live.py) adds: `entered()` once the seats have come, `pace()`
        before each tick played anew (its speed is a spectator's, the most ticks a second),
        and `halted()`, true once the server stops (Ctrl-C): no tick after that."""
        runner, turns, external = self.runner, self.turns, self.external
        runner.stepped_by = "its lockstep study's turns"
        runner.start()
        service = external.service
        for name in external.wait_for_entry(say, strict=False):
            char = next(c for conf, c in external.seats if conf.name == name)
            turns.seats[char].absent = True
            service.incident(char, "absent", self.world.tick, self.world.tick,
                             f"made no call within {self.study.serve.entry_timeout:g} s")
            say(f"external seat {name} did not come: it is offered no turn (an incident)")

        def missed(seat: Any, turn: Any) -> None:
            service.incident(seat.char, "turn_missed", turn.tick, turn.tick,
                             f"no decision within {seat.turn_seconds:g} s")

        def alive(char: int) -> bool:
            return runner.call(lambda: char in self.pipeline.world.entities)

        if entered is not None:
            entered()
        catching_up = self.resume is not None and self.store is None
        while self.world.tick < self.horizon:
            if catching_up and (self.world.tick >= self.resume.target
                                or self.resume.diverged is not None):
                catching_up = False
                self._caught_up(say)
            turns.before_tick(self.world.tick, lambda fn: runner.call(fn, timeout=3600),
                              alive, missed)
            if halted is not None and halted():
                return
            if pace is not None and not catching_up:
                pace()
            runner.call(runner.advance, timeout=3600)  # the model seats' waits are in the tick
        external.end(self.world.tick)  # first: a seat woken by the turns' end is told so
        turns.end(self.world.tick)
        external.wait_until_told()

    def _clock_until_horizon(self, say: Any, runner: Any, done: threading.Event) -> None:
        if self.external is not None:  # serve the seats' calls, hold the clock until all came
            runner.paused = True
            runner.start()
            self.external.wait_for_entry(say)
            runner.resume()
        began = time.perf_counter()
        runner.start()
        self.start_models()
        done.wait()
        self.realtime_wall = time.perf_counter() - began
        if self.external is not None:
            self.external.wait_until_told()

    # --- results ---------------------------------------------------------------------------

    def results(self, wall_seconds: float) -> dict[str, Any]:
        clock = self.study.clock
        meta = {
            "seed": self.seed, "minutes": self.study.world.minutes, "ticks": self.world.tick,
            "wall_seconds": round(wall_seconds, 3), "state_hash": self.world.state_hash(),
            "content_hash": self.content.hash, "clock": clock.describe(),
            "configurations": len(self.characters),
        }
        if self.resumed:
            meta["resumed"] = list(self.resumed)
        if self.model_seats:
            meta["prompts"] = [seat.prompt_record() for seat in self.model_seats]
        results = {**meta, **evaluate(self.events, self.characters, meta)}
        results.update(provenance.stamp())
        results["clock"] = {**clock.model_dump(), "rule": clock.describe()}
        if self.runner is not None and getattr(self, "realtime_wall", 0):
            ran = self.horizon - self.started_at  # since this process's clock started
            results["clock"]["measured_speed"] = round(ran / self.realtime_wall, 3)
        results["study"] = {"file": self.where, "text": self.text,
                            "parsed": self.study.model_dump(mode="json")}
        results["costs"] = self.costs()
        results["engine_seconds"] = round(self.pipeline.engine_seconds, 3)
        return results

    def costs(self) -> list[dict[str, Any]]:
        """One row per configuration: model calls, tokens, latency p50/p95, failures and
        incidents for model seats; agent-API calls and the ones answered with an error for
        external seats; decide() calls and the ones that raised for python agents (and their
        refusals); built-ins call nothing (`calls` 0, shown as their kind only)."""
        by_name = {seat.conf.name: seat.cost() for seat in self.model_seats}
        for name, replayed in self.replayed.items():  # the latencies the calls had when made
            measured = replayed.latencies()
            by_name[name]["latencies_ms"][: len(measured)] = measured
        users = {seat.config: seat for seat in self.users.seats}
        rows = []
        for conf in self.study.configurations:
            row = by_name.get(conf.name)
            if row is not None:
                latencies = sorted(row.pop("latencies_ms"))
                row["latency_p50_ms"] = _percentile(latencies, 50)
                row["latency_p95_ms"] = _percentile(latencies, 95)
            elif isinstance(conf, ExternalConfiguration) and self.external is not None:
                calls = self.external.api_calls(conf.name)
                row = {"name": conf.name, "kind": conf.kind, "calls": calls, "api_calls": calls,
                       "failures": self.external.api_failures(conf.name)}
                reported = (self.decisions.reported_tokens(conf.name)
                            if self.decisions is not None else None)
                if reported is not None:  # what the seat said its own model used
                    row["prompt_tokens"], row["completion_tokens"] = reported
            elif isinstance(conf, PythonConfiguration) and conf.name in users:
                seat = users[conf.name]
                row = {"name": conf.name, "kind": conf.kind,
                       "calls": seat.decisions + seat.failures, "failures": seat.failures,
                       "refusals": seat.refusals}
            else:  # a built-in: its kind only in the table
                row = {"name": conf.name, "kind": conf.kind, "calls": 0}
            rows.append(row)
        return rows


def program_deadline(clock: Any) -> float | None:
    """How long a tick waits for the programs' answers: in lockstep for every one (the same
    study gives the same world); in realtime, as in a live world, half a tick at most (never
    more than the live server's deadline): the world keeps its speed and a program that has
    not answered is still thinking (asiworld.programs.pool). Without it a program host slow to
    be scheduled held every tick, and a study at 100 ticks/s ran at a third of that."""
    if isinstance(clock, Lockstep):
        return None

    return min(LIVE_SLICE_DEADLINE, 0.5 / clock.speed)


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    import numpy as np

    return round(float(np.percentile(values, q)), 3)


def write_study(out: Path, run: StudyRun, results: dict[str, Any], draw: Any = None,
                figures: Any = None) -> None:
    """events.jsonl, results.json, report.md and figures, as a headless run writes them (the
    transcripts and the replay are written while the study runs); `draw`: the figures'
    executor (figure_workers.py); `figures`: their FigureOptions (None: the default)."""
    write_outputs(out, run, results, draw=draw, figures=figures or DEFAULT)


def figure_workers(study: Study, figures: Any = None) -> Any:
    """FigureWorkers for a study whose worlds run long enough to hide the workers' start (their
    imports take a few seconds of the other core); None: the study draws its figures itself,
    or draws none (`--figures none`)."""
    if study.world.minutes * len(study.world.seed_list()) < FIGURE_WORKERS_FROM_MINUTES:
        return None
    if figures is not None and not figures.formats:
        return None

    return FigureWorkers()


def run_study(study: Study, text: str, out: Path, where: str = "study.toml",
              say: Any = None, resume: bool = False,
              figures: Any = None, progress: bool = False) -> list[dict[str, Any]]:
    """Every seed's world (one seed: DIR itself; several: DIR/E1, DIR/E2, ... and the
    comparison in DIR). With `resume`, a seed whose folder holds its results is kept and one
    whose folder holds its store is resumed. `figures`: FigureOptions (None: the default);
    `progress`: each world's progress line on stderr."""
    if rerunning_main():  # a script without a main guard, run again in a figure worker
        raise StudyError(codes.MAIN_IN_A_WORKER, WHY)
    say = say or (lambda line: print(line, file=sys.stderr))
    draw = figure_workers(study, figures)
    try:
        return _run_seeds(study, text, out, where, say, resume, draw, figures, progress)
    finally:
        if draw is not None:
            draw.shutdown()


def _run_seeds(study: Study, text: str, out: Path, where: str, say: Any, resume: bool,
               draw: Any, figures: Any = None, progress: bool = False) -> list[dict[str, Any]]:
    import json

    seeds = study.world.seed_list()
    results = []
    for i, (seed, folder) in enumerate(seed_folders(study, out), start=1):
        if resume and len(seeds) > 1 and (folder / "results.json").is_file():
            say(f"E{i}: seed {seed} was done before the interruption; its results are kept")
            results.append(json.loads((folder / "results.json").read_text(encoding="utf-8")))
            continue
        again = resume and saved_study(folder) is not None
        if resume and not again:
            clear_outputs(folder)  # a seed that had not begun (or not got as far as its store)
        run = StudyRun(study, text, folder, seed, where, resume=again)
        res = run.run(say, progress)
        if len(seeds) > 1:
            res["run"] = f"E{i}"
        write_study(folder, run, res, draw, figures)
        results.append(res)
    if len(seeds) > 1:
        compare_runs(out, results, draw=draw, figures=figures or DEFAULT)
    return results


def seed_folders(study: Study, out: Path) -> list[tuple[int, Path]]:
    """Each seed and its folder: DIR itself for one seed, DIR/E1, DIR/E2, ... for several."""
    seeds = study.world.seed_list()
    if len(seeds) == 1:
        return [(seeds[0], Path(out))]
    return [(seed, Path(out) / f"E{i}") for i, seed in enumerate(seeds, start=1)]


def check_resumable(study: Study, text: str, out: Path,
                    remedy: str = "give --force to replace it") -> None:
    """StudyError unless every interrupted world in `out` is one of this study's (`remedy`:
    how the command at hand starts another study there)."""
    for seed, folder in seed_folders(study, out):
        found = saved_study(folder)
        if found is not None and found != identity(text, seed):
            raise mismatch(folder, remedy)


OUTPUTS = ("results.json", "report.md", "events.jsonl", "replay.asirep", "comparison.json",
           "transcripts", "figures", "tables", STORE_NAME, f"{STORE_NAME}-wal",
           f"{STORE_NAME}-shm")


def clear_outputs(out: Path) -> None:
    """Remove what a study writes into `out` (and its E1, E2, ... folders); nothing else."""
    import re
    import shutil

    out = Path(out)
    if not out.is_dir():
        return
    for path in out.iterdir():
        if path.name in OUTPUTS or (path.is_dir() and re.fullmatch(r"E\d+", path.name)):
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
