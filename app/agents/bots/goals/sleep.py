"""sleep: at night, home to bed, for a first calm night, when its energy runs low, and while it
holds back for the streak."""

from __future__ import annotations

from typing import Any

from ..skills import adjacent, me, stand_spot
from .base import Answer, Goal


class Sleep(Goal):
    name = "sleep"
    purpose = "sleep in its bed"

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        if not self._bedtime(obs):
            return None
        return self._go_to_bed(obs)

    def _bedtime(self, obs: dict[str, Any]) -> bool:
        """At night, home to bed: for a first calm night, and whenever energy runs low."""
        s = obs["self"]
        if (
            not self.me.p.home
            or obs["time"]["phase"] != "night"
            or not self.me.house.locked
            or "bed" not in self.me.sites
        ):
            return False
        if not self.me.calm_night or s["energy"] < 50:
            return True
        return not self.me.streak_met and self.me.hold_for_streak(obs)

    def _go_to_bed(self, obs: dict[str, Any]) -> dict[str, Any]:
        bed = self.me.sites["bed"]
        here = me(obs)
        if adjacent(here, bed) and self.me.house.inside(here):
            return {"type": "sleep"}
        spot = stand_spot(self.me.notes, here, bed, self.me.blocked(), self.me.house.inside)
        return self.moves.go(spot or bed)
