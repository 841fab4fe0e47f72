"""tools: the workbench, wooden then stone tools and an axe, and the sword its set fights with if
that is stone; the best sword it has is held."""

from __future__ import annotations

from typing import Any

from ..moves import COST
from ..rulebook import inputs
from .base import Answer, Goal


class Tools(Goal):
    name = "tools"
    purpose = "make its tools at the workbench"

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        eq = obs["self"]["equipment"]
        have = self.me.has(obs, items)
        if "workbench" not in self.me.sites:
            if items.get("wood", 0) < COST["workbench"]["wood"]:
                return self.moves.fetch(obs, "T")
            if self.moves.crowded(obs):
                return self.moves.explore(obs)  # others' stations all round: set up further off
            return self.moves.place(obs, "workbench")
        for tool in ("wooden_pickaxe", "wooden_sword"):
            if (
                tool not in have
                and "stone_pickaxe" not in have
                and not (tool == "wooden_sword" and ("iron_sword" in have))
            ):
                return self.moves.make(obs, items, "workbench", tool, inputs(tool))
        if "wooden_sword" in items and eq["weapon"] is None:
            return {"type": "equip", "item": "wooden_sword"}
        if "stone_pickaxe" not in have:
            return self.moves.make(obs, items, "workbench", "stone_pickaxe", inputs("stone_pickaxe"))
        if "axe" not in have:
            return self.moves.make(obs, items, "workbench", "axe", inputs("axe"))
        if self.me.p.weapon == "stone" and "stone_sword" not in have:
            return self.moves.make(obs, items, "workbench", "stone_sword", inputs("stone_sword"))
        if "stone_sword" in items and eq["weapon"] in (None, "wooden_sword"):
            return {"type": "equip", "item": "stone_sword"}
        return None
