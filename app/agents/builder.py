"""builder: a home-maker and crafter. It sets up a workbench, stone tools and a stone sword, a
furnace for iron, then a locked stone house with nine floor tiles and a cloth bed inside, a loom
and a stove; it cooks potions, forges iron gear at an anvil and keeps crafting. It sleeps at home
every night. Only when it wears iron sword and armor and carries potions does it try the Outer
Court, retreating when hurt; it never goes deeper. It sees only its observations."""

from __future__ import annotations

from typing import Any

from .base import Agent
from .skills import (
    BUILDABLE,
    House,
    InstanceNotes,
    MapNotes,
    adjacent,
    best_food,
    build_house,
    crawl,
    find_house_site,
    free_neighbour,
    gather,
    goto,
    hostiles,
    inv,
    me,
    near,
    nearest_reachable,
    stand_spot,
)

Pos = tuple[int, int]
WALKABLE = set(".,_=")
BUILDABLE_SET = set(BUILDABLE)
STATION_COST = {
    "workbench": {"wood": 4},
    "furnace": {"stone": 6},
    "stove": {"stone": 4, "iron_ingot": 1},
    "loom": {"wood": 4, "fibre": 2},
    "anvil": {"iron_ingot": 3},
}
SOURCE_OF = {"wood": "T", "stone": "#", "coal": "c", "iron_ore": "i", "fibre": "f", "berries": "b"}
TIER1_CLEARS = 2  # how many Outer Court clears it goes for once well equipped
POTIONS_FOR_TIER1 = 3


