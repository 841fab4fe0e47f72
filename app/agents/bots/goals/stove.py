"""stove: in a set that cooks, a stove, and a meal cooked on it (Self-sufficiency asks for one)."""

from __future__ import annotations

from typing import Any

from ..moves import COST
from ..rulebook import inputs
from .base import Answer, Goal


class Stove(Goal):
    name = "stove"
    purpose = "build a stove and cook a meal"

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        if self.me.p.cook and "stove" not in self.me.sites:
            if items.get("stone", 0) < COST["stove"]["stone"]:
                return self.moves.fetch(obs, "#")
            return self.moves.place(obs, "stove", near_site="workbench")
        if self.me.p.cook and not self.me.cooked_meal and items.get("raw_meat"):
            return self.moves.make(obs, items, "stove", "cooked_meat", inputs("cooked_meat", "wood"))
        return None
