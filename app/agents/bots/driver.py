"""Drives agents in a pipeline (asiworld.pipeline): before each tick, every agent whose thinking
time is up reads its observation and may submit an action. Live servers, headless runs and forks
all use it, and the built-in configurations are created here only (`BuiltinAgents`), with one
seeding rule.

An agent may also hand over a program: it answers `{"type": "program", "name", "source"}` and the
driver submits it to the pipeline's program host, exactly as an outside agent's program is
submitted. Observations then carry the program's status (`programs`, `program_events`), and a
direct action stops the program (the host's direct-action rule)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from .base import Agent
from .builtin import available, make_agent

PROGRAM = "program"  # the pseudo-action that hands over a program

log = logging.getLogger(__name__)


def builtin_seed(world_seed: int, index: int) -> int:
    """The one seeding rule of built-in agents: the configuration at position `index` (from 0)
    of a world of seed S gets seed S * 1000 + index (the README's `asiworld run` uses it)."""
    return int(world_seed) * 1000 + int(index)


@dataclass
class Seat:
    char: int
    agent: Agent
    next_decision: int = 0
    decisions: int = 0
    refusals: int = 0
    failures: int = 0  # decisions that raised (the agent's own error)
    config: str = ""
    seed: int = 0


class AgentDriver:
    """Agents seated on characters, deciding before each step of the pipeline it was added to."""

    def __init__(self) -> None:
        self.seats: list[Seat] = []

    def add(self, char_id: int, agent: Agent, tick: int = 0, **about: Any) -> Seat:
        """Seat `agent` on a character; it decides first at `tick` (the world's current one)."""
        seat = Seat(char=char_id, agent=agent, next_decision=tick, **about)
        self.seats.append(seat)
        return seat

    def before_step(self, pipeline: Any) -> None:
        world = pipeline.world
        for seat in self.seats:
            if world.tick < seat.next_decision or seat.char not in world.entities:
                continue
            try:
                self._decide(pipeline, seat)
            except Exception:  # a broken agent stops neither the world nor the other agents
                seat.failures += 1
                log.exception("the agent on character %d failed", seat.char)

    def _decide(self, pipeline: Any, seat: Seat) -> None:
        world = pipeline.world
        obs = pipeline.observe(seat.char)
        seat.next_decision = world.tick + max(1, seat.agent.think_ticks)
        action = seat.agent.decide(obs)
        seat.decisions += 1
        if action is None:
            return
        result = self.submit(pipeline, seat.char, action, goal=getattr(seat.agent, "intent", None) or None)
        if not result.get("ok"):
            seat.refusals += 1
        seat.agent.feedback(result)

    def submit(
        self, pipeline: Any, char: int, action: Any, goal: str | None = None
    ) -> dict[str, Any]:
        """An agent's answer: a program handed over, or a direct action (`goal`: the agent's
        intent, which its `action` event carries for spectators)."""
        if isinstance(action, dict) and action.get("type") == PROGRAM:
            return pipeline.submit_program(
                char, str(action.get("name", "program")), action.get("source")
            )
        return pipeline.submit(char, action, goal=goal)

    def world_replaced(self, pipeline: Any) -> None:
        """A fork or resume: the old world's characters are gone, so are their agents."""
        self.seats.clear()


@dataclass
class Entry:
    """A built-in configuration waiting to join at a tick (approximately synchronised entry)."""

    tick: int
    config: str
    index: int
    name: str


class BuiltinAgents(AgentDriver):
    """The built-in configurations of a world: joined now (`join`), later (`schedule`), or put
    back on a world's own characters after a fork (`seat_world`) or a resume (`seat`). Every
    agent made here is seeded by `builtin_seed`; `records()` is what a data folder saves."""

    def __init__(self, think_ticks: int = 0) -> None:
        super().__init__()
        self.think_ticks = think_ticks
        self.entries: list[Entry] = []

    def seat(
        self, pipeline: Any, char: int, config: str, seed: int, think_ticks: int | None = None
    ) -> Seat:
        """A new agent of `config` with this seed on an existing character."""
        think = self.think_ticks if think_ticks is None else think_ticks
        agent = make_agent(config, seed=seed, think_ticks=think)
        return self.add(char, agent, tick=pipeline.world.tick, config=config, seed=seed)

    def join(self, pipeline: Any, config: str, index: int, name: str | None = None) -> int:
        """A new character for the configuration at position `index` and its agent; returns
        the character id."""
        agent = make_agent(  # first: an unknown configuration adds no character
            config, seed=builtin_seed(pipeline.world.seed, index), think_ticks=self.think_ticks
        )
        cid = pipeline.world.add_character(name or config, label=config)
        self.add(cid, agent, tick=pipeline.world.tick, config=config,
                 seed=builtin_seed(pipeline.world.seed, index))
        return cid

    def schedule(self, tick: int, config: str, index: int, name: str) -> None:
        """Join the configuration at `index` before the step of `tick`."""
        self.entries.append(Entry(tick, config, index, name))
        self.entries.sort(key=lambda e: (e.tick, e.index))

    def seat_world(self, pipeline: Any, skip: int | None = None) -> list[dict]:
        """An agent for every built-in character of the pipeline's world (a fork's), in id order:
        the n-th of them is the configuration at position n. `skip` stays unseated (a player
        takes it over)."""
        names = set(available())
        index = 0
        for char in pipeline.world.characters():
            if char.label not in names:
                continue
            if char.id != skip:
                self.seat(pipeline, char.id, char.label, builtin_seed(pipeline.world.seed, index))
            index += 1
        return self.records()

    def records(self) -> list[dict]:
        """The seats as a data folder saves them: {char, config, seed, think_ticks}."""
        return [
            {"char": s.char, "config": s.config, "seed": s.seed, "think_ticks": s.agent.think_ticks}
            for s in self.seats
        ]

    def before_step(self, pipeline: Any) -> None:
        while self.entries and self.entries[0].tick <= pipeline.world.tick:
            entry = self.entries.pop(0)
            self.join(pipeline, entry.config, entry.index, entry.name)
        super().before_step(pipeline)

    def world_replaced(self, pipeline: Any) -> None:
        super().world_replaced(pipeline)
        self.entries.clear()
