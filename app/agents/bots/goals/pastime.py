"""pastime: nothing risky to do now (nowhere deeper to go, or holding back for the streak): spare
potions cooked and torches made, a craft at a time, else a rest."""

from __future__ import annotations

from typing import Any

from ..rulebook import inputs
from .base import Answer, Goal


class Pastime(Goal):
    name = "pastime"
    purpose = "cook spare potions and make torches"

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        return self._pastime(obs, items)

    def _pastime(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any]:
        """Nothing risky to do now: cook spare potions and make torches, a craft at a time."""
        spare = self.me.p.spare_potions
        if "stove" in self.me.sites and items.get("healing_potion", 0) < spare:
            return self.moves.cook_potions(obs, items, spare - items.get("healing_potion", 0))
        if items.get("torch", 0) < self.me.p.spare_torches:
            return self.moves.make(obs, items, "workbench", "torch", inputs("torch"))
        return {"type": "wait", "ticks": 30}
