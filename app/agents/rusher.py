"""rusher: skips preparation. It makes one sword (stone when rock is close, else wood), picks a
handful of berries and heads straight for the deepest gate it holds the sigil for. No armor, no
torch, no home, no bed. Inside it never retreats; a knockdown puts it back at the gate, where it
eats, waits a little and goes in again. Coins buy healing potions, its only concession to
recovery. Expected to stall: the Inner Temple's wardens outlast a stone sword, so it collects
downs instead of clears."""

from __future__ import annotations

from typing import Any

from .base import Agent
from .skills import (
    InstanceNotes,
    MapNotes,
    adjacent,
    best_food,
    crawl,
    free_neighbour,
    gather,
    goto,
    hostiles,
    inv,
    me,
    near,
    nearest_reachable,
)

Pos = tuple[int, int]
SWORDS = ("iron_sword", "stone_sword", "wooden_sword")
SIGIL_FOR_TIER = {2: "outer_sigil", 3: "inner_sigil"}
RETRY_HEALTH = 45  # goes back in as soon as it has this much health
STONE_REACH = 20  # rock further than this from the workbench: a wooden sword will do
POTIONS_WANTED = 3


class Rusher(Agent):
    name = "rusher"
    description = "one sword and a few berries, then straight into the deepest gate; never retreats"

    def __init__(self, seed: int = 0, think_ticks: int = 0):
        super().__init__(seed, think_ticks)
        self.notes = MapNotes()
        self.inside: InstanceNotes | None = None
        self.workbench: Pos | None = None
        self.avoid: set[Pos] = set()
        self.goal: Pos | None = None
        self.explore_to: Pos | None = None

    # -------------------------------------------------------------- reading feedback
    def feedback(self, result: dict[str, Any]) -> None:
        if not result.get("ok"):
            self._failed()

    def _failed(self) -> None:
        if self.goal is None:
            return
        if self.inside is not None:
            self.inside.failed.add(self.goal)
        else:
            self.avoid.add(self.goal)
            if self.explore_to == self.goal:
                self.explore_to = None
        self.goal = None

    def _learn(self, obs: dict[str, Any]) -> None:
        area = obs["self"]["area"]
        if area == 0:
            self.inside = None
            self.notes.update(obs)
        else:
            if self.inside is None or self.inside.area != area:
                self.inside, self.goal = InstanceNotes(area), None
            self.inside.update(obs)
        for e in obs["events"]:
            if e["kind"] == "op_failed":
                self._failed()
            elif e["kind"] == "placed" and e["item"] == "workbench":
                self.workbench = (e["x"], e["y"])
        if len(self.avoid) > 200:
            self.avoid.clear()

    # -------------------------------------------------------------- deciding
    def decide(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        self._learn(obs)
        s = obs["self"]
        if s["down"]:
            return None
        if s["asleep"]:
            return {"type": "wake"}
        if self.inside is not None:
            return self._act(
                crawl(obs, self.inside, retreat_below=None, potion_below=30, goal=self.goal)
            )
        close = hostiles(obs, 1)
        if close:
            return {"type": "attack", "target": close[0]["id"]}
        items = inv(obs)
        food = best_food(items)
        if s["hunger"] < 50 and food:
            return {"type": "eat", "item": food}
        if s["action"] is not None and s["action"]["type"] != "wait":
            return None
        return self._act(self._surface(obs, items))

    def _act(self, action: dict[str, Any] | None) -> dict[str, Any] | None:
        if action is not None:
            if action["type"] == "move_to":
                self.goal = (action["x"], action["y"])
            elif action["type"] in ("gather", "place"):
                self.goal = (action["x"], action["y"])
        return action

    def _surface(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any] | None:
        s = obs["self"]
        weapon = s["equipment"]["weapon"]
        if weapon is None:
            held = next((w for w in SWORDS if items.get(w)), None)
            if held:
                return {"type": "equip", "item": held}
            return self._make_sword(obs, items)
        if s["coins"] >= 10 and items.get("healing_potion", 0) < POTIONS_WANTED:
            return self._buy_potions(obs, min(POTIONS_WANTED, s["coins"] // 10))
        if items.get("berries", 0) < 4:
            return self._fetch(obs, "b")
        if s["health"] < RETRY_HEALTH:
            return {"type": "wait", "ticks": 30}
        return self._enter(obs, items)

    def _enter(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any]:
        tier = 1
        for t in (3, 2):
            if items.get(SIGIL_FOR_TIER[t]):
                tier = t
                break
        gate = tuple(obs["landmarks"]["gates"][tier - 1])
        if me(obs) == gate:
            return {"type": "enter"}
        return goto(*gate)

    def _make_sword(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any]:
        wood, stone = items.get("wood", 0), items.get("stone", 0)
        if self.workbench is None:
            if wood < 4:
                return self._fetch(obs, "T")
            return self._place(obs, "workbench")
        here = me(obs)
        rock = nearest_reachable(self.notes, "#", *self.workbench, self.avoid, STONE_REACH)
        if rock is None or (not items.get("wooden_pickaxe") and wood < 3 and stone < 3):
            if wood < 3:  # a wooden sword will do
                return self._fetch(obs, "T")
            return self._craft(here, "wooden_sword")
        if not items.get("wooden_pickaxe") and stone < 3:
            if wood < 4:
                return self._fetch(obs, "T")
            return self._craft(here, "wooden_pickaxe")
        if stone < 3:
            return self._fetch(obs, "#")
        if wood < 1:
            return self._fetch(obs, "T")
        return self._craft(here, "stone_sword")

    def _craft(self, here: Pos, recipe: str) -> dict[str, Any]:
        assert self.workbench is not None
        if not near(here, self.workbench, 2):
            return goto(*self.workbench)
        return {"type": "craft", "recipe": recipe}

    def _buy_potions(self, obs: dict[str, Any], count: int) -> dict[str, Any]:
        merchant = tuple(obs["landmarks"]["merchant"])
        if adjacent(me(obs), merchant):
            return {"type": "buy", "item": "healing_potion", "count": count}
        return goto(*merchant)

    def _fetch(self, obs: dict[str, Any], kind: str) -> dict[str, Any]:
        x, y = me(obs)
        target = nearest_reachable(self.notes, kind, x, y, avoid=self.avoid)
        if target is None:
            if self.explore_to is None or near((x, y), self.explore_to, 2):
                self.explore_to = self.notes.frontier(self.rng, x, y)
            return goto(*self.explore_to)
        if adjacent((x, y), target):
            return gather(target)
        return goto(*target)

    def _place(self, obs: dict[str, Any], item: str) -> dict[str, Any]:
        spot = free_neighbour(obs, self.notes, self.avoid)
        if spot is None:
            x, y = me(obs)
            return goto(*self.notes.frontier(self.rng, x, y, reach=4))
        return {"type": "place", "item": item, "x": spot[0], "y": spot[1]}
