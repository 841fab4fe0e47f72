"""clear: inside a dungeon instance, the boss found and fought, the chests opened, and out by the
portal once cleared (or by the entrance when too hurt to go on, as its set says)."""

from __future__ import annotations

from typing import Any

from ..character import FOODS
from ..skills import adjacent, gather, me, unless_doing
from .base import CARRY_ON, Answer, Goal


class Clear(Goal):
    name = "clear"
    purpose = "clear the dungeon: its boss, its chests, then out"
    keeps_on = False

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        if obs["self"]["area"] == 0:
            return None
        step = self._inside(obs, items)
        return CARRY_ON if step is None else step

    def _inside(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any] | None:
        d = self.me.dungeon
        assert d is not None  # learn() keeps the notes of the instance it is in
        s = obs["self"]
        here = me(obs)
        action = s["action"]
        food = next((f for f in FOODS if items.get(f)), None)
        if s["hunger"] < 40 and food:
            return {"type": "eat", "item": food}
        if d.cleared:
            if d.portal is not None:
                if here == d.portal:
                    return {"type": "leave"}
                return self.moves.go(d.portal)
        elif self._retreats(s["health"], items) and d.entrance is not None:
            if here == d.entrance:
                return {"type": "leave"}  # retreat to fight another day
            return self.moves.go(d.entrance)
        chests = sorted(d.chests(), key=lambda p: abs(p[0] - here[0]) + abs(p[1] - here[1]))
        if chests and (d.cleared or abs(chests[0][0] - here[0]) + abs(chests[0][1] - here[1]) < 12):
            if adjacent(here, chests[0]):
                self.me.last_target = chests[0]
                return unless_doing(obs, gather(chests[0]))
            if action is not None and action["type"] == "move_to":
                return None
            return self.moves.go(chests[0])
        if action is not None and action["type"] == "move_to":
            return None
        if d.boss is not None and not d.cleared:
            return self.moves.go(d.boss)
        target = d.frontier(here)
        if target is None:
            if d.entrance is not None and here != d.entrance:
                return self.moves.go(d.entrance)
            return {"type": "leave"}
        return self.moves.go(target)

    def _retreats(self, health: int, items: dict[str, int]) -> bool:
        """Whether it leaves an instance it has not cleared, to recover on the surface."""
        if self.me.p.retreat_below < 0 or health >= self.me.p.retreat_below:
            return False
        return self.me.p.retreat_with_potions or not items.get("healing_potion")
