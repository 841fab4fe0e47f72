"""recover: health back before it goes in, up to its set's `enter_above`: a stew, a potion when
far down, else rest (health comes back while fed)."""

from __future__ import annotations

from typing import Any

from .base import Answer, Goal


class Recover(Goal):
    name = "recover"
    purpose = "get its health back before going in"

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        tier = self.me.tier_ahead(obs, items)
        if tier is None or (tier >= 3 and self.me.hold_for_streak(obs)):
            return None  # nowhere to go, or holding back for the streak (pastime)
        if obs["self"]["health"] >= self.me.p.enter_above:
            return None
        return self._recover(obs, items)

    def _recover(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any]:
        """Health back before it goes in: a stew, a potion when far down, sleep at home at
        night, else rest (health comes back while fed)."""
        s = obs["self"]
        if items.get("berry_stew") and s["hunger"] < 90:
            return {"type": "eat", "item": "berry_stew"}
        if s["health"] < 30 and items.get("healing_potion"):
            return {"type": "use", "item": "healing_potion"}
        return {"type": "wait", "ticks": 30}
