"""descend: to the gate of the next tier (1-3), a torch lit for the Royal Tomb, and in."""

from __future__ import annotations

from typing import Any

from ..skills import me
from .base import Answer, Goal


class Descend(Goal):
    name = "descend"
    purpose = "go down to the next dungeon tier"

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        tier = self.me.tier_ahead(obs, items)
        if tier is None or (tier >= 3 and self.me.hold_for_streak(obs)):
            return None  # nowhere to go, or holding back for the streak (pastime)
        if tier == 4:
            return None  # the Sanctum's way is the altar's
        s = obs["self"]
        gate = tuple(obs["landmarks"]["gates"][tier - 1])
        if me(obs) != gate:
            return self.moves.go(gate)
        if tier == 3 and s["equipment"]["light"] is None and items.get("torch"):
            return {"type": "equip", "item": "torch"}
        self.me.entering = tier
        return {"type": "enter"}
