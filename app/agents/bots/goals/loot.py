"""loot: a bag nearby with something worth having (a boar's hide, a boss's sigil) is picked up."""

from __future__ import annotations

from typing import Any

from ..skills import goto, me, near
from .base import Answer, Goal

WANTED = {
    "hide",
    "outer_sigil",
    "inner_sigil",
    "royal_sigil",
    "healing_potion",
    "berry_stew",
    "cooked_meat",
    "leather",
    "iron_ingot",
    "cloth",
    "torch",
}


class Loot(Goal):
    name = "loot"
    purpose = "pick up a loot bag"
    keeps_on = False

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        return self._loot(obs)

    def _loot(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """Bags with something worth having (a boar's hide, a boss's sigil) are picked up."""
        here = me(obs)
        bags = [
            b
            for b in obs["loot"]
            if any(i in WANTED for i in b["items"])
            and (b["x"], b["y"]) not in self.me.avoid
            and near(here, (b["x"], b["y"]), 8)
        ]
        if not bags:
            return None
        bag = min(bags, key=lambda b: abs(b["x"] - here[0]) + abs(b["y"] - here[1]))
        spot = (bag["x"], bag["y"])
        self.me.last_target = spot
        if near(here, spot, 1):
            return {"type": "pick_up"}
        action = obs["self"]["action"]
        if (
            action is not None
            and action["type"] == "move_to"
            and (action["args"]["x"], action["args"]["y"]) == spot
        ):
            return None
        return goto(*spot)