class Builder(Agent):
    name = "builder"
    description = "a locked stone home with a bed, stations, cooking and iron gear; tier 1 at most"

    def __init__(self, seed: int = 0, think_ticks: int = 0):
        super().__init__(seed, think_ticks)
        self.notes = MapNotes()
        self.inside: InstanceNotes | None = None
        self.sites: dict[str, Pos] = {}  # stations and the bed it placed
        self.house = House()  # its walls, doors, floors, site and lock (skills.House)
        self.seen_structures: set[Pos] = set()  # anyone's, so a house site avoids them
        self.avoid: set[Pos] = set()
        self.goal: Pos | None = None
        self.explore_to: Pos | None = None
        self.clears = 0
        self.place_failures: dict[Pos, int] = {}
        self.failures_in_row = 0
        self.last_type = ""

    # -------------------------------------------------------------- reading feedback
    def feedback(self, result: dict[str, Any]) -> None:
        if not result.get("ok"):
            self._failed()
        else:
            self.failures_in_row = 0

    def _failed(self) -> None:
        self.failures_in_row += 1
        if self.goal is None:
            return
        if self.inside is not None:
            self.inside.failed.add(self.goal)
        else:
            # A refused walk or gather will be refused again: look elsewhere at once. A refused
            # place may only be a sheep in the way, so it gets three tries.
            self.place_failures[self.goal] = self.place_failures.get(self.goal, 0) + 1
            if self.last_type != "place" or self.place_failures[self.goal] >= 3:
                self.avoid.add(self.goal)
            if self.explore_to == self.goal:
                self.explore_to = None
        self.goal = None

    def _learn(self, obs: dict[str, Any]) -> None:
        area = obs["self"]["area"]
        if area == 0:
            self.inside = None
            self.notes.update(obs)
            for st in obs["structures"]:
                self.seen_structures.add((st["x"], st["y"]))
        else:
            if self.inside is None or self.inside.area != area:
                self.inside, self.goal = InstanceNotes(area), None
            self.inside.update(obs)
        self.house.learn(obs["events"])
        for e in obs["events"]:
            kind = e["kind"]
            if kind == "op_failed":
                self._failed()
            elif kind == "placed" and e.get("area", 0) == 0:
                if e["item"] in STATION_COST or e["item"] == "bed":
                    self.sites.setdefault(e["item"], (e["x"], e["y"]))
            elif kind == "dismantled":
                self.sites.pop(e["item"], None)
            elif kind == "dungeon_left" and e.get("cleared") and e.get("alive"):
                self.clears += 1
        if len(self.avoid) > 300:
            self.avoid.clear()

    # -------------------------------------------------------------- deciding
    def decide(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        self._learn(obs)
        s = obs["self"]
        if s["down"]:
            return None
        if self.inside is not None:
            return self._act(
                crawl(obs, self.inside, retreat_below=45, potion_below=55, goal=self.goal)
            )
        close = hostiles(obs, 1)
        if close:
            if s["asleep"]:
                return {"type": "wake"}
            return {"type": "attack", "target": close[0]["id"]}
        if s["asleep"]:
            return None
        items = inv(obs)
        food = best_food(items)
        if s["hunger"] < 55 and food:
            return {"type": "eat", "item": food}
        if s["health"] < 40 and items.get("healing_potion"):
            return {"type": "use", "item": "healing_potion"}
        bag = self._bag_nearby(obs)
        if bag is not None:
            return {"type": "pick_up"}
        night = obs["time"]["phase"] in ("night", "dusk")
        if night and "bed" in self.sites and self.house.locked:
            return self._act(self._go_to_bed(obs))
        if s["action"] is not None and s["action"]["type"] in ("gather", "craft", "move_to"):
            return None
        if self.failures_in_row >= 6:
            return self._unbox(obs)
        return self._act(self._plan(obs, items))

    def _unbox(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """Nothing works any more (walled in by its own stations): take one down."""
        self.failures_in_row = 0
        here = me(obs)
        for name, pos in list(self.sites.items()):
            if adjacent(here, pos) and name != "bed":
                return {"type": "dismantle", "x": pos[0], "y": pos[1]}
        return {"type": "wait", "ticks": 5}

    def _act(self, action: dict[str, Any] | None) -> dict[str, Any] | None:
        if action is not None and action["type"] in ("move_to", "gather", "place"):
            if "x" in action:
                self.goal = (action["x"], action["y"])
                self.last_type = action["type"]
        return action

    def _bag_nearby(self, obs: dict[str, Any]) -> Pos | None:
        here = me(obs)
        for bag in obs.get("loot", []):
            if near(here, (bag["x"], bag["y"]), 1):
                return (bag["x"], bag["y"])
        return None

    def _go_to_bed(self, obs: dict[str, Any]) -> dict[str, Any]:
        bed = self.sites["bed"]
        if adjacent(me(obs), bed) and self.house.inside(me(obs)):
            return {"type": "sleep"}
        spot = self._stand_spot(obs, bed, inside_only=True)
        return goto(*(spot or bed))

    # -------------------------------------------------------------- the plan
    def _plan(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any] | None:
        s = obs["self"]
        eq = s["equipment"]
        if "workbench" not in self.sites:
            return self._station(obs, items, "workbench")
        if not self._has_pickaxe(items):
            return self._craft(obs, items, "workbench", "wooden_pickaxe", {"wood": 3})
        if eq["weapon"] is None and not items.get("stone_sword") and not items.get("iron_sword"):
            return self._craft(obs, items, "workbench", "stone_sword", {"wood": 1, "stone": 3})
        for sword in ("iron_sword", "stone_sword"):
            if items.get(sword) and eq["weapon"] != "iron_sword":
                return {"type": "equip", "item": sword}
        if not items.get("stone_pickaxe") and not items.get("iron_pickaxe"):
            return self._craft(obs, items, "workbench", "stone_pickaxe", {"wood": 1, "stone": 3})
        if not items.get("axe"):
            return self._craft(obs, items, "workbench", "axe", {"wood": 2, "stone": 1})
        if items.get("berries", 0) < 5 and s["hunger"] < 80:
            return self._fetch(obs, "berries")
        if "furnace" not in self.sites:
            return self._station(obs, items, "furnace")
        if not self.house.lock_fitted and not items.get("lock"):
            return self._ingots_then(obs, items, 1, "workbench", "lock", {"iron_ingot": 1})
        home = self._home(obs, items)
        if home is not None:
            return home
        if "bed" not in self.sites:
            return self._bed(obs, items)
        if "stove" not in self.sites:
            if items.get("iron_ingot", 0) < 1:
                return self._ingots(obs, items, 1)
            return self._station(obs, items, "stove")
        if items.get("healing_potion", 0) < 2:
            return self._cook_potion(obs, items)
        if "anvil" not in self.sites:
            if items.get("iron_ingot", 0) < 3:
                return self._ingots(obs, items, 3)
            return self._station(obs, items, "anvil")
        if eq["weapon"] != "iron_sword" and not items.get("iron_sword"):
            return self._ingots_then(
                obs, items, 2, "anvil", "iron_sword", {"iron_ingot": 2, "wood": 1}
            )
        if eq["armor"] is None:
            if items.get("iron_armor"):
                return {"type": "equip", "item": "iron_armor"}
            return self._ingots_then(obs, items, 5, "anvil", "iron_armor", {"iron_ingot": 5})
        if self.clears < TIER1_CLEARS and obs["time"]["phase"] == "day":
            if items.get("healing_potion", 0) < POTIONS_FOR_TIER1:
                return self._cook_potion(obs, items)
            if s["health"] >= 80:
                return self._outer_court(obs)
        return self._pastime(obs, items)

    def _pastime(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any] | None:
        """Once everything stands: keep cooking and weaving, a craft at a time."""
        if items.get("healing_potion", 0) < 8:
            return self._cook_potion(obs, items)
        if items.get("cloth", 0) < 10:
            return self._craft(obs, items, "loom", "cloth", {"fibre": 3})
        if items.get("torch", 0) < 5:
            return self._craft(obs, items, "workbench", "torch", {"wood": 1, "coal": 1})
        if items.get("berries", 0) < 20:
            return self._fetch(obs, "berries")
        return {"type": "wait", "ticks": 20}

    def _outer_court(self, obs: dict[str, Any]) -> dict[str, Any]:
        gate = tuple(obs["landmarks"]["gates"][0])
        if me(obs) == gate:
            return {"type": "enter"}
        return goto(*gate)

    def _bed(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any]:
        if items.get("bed"):
            return self._place_at(obs, "bed", self.house.bed_tile())
        if items.get("cloth", 0) < 3:
            if "loom" not in self.sites:
                return self._station(obs, items, "loom")
            return self._craft(
                obs, items, "loom", "cloth", {"fibre": 3}, count=3 - items.get("cloth", 0)
            )
        return self._craft(obs, items, "workbench", "cloth_bed", {"wood": 4, "cloth": 3})

    def _cook_potion(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any]:
        if items.get("raw_meat", 0) and items.get("wood", 0):
            return self._craft(obs, items, "stove", "cooked_meat", {"raw_meat": 1, "wood": 1})
        return self._craft(obs, items, "stove", "healing_potion", {"berries": 4, "fibre": 1})

    # -------------------------------------------------------------- iron
    def _ingots(self, obs: dict[str, Any], items: dict[str, int], want: int) -> dict[str, Any]:
        n = min(want - items.get("iron_ingot", 0), items.get("iron_ore", 0), items.get("coal", 0))
        if n > 0:
            return self._craft(
                obs, items, "furnace", "iron_ingot", {"iron_ore": 1, "coal": 1}, count=n
            )
        short = want - items.get("iron_ingot", 0)
        if items.get("iron_ore", 0) < short:
            return self._fetch(obs, "iron_ore")
        return self._fetch(obs, "coal")

    def _ingots_then(
        self,
        obs: dict[str, Any],
        items: dict[str, int],
        want: int,
        station: str,
        recipe: str,
        needs: dict[str, int],
    ) -> dict[str, Any]:
        if items.get("iron_ingot", 0) < want:
            return self._ingots(obs, items, want)
        return self._craft(obs, items, station, recipe, needs)

    # -------------------------------------------------------------- the house
    def _find_site(self, obs: dict[str, Any]) -> Pos | None:
        """A 5x5 patch of open buildable ground near the workbench (or here), door side free."""
        taken = self.seen_structures | set(self.sites.values()) | self.avoid
        return find_house_site(self.notes, [self.sites["workbench"], me(obs)], taken)

    def _home(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any] | None:
        return build_house(
            obs,
            items,
            self.house,
            self.notes,
            find_site=lambda: self._find_site(obs),
            craft=lambda station, recipe, needs, count: self._craft(
                obs, items, station, recipe, needs, count=count
            ),
            fetch=lambda material: self._fetch(obs, material),
            place_at=lambda item, target: self._place_at(obs, item, target),
            explore=lambda: self._explore(obs),
            blocked=self._blocked(),
        )

    def _blocked(self) -> set[Pos]:
        """Tiles nobody stands on: refused targets, its stations and bed, its walls."""
        return self.avoid | set(self.sites.values()) | self.house.walls()

    def _stand_spot(
        self, obs: dict[str, Any], target: Pos, inside_only: bool = False
    ) -> Pos | None:
        """A walkable tile next to `target` (not on it), nearest to the character."""
        within = self.house.inside if inside_only else None
        return stand_spot(self.notes, me(obs), target, self._blocked(), within)

    def _place_at(self, obs: dict[str, Any], item: str, target: Pos) -> dict[str, Any]:
        here = me(obs)
        if adjacent(here, target):
            return {"type": "place", "item": item, "x": target[0], "y": target[1]}
        spot = self._stand_spot(obs, target)
        if spot is None:
            self.avoid.add(target)
            house = self.house
            # A floor tile nobody can reach: look for another site, unless walls already stand
            # there (the bed's tile must stay inside the house that is built).
            if house.site and target in house.layout()[0] and not house.walls():
                house.site = None
            return {"type": "wait", "ticks": 1}
        return goto(*spot)

    # -------------------------------------------------------------- small moves
    def _has_pickaxe(self, items: dict[str, int]) -> bool:
        return any(items.get(p) for p in ("wooden_pickaxe", "stone_pickaxe", "iron_pickaxe"))

    def _station(self, obs: dict[str, Any], items: dict[str, int], station: str) -> dict[str, Any]:
        for mat, n in STATION_COST[station].items():
            if items.get(mat, 0) < n:
                if mat == "iron_ingot":
                    return self._ingots(obs, items, n)
                return self._fetch(obs, mat)
        near_site = self.sites.get("workbench")
        if near_site is not None and not near(me(obs), near_site, 3):
            return goto(*near_site)
        spot = self._open_spot(obs)
        if spot is None:
            x, y = me(obs)
            return goto(*self.notes.frontier(self.rng, x, y, reach=4))
        return {"type": "place", "item": station, "x": spot[0], "y": spot[1]}

    def _open_spot(self, obs: dict[str, Any]) -> Pos | None:
        """A free neighbour to put a station on that leaves at least two ways out: corners
        first, since a corner never closes a way."""
        x, y = me(obs)
        avoid = self.avoid | self.house.footprint()
        free = free_neighbour(obs, self.notes, avoid)
        if free is None:
            return None
        busy = {(e["x"], e["y"]) for e in obs["entities"]}
        busy |= {(st["x"], st["y"]) for st in obs["structures"]}
        busy |= {(b["x"], b["y"]) for b in obs.get("loot", [])}
        sides = [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]
        corners = [(x + 1, y + 1), (x - 1, y + 1), (x + 1, y - 1), (x - 1, y - 1)]
        open_sides = [p for p in sides if self.notes.tiles.get(p) in WALKABLE and p not in busy]
        for p in corners + sides:
            if self.notes.tiles.get(p) not in BUILDABLE_SET or p in busy or p in avoid:
                continue
            if p in sides and len([q for q in open_sides if q != p]) < 2:
                continue
            return p
        return None

    def _craft(
        self,
        obs: dict[str, Any],
        items: dict[str, int],
        station: str,
        recipe: str,
        needs: dict[str, int],
        count: int = 1,
    ) -> dict[str, Any]:
        for mat, n in needs.items():
            if items.get(mat, 0) < n:
                if mat == "iron_ingot":
                    return self._ingots(obs, items, n)
                if mat in SOURCE_OF:
                    return self._fetch(obs, mat)
                if mat == "cloth":
                    return self._craft(obs, items, "loom", "cloth", {"fibre": 3})
                return {"type": "wait", "ticks": 10}  # raw meat and the like: nothing to do
        if station not in self.sites:
            return self._station(obs, items, station)
        site = self.sites[station]
        if not near(me(obs), site, 2):
            spot = self._stand_spot(obs, site)
            return goto(*(spot or site))
        most = min(items.get(m, 0) // n for m, n in needs.items()) if needs else count
        return {"type": "craft", "recipe": recipe, "count": max(1, min(count, most))}

    def _explore(self, obs: dict[str, Any]) -> dict[str, Any]:
        x, y = me(obs)
        if self.explore_to is None or near((x, y), self.explore_to, 2):
            self.explore_to = self.notes.frontier(self.rng, x, y)
        return goto(*self.explore_to)

    def _fetch(self, obs: dict[str, Any], material: str) -> dict[str, Any]:
        kind = SOURCE_OF[material]
        x, y = me(obs)
        target = nearest_reachable(self.notes, kind, x, y, avoid=self.avoid)
        if target is None:
            return self._explore(obs)
        if adjacent((x, y), target):
            return gather(target)
        return goto(*target)
