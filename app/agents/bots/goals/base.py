"""What every goal of the strategy is: one job, asked in the order its parameter set names
(`goals` in configurations.toml). Asked for its next step, a goal answers with an action,
with CARRY_ON (let what is under way run on: a walk, a gather, a program), or with None: it
does not apply now, and the next goal is asked."""

from __future__ import annotations

from enum import Enum
from typing import Any, ClassVar

from ..character import Character
from ..moves import Moves


class Carry(Enum):
    ON = "carry on"


CARRY_ON = Carry.ON
Answer = dict[str, Any] | Carry | None


class Goal:
    name: ClassVar[str] = ""
    # Why its answers are sent, as spectators read it after "to" ("walking to (70, 41) to smelt
    # iron ingots"): the agent's `intent` while this goal answers.
    purpose: ClassVar[str] = ""
    # An answer that is what the character is doing already lets that run on instead of
    # starting it over (the preparation goals; a reflex such as a blow or a drink is sent as is).
    keeps_on: ClassVar[bool] = True

    def __init__(self, me: Character, moves: Moves) -> None:
        self.me = me
        self.moves = moves

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        raise NotImplementedError
