"""iron: the ingots for the pieces of its plan (iron.INGOTS), smelted at a furnace from ore and
coal: the ones the tasks need first, then armor and lock, which it gives up (leather armor, no
home) after looking too long for iron or coal it knows nowhere of."""

from __future__ import annotations

from typing import Any

from ..moves import COST
from ..rulebook import ingots
from ..skills import me
from .base import Answer, Goal

# Ingots each piece of the plan needs (the parameter set says which pieces are in its plan).
INGOTS = {piece: ingots(piece) for piece in (
    "anvil", "iron_sword", "iron_armor", "stove", "tailoring_table", "travel_outfit", "lock")}
EXTRA_IRON = frozenset({"iron_armor", "lock"})  # what it gives up when iron cannot be found
IRON_SEARCH = 1500  # ticks of looking for unknown iron or coal before it gives those up


class Iron(Goal):
    name = "iron"
    purpose = "smelt iron ingots"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.searched = 0  # ticks spent looking for iron or coal it knew nowhere of
        self.search_tick: int | None = None

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        have = self.me.has(obs, items)
        tasks = obs["self"].get("tasks", {})
        plan = self.me.iron_plan()
        for pieces in (plan - EXTRA_IRON, plan & EXTRA_IRON):
            need = sum(INGOTS[t] for t in pieces if not self.me.done(t, have, tasks))
            short = max(0, need - items.get("iron_ingot", 0))
            if short:
                return self._smelt(obs, items, short)
        return None

    def _smelt(self, obs: dict[str, Any], items: dict[str, int], short: int) -> dict[str, Any]:
        """Ore and coal for `short` ingots, then the furnace. When one of them is nowhere in
        sight, what it carries is smelted first, so the next piece can be made meanwhile."""
        if "furnace" not in self.me.sites:
            if items.get("stone", 0) < COST["furnace"]["stone"]:
                return self.moves.fetch(obs, "#")
            return self.moves.place(obs, "furnace", near_site="workbench")
        ore, coal = items.get("iron_ore", 0), items.get("coal", 0)
        for kind, held in (("i", ore), ("c", coal)):
            if held < short:
                if self.me.notes.nearest(kind, *me(obs), avoid=self.me.avoid) is None:
                    self._searching(obs)
                    if min(ore, coal) > 0:
                        return self.moves.make(obs, items, "furnace", "iron_ingot", {},
                                          count=min(ore, coal))
                return self.moves.fetch(obs, kind)
        return self.moves.make(obs, items, "furnace", "iron_ingot", {}, count=short)

    def _searching(self, obs: dict[str, Any]) -> None:
        """Time spent looking for iron or coal it knows nowhere of; past IRON_SEARCH with the
        tasks' own iron in hand, armor and lock are given up (leather armor, no home)."""
        tick = obs["tick"]
        if self.search_tick is not None:
            self.searched += min(tick - self.search_tick, 60)
        self.search_tick = tick
        if self.searched > IRON_SEARCH:
            self.me.iron_poor = True
