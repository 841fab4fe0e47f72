"""altar: the three sigils offered at the altar, and into the Sanctum to the Shadow King. The altar
lies on one of the compass lines from the plaza that no gate takes; it walks to each such
point until the altar comes into view."""

from __future__ import annotations

import math
from typing import Any

from ..character import Pos
from ..rulebook import altar_distance
from ..skills import adjacent, me, near
from .base import Answer, Goal

ALTAR_DISTANCE = altar_distance()  # from the plaza (world.toml)


class Altar(Goal):
    name = "altar"
    purpose = "offer the sigils at the altar and face the Shadow King"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.altar_tries: list[Pos] | None = None
        self.altar_rounds = 0  # times it went through the altar's candidate points

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        tier = self.me.tier_ahead(obs, items)
        if tier is None or (tier >= 3 and self.me.hold_for_streak(obs)):
            return None  # nowhere to go, or holding back for the streak (pastime)
        if tier != 4:
            return None
        altar = obs["landmarks"].get("altar")
        if altar is None:
            return self.seek(obs)
        altar = tuple(altar)
        if not adjacent(me(obs), altar):
            return self.moves.go(altar)
        if not self.me.sigils_offered:
            return {"type": "offer"}
        self.me.entering = 4
        return {"type": "enter"}

    def seek(self, obs: dict[str, Any]) -> dict[str, Any]:
        """The altar lies along one of the eight compass lines from the plaza that no gate
        takes, at the far distance: walk to each candidate until it comes into view."""
        lm = obs["landmarks"]
        cx, cy = lm["plaza"]
        if self.altar_tries is None:
            self.altar_rounds += 1
            angles = [math.atan2(g[1] - cy, g[0] - cx) for g in lm["gates"]]
            steps = [round(a / (math.pi / 4)) % 8 for a in angles]
            offset = sum(a - round(a / (math.pi / 4)) * math.pi / 4 for a in angles) / len(angles)
            size = 2 * cx
            tries = []
            for k in range(8):
                if k in steps:
                    continue
                for dist in (ALTAR_DISTANCE, ALTAR_DISTANCE - 6):  # a little short too
                    a = k * math.pi / 4 + offset
                    x = min(max(int(round(cx + dist * math.cos(a))), 3), size - 4)
                    y = min(max(int(round(cy + dist * math.sin(a))), 3), size - 4)
                    tries.append((x, y))
            if self.altar_rounds > 1:
                # Round again: a walk refused the first time (others standing on the narrow
                # road, say) may go through now, and the altar is at one of these points.
                self.me.avoid -= set(tries)
            self.altar_tries = tries
        x, y = me(obs)
        while self.altar_tries and (
            self.altar_tries[0] in self.me.avoid or near((x, y), self.altar_tries[0], 3)
        ):
            self.altar_tries.pop(0)
        if not self.altar_tries:
            self.altar_tries = None
            return self.moves.explore(obs)
        return self.moves.go(self.altar_tries[0])
