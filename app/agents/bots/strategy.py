"""The one strategy of the built-in configurations, parameterised (parameters.py: the named sets
of content/configurations.toml): a loop that asks the set's goals (goals/), in the set's order,
for the character's next step, and sends the first answer.

With the planner's order it keeps alive first (a program fighting for it, a drink or a blow,
a bag of loot, the dungeon it is in, a meal, a way out when stuck, bed at night), then prepares
and goes deep: tools, iron for a sword and armor, a locked stone home with a bed, cloth,
leather, a stove, the travel outfit (production); then supplies for the next tier, health
back, the Outer Court, the Inner Temple, the Royal Tomb, the altar and the Shadow King
(exploration); while it holds back for a five-day streak, or has nowhere deeper to go, it
cooks spare potions. Other sets leave out parts of the preparation (armor, the home, the
stove, the outfit), stop at a shallower tier, drink, retreat and recover at other health
levels, hand other tiers to the steady_clear program, or spend their coins otherwise. It sees
only its observations and keeps its own notes (character.py), shared by its goals."""

from __future__ import annotations

from typing import Any

from .base import Agent
from .character import Character
from .goals import CARRY_ON, GOALS, Goal
from .moves import Moves
from .parameters import Params
from .parameters import params as parameter_set
from .skills import inv, me

SAME_WALK = 10  # one walk answered this often from one place (going nowhere) is given up


class Strategy(Agent):
    """One configuration: the strategy with one parameter set (the planner's by default)."""

    def __init__(self, seed: int = 0, think_ticks: int = 0, params: Params | None = None):
        super().__init__(seed, think_ticks)
        self.p = params or parameter_set("planner")
        self.name = self.p.name
        self.description = self.p.description
        self.me = Character(self.p, self.rng)
        self.moves = Moves(self.me)
        self.goals: list[Goal] = [GOALS[name](self.me, self.moves) for name in self.p.goals]

    def goal(self, name: str) -> Goal:
        """Its goal of that name (KeyError when its set leaves it out)."""
        for goal in self.goals:
            if goal.name == name:
                return goal
        raise KeyError(name)

    def feedback(self, result: dict[str, Any]) -> None:
        self.me.feedback(result)

    def decide(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        choice = self._decide(obs)
        c = self.me
        c.walking = choice is not None and choice.get("type") == "move_to"
        if c.walking and obs["self"]["area"] == 0:
            # The same walk answered again from the same place: it was taken and got nowhere
            # (the tile is another's structure, or something stands there). Not again.
            if c.last_walk == (choice, me(obs)):
                c.same_walk += 1
                if c.same_walk >= SAME_WALK:
                    c.failed((choice["x"], choice["y"]))
                    c.same_walk = 0
            else:
                c.same_walk = 0
            c.last_walk = (choice, me(obs))
        return choice

    def _decide(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """The first goal's answer, in the set's order; None lets what is under way run on."""
        self.me.learn(obs)
        self.me.site_walk = None
        s = obs["self"]
        if s["down"] or s["asleep"]:
            return None
        items = inv(obs)
        action = s["action"]
        for goal in self.goals:
            answer = goal.next(obs, items)
            if answer is None:
                continue
            if answer is CARRY_ON:
                return None
            if goal.keeps_on and _already_doing(action, answer):
                return None
            self.intent = goal.purpose
            return answer
        return None


def _already_doing(action: dict[str, Any] | None, choice: dict[str, Any]) -> bool:
    return (
        action is not None
        and choice["type"] == action["type"]
        and all(action["args"].get(k) == v for k, v in choice.items() if k != "type")
    )
