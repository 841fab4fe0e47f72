"""arms: the anvil, and the iron sword and armor its set fights in, made and worn."""

from __future__ import annotations

from typing import Any

from ..rulebook import inputs
from .base import Answer, Goal


class Arms(Goal):
    name = "arms"
    purpose = "make and wear an iron sword and armor"

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        have = self.me.has(obs, items)
        plan = self.me.iron_plan()
        if "anvil" not in self.me.sites and "anvil" in plan:
            return self.moves.place(obs, "anvil", near_site="workbench")
        for gear in ("iron_sword", "iron_armor"):
            if gear not in plan:
                continue
            if gear not in have:
                return self.moves.make(obs, items, "anvil", gear, inputs(gear, "wood"))
            if gear in items:
                return {"type": "equip", "item": gear}
        return None
