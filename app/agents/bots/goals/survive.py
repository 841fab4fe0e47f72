"""survive: a potion or a stew when hurt, and a blow back at whatever stands next to it."""

from __future__ import annotations

from typing import Any

from ..skills import me
from .base import Answer, Goal


class Survive(Goal):
    name = "survive"
    purpose = "stay alive: a drink, a meal or a blow back"
    keeps_on = False

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        threat = self._adjacent_threat(obs)
        heal = self._heal(obs, items)
        if heal is not None:
            return heal
        if threat is not None:
            return {"type": "attack", "target": threat}
        return None

    def _heal(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any] | None:
        s = obs["self"]
        low = 45 if s["area"] == 0 else self.me.p.drink_below
        if (
            s["health"] < low
            and items.get("healing_potion")
            and (s["area"] != 0 or s["health"] < 30)
        ):
            return {"type": "use", "item": "healing_potion"}
        if s["health"] < 70 and s["area"] != 0 and items.get("berry_stew"):
            return {"type": "eat", "item": "berry_stew"}
        return None

    def _adjacent_threat(self, obs: dict[str, Any]) -> int | None:
        x, y = me(obs)
        best = None
        for e in obs["entities"]:
            if (e.get("hostile") or e["kind"] == "boar") and max(
                abs(e["x"] - x), abs(e["y"] - y)
            ) <= 1:
                if best is None or e["health"] < best[0]:
                    best = (e["health"], e["id"])
        return best[1] if best else None
