"""Drives built-in agents in a world: before each tick, every agent whose thinking time is up
reads its observation and may submit an action. Live servers and headless runs share it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .base import Agent


@dataclass
class Seat:
    char: int
    agent: Agent
    next_decision: int = 0
    decisions: int = 0
    refusals: int = 0


class AgentDriver:
    def __init__(self, world: Any):
        self.world = world
        self.seats: list[Seat] = []

    def add(self, char_id: int, agent: Agent) -> Seat:
        seat = Seat(char=char_id, agent=agent, next_decision=self.world.tick)
        self.seats.append(seat)
        return seat

    def before_step(self) -> None:
        world = self.world
        for seat in self.seats:
            if world.tick < seat.next_decision or seat.char not in world.entities:
                continue
            obs = world.observe(seat.char)
            action = seat.agent.decide(obs)
            seat.decisions += 1
            seat.next_decision = world.tick + max(1, seat.agent.think_ticks)
            if action is not None:
                result = world.submit(seat.char, action)
                if not result.ok:
                    seat.refusals += 1
                seat.agent.feedback(result.to_dict())
