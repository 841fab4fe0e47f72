"""Drives built-in agents in a world: before each tick, every agent whose thinking time is up
reads its observation and may submit an action. Live servers and headless runs share it.

An agent may also hand over a program: it answers `{"type": "program", "name", "source"}` and the
driver submits it to the world's ProgramManager (when it has one), exactly as an outside agent's
program is submitted. Observations then carry the program's status (`programs`,
`program_events`), and a direct action stops the program (the manager's direct-action rule)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .base import Agent

PROGRAM = "program"  # the pseudo-action that hands over a program


@dataclass
class Seat:
    char: int
    agent: Agent
    next_decision: int = 0
    decisions: int = 0
    refusals: int = 0


class AgentDriver:
    def __init__(self, world: Any, programs: Any = None):
        self.world = world
        self.programs = programs  # an asiworld.programs.manager.ProgramManager, or None
        self.seats: list[Seat] = []

    def add(self, char_id: int, agent: Agent) -> Seat:
        seat = Seat(char=char_id, agent=agent, next_decision=self.world.tick)
        self.seats.append(seat)
        return seat

    def before_step(self) -> None:
        world, programs = self.world, self.programs
        for seat in self.seats:
            if world.tick < seat.next_decision or seat.char not in world.entities:
                continue
            obs = world.observe(seat.char)
            if programs is not None:
                obs.update(programs.observation_extra(seat.char))
            action = seat.agent.decide(obs)
            seat.decisions += 1
            seat.next_decision = world.tick + max(1, seat.agent.think_ticks)
            if action is None:
                continue
            result = self._submit(seat.char, action)
            if not result.get("ok"):
                seat.refusals += 1
            seat.agent.feedback(result)

    def _submit(self, char: int, action: Any) -> dict[str, Any]:
        programs = self.programs
        if isinstance(action, dict) and action.get("type") == PROGRAM:
            if programs is None:
                return {
                    "ok": False,
                    "code": "programs_unavailable",
                    "message": "this world hosts no programs",
                }
            return programs.submit(char, str(action.get("name", "program")), action.get("source"))
        if programs is not None:
            return programs.submit_direct(char, action).to_dict()
        return self.world.submit(char, action).to_dict()
