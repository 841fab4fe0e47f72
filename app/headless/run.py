"""One headless evaluation run: a new shared world, the configurations joining with a small
stagger, the horizon, and the results (events, measures, report) written to a folder."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from asiworld.agents.builtin import make_agent
from asiworld.agents.driver import AgentDriver
from asiworld.engine import World, load_content
from asiworld.programs.manager import ProgramManager

TickHook = Callable[[World, list[dict[str, Any]]], None]


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


class Run:
    def __init__(self, config: RunConfig, hooks: list[TickHook] | None = None):
        self.config = config
        self.content = load_content()
        self.world = World.create(seed=config.seed, content=self.content, size=config.size)
        # Configurations may hand over programs; the host process starts only when one does.
        self.programs = ProgramManager(self.world)
        self.programs.sink = self._program_event
        self._program_events: list[dict[str, Any]] = []
        self.driver = AgentDriver(self.world, programs=self.programs)
        self.hooks: list[TickHook] = list(hooks or [])
        self.events: list[dict[str, Any]] = []
        self.characters: list[dict[str, Any]] = []
        self._joins = [(i * config.stagger_ticks, name, i) for i, name in enumerate(config.agents)]

    def _join_due(self) -> None:
        while self._joins and self._joins[0][0] <= self.world.tick:
            _, name, index = self._joins.pop(0)
            agent = make_agent(name, seed=self.config.seed * 1000 + index,
                               think_ticks=self.config.think_ticks)
            same = sum(1 for c in self.characters if c["label"] == name)
            char_name = name if same == 0 else f"{name}-{same + 1}"
            cid = self.world.add_character(char_name, label=name)
            self.driver.add(cid, agent)
            self.characters.append({"id": cid, "name": char_name, "label": name})

    def _program_event(self, event: dict[str, Any]) -> None:
        # Program starts and ends join the tick's events, as on a live server.
        self._program_events.append({"tick": self.world.tick, **event})

    def step(self) -> list[dict[str, Any]]:
        self._join_due()
        self.driver.before_step()
        self.programs.before_step()
        events = self.world.step()
        self.programs.after_step(events)
        if self._program_events:
            events = events + self._program_events
            self._program_events = []
        self.events.extend(events)
        for hook in self.hooks:
            hook(self.world, events)
        return events

    def run(self) -> dict[str, Any]:
        ticks = self.config.minutes * self.content.time.ticks_per_minute
        started = time.perf_counter()
        bar = ProgressBar(ticks) if self.config.progress else None
        recording = None
        if self.config.out is not None and self.config.record:  # OUT/replay.asirep
            from asiworld.replay.headless import record_run

            recording = record_run(self, self.config.out)
            self.hooks.append(recording.tick_hook)
        try:
            while self.world.tick < ticks:
                self.step()
                if bar and self.world.tick % 60 == 0:
                    bar.show(self.world.tick)
        finally:
            self.programs.close()
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
            from asiworld.evaluation.report import evaluate
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


def write_outputs(out: Path, run: Run, results: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "events.jsonl", "w", encoding="utf-8") as f:
        for event in run.events:
            f.write(json.dumps(event, separators=(",", ":")) + "\n")
    try:
        from asiworld.evaluation.report import write_reports
    except ImportError:
        (out / "results.json").write_text(json.dumps(results, indent=2))
        return
    write_reports(out, results)
