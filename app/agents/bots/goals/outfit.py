"""outfit: the travel-outfit design bought as soon as the coins allow, the outfit tailored and worn."""

from __future__ import annotations

from typing import Any

from ..character import OUTFIT_PRICE
from ..rulebook import inputs
from .base import Answer, Goal


class Outfit(Goal):
    name = "outfit"
    purpose = "make the travel outfit"

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        if not self.me.outfit_done(obs, items):
            if (items.get("travel_outfit_design")
                    and items.get("leather", 0) >= inputs("travel_outfit")["leather"]):
                return self.moves.make(obs, items, "tailoring_table", "travel_outfit", {})
            if obs["self"]["coins"] >= OUTFIT_PRICE:
                return self.moves.buy(obs, "travel_outfit_design", 1)
        if "travel_outfit" in items:
            return {"type": "equip", "item": "travel_outfit"}
        return None
