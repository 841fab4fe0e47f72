"""One headless evaluation run: a new shared world, the configurations joining with a small
stagger, the horizon, and the results (events, measures, report) written to a folder."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from asiworld import provenance
from asiworld.agents.bots.driver import BuiltinAgents
from asiworld.pipeline import Tick
from asiworld.replay.headless import record_run
from asiworld.session import Session


@dataclass
class RunConfig:
    seed: int = 7
    minutes: int = 300
    agents: list[str] = field(default_factory=lambda: ["forager"])
    stagger_ticks: int = 2  # approximately synchronised entry
    think_ticks: int = 3  # model latency of the built-in configurations, in ticks
    size: int | None = None
    out: Path | None = None
    progress: bool = False
    record: bool = True  # write a replay when `out` is set
    figures: Any = None  # evaluation's FigureOptions (None: the default), if written


class Run:
    """A headless run on the pipeline (asiworld.pipeline): the built-in configurations join with
    the stagger and `run()` is the clock. More observers: `run.pipeline.watch(fn)`."""

    def __init__(self, config: RunConfig):
        self.config = config
        # Configurations may hand over programs; the host process starts only when one does.
        session = Session.build(seed=config.seed, size=config.size)
        self.content, self.world = session.content, session.world
        self.programs, self.pipeline = session.programs, session.pipeline
        self.agents = self.pipeline.add_driver(BuiltinAgents(think_ticks=config.think_ticks))
        for index, name in enumerate(config.agents):
            same = config.agents[:index].count(name)
            self.agents.schedule(index * config.stagger_ticks, name, index,
                                 name if same == 0 else f"{name}-{same + 1}")
        self.events: list[dict[str, Any]] = []
        self.title = ""  # the replay's title (sample replays name theirs)
        self.pipeline.watch(self._collect)

    @property
    def characters(self) -> list[dict[str, Any]]:
        """The configurations that joined so far, as the evaluation lists them."""
        world = self.pipeline.world
        return [{"id": s.char, "name": world.entities[s.char].name, "label": s.config}
                for s in self.agents.seats]

    def _collect(self, tick: Tick) -> None:
        self.events.extend(tick.events)

    def step(self) -> list[dict[str, Any]]:
        return self.pipeline.step().events

    def run(self) -> dict[str, Any]:
        ticks = self.config.minutes * self.content.time.ticks_per_minute
        started = time.perf_counter()
        bar = ProgressBar(ticks) if self.config.progress else None
        recording = None
        if self.config.out is not None and self.config.record:  # OUT/replay.asirep

            recording = record_run(self.world, self.config.agents, ticks, self.config.out,
                                   title=self.title)
            self.pipeline.add_observer("recorder", recording.on_tick)
        try:
            while self.world.tick < ticks:
                self.step()
                if bar and self.world.tick % 60 == 0:
                    bar.show(self.world.tick)
        finally:
            self.pipeline.close()
            if recording is not None:
                recording.close()
        if bar:
            bar.done()
        wall = time.perf_counter() - started
        return self.results(wall)

    def results(self, wall_seconds: float) -> dict[str, Any]:
        meta = {"seed": self.config.seed, "minutes": self.config.minutes,
                "ticks": self.world.tick, "wall_seconds": round(wall_seconds, 3),
                "state_hash": self.world.state_hash(), "agents": list(self.config.agents),
                "stagger_ticks": self.config.stagger_ticks, "think_ticks": self.config.think_ticks,
                "size": self.config.size or self.content.map.size,
                "content_hash": self.content.hash}
        try:
            from asiworld.evaluation.report import evaluate  # optional: see the except
        except ImportError:  # the evaluation layer is optional for the engine alone
            return {**meta, "configurations": self.characters}
        # The run's own facts stay at the top level too, where scripts look for them first.
        return {**meta, **evaluate(self.events, self.characters, meta)}


class ProgressBar:
    """A one-line bar on a terminal; silent when stderr is not one."""

    def __init__(self, total: int, width: int = 40):
        self.total, self.width = total, width
        self.tty = sys.stderr.isatty()
        self.started = time.perf_counter()

    def show(self, done: int) -> None:
        if not self.tty:
            return
        frac = done / max(1, self.total)
        filled = int(frac * self.width)
        rate = done / max(1e-9, time.perf_counter() - self.started)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {frac:6.1%}"
                         f" tick {done}/{self.total} ({rate:,.0f} ticks/s)")
        sys.stderr.flush()

    def done(self) -> None:
        if self.tty:
            sys.stderr.write("\n")


def write_outputs(out: Path, run: Run, results: dict[str, Any], draw: Any = None,
                  figures: Any = None) -> None:
    """events.jsonl, then the reports (`draw`: an executor for the figures, `figures`: their
    style and files; write_reports)."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "events.jsonl", "w", encoding="utf-8") as f:
        for event in run.events:
            f.write(json.dumps(event, separators=(",", ":")) + "\n")
    try:  # the evaluation layer is optional here: see the except
        from asiworld.evaluation.figure_options import DEFAULT  # (both of it)
        from asiworld.evaluation.report import write_reports  # (both of it)
    except ImportError:
        results = {**results, **provenance.stamp()}
        (out / "results.json").write_text(json.dumps(results, indent=2))
        return
    write_reports(out, results, draw=draw, figures=figures or DEFAULT)
