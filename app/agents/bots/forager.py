"""forager: lives off the land. Gathers wood, berries and fibre, sets up a workbench and a loom,
weaves cloth for a bed, eats before it starves and sleeps through the nights. It never goes
below ground, so it finishes neither primary task: the survival baseline."""

from __future__ import annotations

from typing import Any

from .base import Agent
from .skills import (
    MapNotes,
    adjacent,
    best_food,
    boxed_in,
    free_neighbour,
    gather,
    goto,
    inv,
    me,
    near,
)


class Forager(Agent):
    name = "forager"
    description = "gathers, eats, builds a bed and survives nights; never enters a dungeon"

    def __init__(self, seed: int = 0, think_ticks: int = 0):
        super().__init__(seed, think_ticks)
        self.notes = MapNotes()
        self.sites: dict[str, tuple[int, int]] = {}  # placed stations and the bed
        self.avoid: set[tuple[int, int]] = set()
        self.last_target: tuple[int, int] | None = None
        self.explore_to: tuple[int, int] | None = None

    # -------------------------------------------------------------- reading feedback
    def _learn(self, obs: dict[str, Any]) -> None:
        self.notes.update(obs)
        for e in obs["events"]:
            if e["kind"] == "op_failed" and self.last_target is not None:
                self.avoid.add(self.last_target)
            if e["kind"] == "placed":
                self.sites.setdefault(e["item"], (e["x"], e["y"]))
            if e["kind"] == "dismantled":
                self.sites.pop(e["item"], None)
        if len(self.avoid) > 200:
            self.avoid.clear()

    def feedback(self, result: dict[str, Any]) -> None:
        # A refused target (no way there, nothing left to gather) is not tried again soon.
        if not result["ok"]:
            if self.last_target is not None:
                self.avoid.add(self.last_target)
            self.explore_to = None

    # -------------------------------------------------------------- deciding
    def decide(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        self._learn(obs)
        s = obs["self"]
        if s["down"] or s["asleep"] or s["area"] != 0:
            return None
        threat = self._adjacent_threat(obs)
        if threat is not None:
            self.intent = "fight off what attacks it"
            return {"type": "attack", "target": threat}
        if s["action"] is not None:
            return None
        room = boxed_in(obs, self.notes)
        if room is not None:
            return self._break_out(obs, room)
        items = inv(obs)
        food = best_food(items)
        if s["hunger"] < 60 and food:
            self.intent = "eat"
            return {"type": "eat", "item": food}
        if obs["time"]["phase"] == "night" and "bed" in self.sites:
            self.intent = "sleep in its bed"
            bed = self.sites["bed"]
            if adjacent(me(obs), bed):
                return {"type": "sleep"}
            return self._go(bed)
        return self.work(obs, items)

    def work(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any] | None:
        s = obs["self"]
        if items.get("berries", 0) < 6 and s["hunger"] < 80:
            self.intent = "pick berries to eat"
            return self._fetch(obs, "b")
        self.intent = "set up a workbench"
        if "workbench" not in self.sites:
            return self._fetch(obs, "T") if items.get("wood", 0) < 10 else self._place(obs, "workbench")
        self.intent = "make and hold a wooden sword"
        if not items.get("wooden_sword") and s["equipment"]["weapon"] is None:
            return self._craft_at(obs, "workbench", "wooden_sword", items, {"wood": 3})
        if items.get("wooden_sword") and s["equipment"]["weapon"] is None:
            return {"type": "equip", "item": "wooden_sword"}
        if "bed" not in self.sites:
            self.intent = "make a cloth bed for the nights"
            return self._bed(obs, items)
        self.intent = "stock up on berries and wood"
        if items.get("berries", 0) < 16:
            return self._fetch(obs, "b")
        if items.get("wood", 0) < 20:
            return self._fetch(obs, "T")
        self.intent = "rest"
        return {"type": "wait", "ticks": 30}

    def _bed(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any] | None:
        if items.get("bed"):
            return self._place(obs, "bed", near_site="workbench")
        if items.get("cloth", 0) >= 3:
            if items.get("wood", 0) < 4:
                return self._fetch(obs, "T")
            return self._craft_at(obs, "workbench", "cloth_bed", items, {})
        if "loom" not in self.sites:
            if items.get("wood", 0) < 4:
                return self._fetch(obs, "T")
            if items.get("fibre", 0) < 2:
                return self._fetch(obs, "f")
            return self._place(obs, "loom", near_site="workbench")
        needed = 3 * (3 - items.get("cloth", 0))
        if items.get("fibre", 0) < needed:
            return self._fetch(obs, "f")
        return self._craft_at(obs, "loom", "cloth", items, {}, count=3 - items.get("cloth", 0))

    # -------------------------------------------------------------- small moves
    def _adjacent_threat(self, obs: dict[str, Any]) -> int | None:
        x, y = me(obs)
        for e in obs["entities"]:
            if e.get("hostile") and max(abs(e["x"] - x), abs(e["y"] - y)) <= 1:
                return e["id"]
        return None

    def _break_out(self, obs: dict[str, Any], room: set[tuple[int, int]]) -> dict[str, Any]:
        """Shut in a pocket: take down a station of its own that closes it (the materials come
        back and the plan sets the station up again elsewhere), walking beside it first; with
        none, wait for a way to open."""
        x, y = me(obs)
        for item, (sx, sy) in sorted(self.sites.items()):
            beside = [p for p in room if abs(p[0] - sx) + abs(p[1] - sy) == 1]
            if not beside:
                continue
            self.intent = f"take down its {item} to get out"
            if (x, y) in beside:
                return {"type": "dismantle", "x": sx, "y": sy}
            return goto(*min(beside))
        self.intent = "wait for a way out"
        return {"type": "wait", "ticks": 30}

    def _go(self, target: tuple[int, int]) -> dict[str, Any]:
        self.last_target = target
        return goto(*target)

    def _fetch(self, obs: dict[str, Any], kind: str) -> dict[str, Any]:
        x, y = me(obs)
        target = self.notes.nearest(kind, x, y, avoid=self.avoid)
        if target is None:
            if self.explore_to is None or near((x, y), self.explore_to, 2):
                self.explore_to = self.notes.frontier(self.rng, x, y)
            return self._go(self.explore_to)
        if adjacent((x, y), target):
            self.last_target = target
            return gather(target)
        return self._go(target)

    def _place(self, obs: dict[str, Any], item: str, near_site: str | None = None) -> dict[str, Any]:
        site = self.sites.get(near_site) if near_site else None
        if site is not None and not near(me(obs), site, 2):
            return self._go(site)
        spot = free_neighbour(obs, self.notes, self.avoid)
        if spot is None:
            x, y = me(obs)
            return self._go(self.notes.frontier(self.rng, x, y, reach=4))
        self.last_target = spot
        return {"type": "place", "item": item, "x": spot[0], "y": spot[1]}

    def _craft_at(self, obs: dict[str, Any], station: str, recipe: str, items: dict[str, int],
                  needs: dict[str, int], count: int = 1) -> dict[str, Any]:
        for item, n in needs.items():
            if items.get(item, 0) < n:
                return self._fetch(obs, "T")
        site = self.sites[station]
        if not near(me(obs), site, 2):
            return self._go(site)
        return {"type": "craft", "recipe": recipe, "count": max(1, count)}
