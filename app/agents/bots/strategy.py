"""The one strategy of the built-in configurations, parameterised (parameters.py: the named sets
of content/configurations.toml). With the planner's set it prepares, then goes deep: it mines and
smelts iron for a sword and armor, builds a locked stone home with a bed inside
(skills.build_house) and sleeps there at night, weaves cloth, tans hides, cooks potions, and sets
up a tailoring table; then clears the Outer Court and the Inner Temple, buys the travel-outfit
design with the coins and tailors the outfit (production), cooks spare potions while a five-day
streak without a knockdown completes, lights a torch for the Royal Tomb, offers the three sigils
at the altar and defeats the Shadow King (exploration). Other sets leave out parts of the
preparation (armor, the home, the stove, the outfit), stop at a shallower tier, drink, retreat
and recover at other health levels, hand other tiers to the steady_clear program, or spend their
coins otherwise. It sees only its observations and keeps its own notes."""

from __future__ import annotations

import heapq
import math
from typing import Any

from . import program_library
from .base import Agent
from .parameters import Params
from .parameters import params as parameter_set
from .rulebook import altar_distance, day_ticks, ingots, inputs, price, station_costs, streak_days
from .skills import (
    WALKABLE_GROUND,
    House,
    MapNotes,
    adjacent,
    build_house,
    find_house_site,
    gather,
    goto,
    inv,
    me,
    near,
    nearest_reachable,
    stand_spot,
    unless_doing,
)

Pos = tuple[int, int]
WALKABLE_INSIDE = set(":EoO;")  # dungeon floor, entrance, portals, sanctum floor
FOODS = ("berry_stew", "cooked_meat", "berries")
MEALS = ("berry_stew", "cooked_meat")  # what cooking means: food made at the stove
# Ingots each piece of the plan needs (the parameter set says which pieces are in its plan).
INGOTS = {piece: ingots(piece) for piece in (
    "anvil", "iron_sword", "iron_armor", "stove", "tailoring_table", "travel_outfit", "lock")}
EXTRA_IRON = frozenset({"iron_armor", "lock"})  # what it gives up when iron cannot be found
IRON_SEARCH = 1500  # ticks of looking for unknown iron or coal before it gives those up
OUTFIT_PRICE = price("travel_outfit_design")  # the merchant's prices (merchant.toml)
TORCH_PRICE = price("torch")
POTION_PRICE = price("healing_potion")
WAYPOINT_STEP = 10  # tiles between the points it explores toward
EXPLORE_PATIENCE = 300  # ticks it walks toward one such point before it gives it up
LOST = 3  # such points in a row with no way to them before it walks to remembered ground
SAME_WALK = 10  # one walk answered this often from one place (going nowhere) is given up
PREY_MEMORY = 900  # ticks a boar seen is looked for where it was
HUNT_PATIENCE = 3000  # ticks of hunting before it goes on without leather armor
HOUSE_PATIENCE = 20  # such times before it gives the home up
CROWD_RADIUS = 8  # a workbench is not set up with CROWD_STRUCTURES others' within this
CROWD_STRUCTURES = 3
CROWDED = 3  # times without a free tile by the workbench before it builds a little further off
SITE_PATIENCE = 3  # walks to one of its stations refused in a row before it sets up another
WALLED_IN = 6  # walks refused in a row before it looks at what walls it in
POCKET = 60  # open tiles it can reach, fewer than which it is walled in
DUG = ("c", "i")  # coal and iron: fetched by digging to them when no open face is known
MINEABLE = set("#ci")  # rock, coal, iron: a pickaxe takes them down to ground
OPEN = set(".,_=123")  # open ground a character walks on
MINE_COST = 7  # a rock tile mined costs about this many steps of walking (6 units, fast)
DIG_REACH = 5000  # the most route cost it searches
DIG_PATIENCE = 30  # ticks standing in one place on its way to a tile before it tries another
STREAK_DAYS = streak_days()  # days in a row without a knockdown, for the Royal Tomb stage
STREAK_BY = 9600  # hold the risky tiers for a streak that ends by this tick (minute 160)
MOST_POTIONS = 24  # the most it carries into one tier
KEEP_BERRIES = 4  # berries kept to eat while it gathers for potions
FLIPS = 10  # turns back in a row between two sources before it keeps to one
JAMMED = 3  # walks stopped by others' bodies in a row before it steps aside to let them pass
JAM_WINDOW = 60  # ... all from one place within this many ticks, another character beside it
PASSING_REACH = 15  # steps it looks back for a place to step aside
PASSING_WAIT = (20, 180)  # ticks it waits there, a random while (two that both stepped aside
# would otherwise meet again on the narrow way)
# The stations its plan sets up, and what each costs to place: read from the content, so a
# change to structures.toml reaches the bots (they copied these numbers before).
COST = station_costs(("workbench", "furnace", "anvil", "loom", "stove", "tailoring_table"))
DAY_TICKS = day_ticks()  # one day: 30 simulation minutes of 60 ticks (world.toml)
ALTAR_DISTANCE = altar_distance()  # from the plaza (world.toml)
WANTED = {
    "hide",
    "outer_sigil",
    "inner_sigil",
    "royal_sigil",
    "healing_potion",
    "berry_stew",
    "cooked_meat",
    "leather",
    "iron_ingot",
    "cloth",
    "torch",
}
STATIONS = frozenset(COST)  # what it sets up again elsewhere when it cannot get to it
SOURCE = {"wood": "T", "stone": "#", "coal": "c", "fibre": "f", "berries": "b", "iron_ore": "i"}


class DungeonNotes:
    """What the character has seen of the instance it is in."""

    def __init__(self, area: int):
        self.area = area
        self.tiles: dict[Pos, str] = {}
        self.boss: Pos | None = None
        self.portal: Pos | None = None
        self.entrance: Pos | None = None
        self.cleared = False
        self.failed: set[Pos] = set()
        self.handed_over = False  # the steady_clear program was given this instance

    def update(self, obs: dict[str, Any]) -> None:
        view = obs["view"]
        x0, y0 = view["x0"], view["y0"]
        for i, row in enumerate(view["tiles"]):
            for j, ch in enumerate(row):
                if ch != " ":
                    pos = (x0 + j, y0 + i)
                    self.tiles[pos] = ch
                    if ch in "oO":
                        self.portal = pos
                    elif ch == "E":
                        self.entrance = pos
        for e in obs["entities"]:
            if e.get("boss"):
                self.boss = (e["x"], e["y"])

    def chests(self) -> list[Pos]:
        return [p for p, ch in self.tiles.items() if ch == "C" and p not in self.failed]

    def frontier(self, here: Pos) -> Pos | None:
        best, best_d = None, 10**9
        for (x, y), ch in self.tiles.items():
            if ch not in WALKABLE_INSIDE or (x, y) in self.failed:
                continue
            if any(
                (x + dx, y + dy) not in self.tiles for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
            ):
                d = abs(x - here[0]) + abs(y - here[1])
                if d < best_d:
                    best, best_d = (x, y), d
        return best


def dig_route(notes: MapNotes, start: Pos, kind: str, avoid: set) -> list[Pos] | None:
    """The cheapest route from `start` to a known tile of `kind` over remembered tiles: open
    ground costs 1, rock, coal and iron to mine through MINE_COST, the seam itself ends it.
    The route's tiles after `start`, or None."""
    tiles = notes.tiles
    if not _seam_reachable(tiles, start, kind, avoid):
        return None  # most calls: the seams it knows lie beyond what it has seen
    best: dict[Pos, int] = {start: 0}
    came: dict[Pos, Pos] = {}
    heap = [(0, start)]
    while heap:
        cost, p = heapq.heappop(heap)
        if cost > best.get(p, 10**9) or cost > DIG_REACH:
            continue
        if p != start and tiles.get(p) == kind:
            route = [p]
            while route[-1] in came and came[route[-1]] != start:
                route.append(came[route[-1]])
            return route[::-1]
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            q = (p[0] + dx, p[1] + dy)
            ch = tiles.get(q)
            if q in avoid and ch != kind:
                continue
            if ch in OPEN:
                step = 1
            elif ch in MINEABLE:
                step = MINE_COST
            else:
                continue
            if cost + step < best.get(q, 10**9):
                best[q] = cost + step
                came[q] = p
                heapq.heappush(heap, (cost + step, q))
    return None


def _seam_reachable(tiles: dict[Pos, str], start: Pos, kind: str, avoid: set) -> bool:
    """Whether dig_route's moves (open or mineable tiles, none in `avoid` but the seam) lead
    from `start` to a tile of `kind` at all: a flood fill, a quarter of the search's cost, so
    the search runs only when it may find a route (the same route: its answer is unchanged)."""
    seen = {start}
    todo = [start]
    while todo:
        x, y = todo.pop()
        for q in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if q in seen:
                continue
            ch = tiles.get(q)
            if ch == kind:
                return True
            if q in avoid or (ch not in OPEN and ch not in MINEABLE):
                continue
            seen.add(q)
            todo.append(q)
    return False


class Strategy(Agent):
    """One configuration: the strategy with one parameter set (the planner's by default)."""

    def __init__(self, seed: int = 0, think_ticks: int = 0, params: Params | None = None):
        super().__init__(seed, think_ticks)
        self.p = params or parameter_set("planner")
        self.name = self.p.name
        self.description = self.p.description
        self.notes = MapNotes()
        self.sites: dict[str, Pos] = {}
        self.avoid: set[Pos] = set()
        self.last_target: Pos | None = None
        self.explore_to: Pos | None = None
        self.dungeon: DungeonNotes | None = None
        self.sigils_offered = False
        self.altar_tries: list[Pos] | None = None
        self.altar_rounds = 0  # times it went through the altar's candidate points
        self.losses: dict[int, int] = {}  # knockdowns inside each tier (4: the Sanctum)
        self.house = House()  # the locked stone home with the bed inside (skills.House)
        self.seen_structures: set[Pos] = set()  # anyone's, so the house site avoids them
        self.others_floors: set[Pos] = set()  # floor tiles others laid (a house of theirs)
        self.old_house: set[Pos] = set()  # its pieces of a house given up, to take down
        self.take_down_refused = 0
        self.calm_night = False  # a whole night without damage has been had
        self.place_failures: dict[Pos, int] = {}
        self.streak = 0  # full days in a row without a knockdown, from the day reports
        self.streak_met = False
        self.down_today = False
        # A meal made at the stove: Self-sufficiency asks for one, and a potion is not a meal.
        self.cooked_meal = False
        self.entering: int | None = None  # the tier of the last `enter`
        self.iron_poor = False  # armor and lock given up: no more iron or coal to be found
        self.searched = 0  # ticks spent looking for iron or coal it knew nowhere of
        self.search_tick: int | None = None
        self.dig_plans: dict[str, list[Pos] | None] = {}  # the way to a coal or iron seam
        self.dig_at: tuple[Pos, Pos] | None = None  # (where it stood, where it walked to)
        self.dig_since = 0
        self.explore_since = 0  # tick it set out for the point it explores toward
        self.explore_refused = 0  # such points in a row the world had no way to
        self.explore_known = False  # the point is remembered open ground, not an unseen one
        self.last_walk: tuple[dict, Pos] | None = None  # the last walk answered, from where
        self.same_walk = 0  # times in a row that walk was answered from the same place
        self.prey_seen: dict[int, tuple[Pos, int]] = {}  # boars seen: where, at what tick
        self.hunted = 0  # ticks spent hunting for hides
        self.hunt_tick: int | None = None
        self.armor_given_up = False  # leather armor given up: its hides could not be had
        self.site_walk: str | None = None  # the station this decision walks to
        self.site_refused: dict[str, int] = {}  # walks to a station refused in a row
        self.moves_refused = 0  # walks refused in a row, wherever to
        self.walking = False  # this decision's answer is a walk
        self.house_stuck = 0  # times a tile of its house had nowhere to stand beside it
        self.home_given_up = False
        self.no_spot = 0  # times in a row it found no free tile beside it to place a station
        self.place_target: Pos | None = None
        self.jammed = 0  # walks in a row stopped by bodies standing in the way
        # the last two sources it went for, and how often in a row it turned back between them
        self.fetch_trail: dict[str, tuple[Pos | None, Pos | None, int]] = {}
        self.jam_at: tuple[Pos, int] | None = None  # where and in which window the last was
        self.passing: Pos | None = None  # where it steps aside to let others by
        self.passing_until: int | None = None

    # ------------------------------------------------------------------ feedback
    def feedback(self, result: dict[str, Any]) -> None:
        ok = bool(result.get("ok"))
        if not ok and self.passing is not None and self.last_target == self.passing:
            self.passing = None  # no way to the place to step aside: go on as before
            self.jammed = 0
        if not ok and self.last_target is not None:
            self._failed(self.last_target)
        elif ok and self.last_target == self.explore_to:
            self.explore_refused = 0
        if self.site_walk is not None:
            self.site_refused[self.site_walk] = 0 if ok else self.site_refused.get(
                self.site_walk, 0) + 1
        if result.get("code") == "inventory_full" and self.old_house:
            self.take_down_refused += 1
        if result.get("code") == "no_path":
            self.moves_refused += 1
        elif ok and self.walking:
            self.moves_refused = 0

    def _failed(self, target: Pos) -> None:
        if self.dungeon is not None:
            self.dungeon.failed.add(target)
        else:
            self.avoid.add(target)
            if self.explore_to == target:
                self.explore_to = None
                self.explore_refused += 1

    def _learn(self, obs: dict[str, Any]) -> None:
        area = obs["self"]["area"]
        if area == 0:
            self.dungeon = None
            self.notes.update(obs)
            for st in obs["structures"]:
                self.seen_structures.add((st["x"], st["y"]))
            mine = obs["self"]["id"]
            for f in obs.get("floors", ()):
                if f.get("owner") != mine:
                    self.others_floors.add((f["x"], f["y"]))
            for e in obs["entities"]:
                if e["kind"] == "boar":
                    self.prey_seen[e["id"]] = ((e["x"], e["y"]), obs["tick"])
        else:
            if self.dungeon is None or self.dungeon.area != area:
                self.dungeon = DungeonNotes(area)
            self.dungeon.update(obs)
        self.house.learn(obs["events"])
        for e in obs["events"]:
            kind = e["kind"]
            if kind == "night_report" and e.get("damage", 1) == 0:
                self.calm_night = True
            elif kind == "down" and e.get("char") == obs["self"]["id"]:
                self.down_today = True
                if e.get("in_dungeon") and self.entering is not None:
                    self.losses[self.entering] = self.losses.get(self.entering, 0) + 1
            elif kind == "day_report":
                self._day_report(e)
            if kind == "op_failed" and e.get("type") == "move_to":
                # Stopped on the way: "is blocked" is the world's word for bodies in the way
                # (others on a narrow road between rock, and it in theirs).
                jam = "is blocked" in e.get("message", "") and self._beside_another(obs)
                again = self.jam_at == (me(obs), obs["tick"] // JAM_WINDOW)
                self.jammed = (self.jammed + 1 if again else 1) if jam else 0
                self.jam_at = (me(obs), obs["tick"] // JAM_WINDOW) if jam else None
                if self.passing is not None and self.last_target == self.passing:
                    self.passing, self.jammed = None, 0
            elif kind == "op_done" and e.get("type") == "move_to":
                self.jammed = 0
            if kind == "op_failed" and self.last_target is not None:
                self._failed(self.last_target)
            elif kind == "placed":
                self.sites.setdefault(e["item"], (e["x"], e["y"]))
            elif kind == "boss_defeated" and self.dungeon is not None:
                self.dungeon.cleared = True
            elif kind == "offered":
                self.sigils_offered = True
            elif kind == "crafted" and e.get("recipe") in MEALS and e.get("char") == obs["self"]["id"]:
                self.cooked_meal = True
        if len(self.avoid) > 300:
            self.avoid.clear()

    # ------------------------------------------------------------------ deciding
    def decide(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        choice = self._decide(obs)
        self.walking = choice is not None and choice.get("type") == "move_to"
        if self.walking and obs["self"]["area"] == 0:
            # The same walk answered again from the same place: it was taken and got nowhere
            # (the tile is another's structure, or something stands there). Not again.
            if self.last_walk == (choice, me(obs)):
                self.same_walk += 1
                if self.same_walk >= SAME_WALK:
                    self._failed((choice["x"], choice["y"]))
                    self.same_walk = 0
            else:
                self.same_walk = 0
            self.last_walk = (choice, me(obs))
        return choice

    def _decide(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        self._learn(obs)
        self.site_walk = None
        s = obs["self"]
        if s["down"] or s["asleep"]:
            return None
        items = inv(obs)
        if self._program_running(obs):
            return self._while_program_runs(obs, items)
        handover = self._hand_over(obs)
        if handover is not None:
            return handover
        threat = self._adjacent_threat(obs)
        heal = self._heal(obs, items)
        if heal is not None:
            return heal
        if threat is not None:
            return {"type": "attack", "target": threat}
        loot = self._loot(obs)
        if loot is not None:
            return loot
        if s["area"] != 0:
            return self._inside(obs, items)
        action = s["action"]
        if action is not None and action["type"] in ("gather", "craft"):
            return None
        food = next((f for f in FOODS if items.get(f)), None)
        if s["hunger"] < 55 and food:
            return {"type": "eat", "item": food}
        if self.jammed >= JAMMED or self.passing is not None:
            aside = self._make_way(obs)
            if self.passing is not None:
                return aside  # None while it walks there
        if self.moves_refused >= WALLED_IN:
            way_out = self._way_out(obs, items)
            if way_out is not None:
                return way_out
        choice = self._go_to_bed(obs) if self._bedtime(obs) else self._plan(obs, items)
        if (
            action is not None
            and choice is not None
            and choice["type"] == action["type"]
            and all(action["args"].get(k) == v for k, v in choice.items() if k != "type")
        ):
            return None  # already doing it
        return choice

    def _loot(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """Bags with something worth having (a boar's hide, a boss's sigil) are picked up."""
        here = me(obs)
        bags = [
            b
            for b in obs["loot"]
            if any(i in WANTED for i in b["items"])
            and (b["x"], b["y"]) not in self.avoid
            and near(here, (b["x"], b["y"]), 8)
        ]
        if not bags:
            return None
        bag = min(bags, key=lambda b: abs(b["x"] - here[0]) + abs(b["y"] - here[1]))
        spot = (bag["x"], bag["y"])
        self.last_target = spot
        if near(here, spot, 1):
            return {"type": "pick_up"}
        action = obs["self"]["action"]
        if (
            action is not None
            and action["type"] == "move_to"
            and (action["args"]["x"], action["args"]["y"]) == spot
        ):
            return None
        return goto(*spot)

    def _heal(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any] | None:
        s = obs["self"]
        low = 45 if s["area"] == 0 else self.p.drink_below
        if (
            s["health"] < low
            and items.get("healing_potion")
            and (s["area"] != 0 or s["health"] < 30)
        ):
            return {"type": "use", "item": "healing_potion"}
        if s["health"] < 70 and s["area"] != 0 and items.get("berry_stew"):
            return {"type": "eat", "item": "berry_stew"}
        return None

    # ------------------------------------------------------------------ the surface plan
    def _plan(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any] | None:
        s = obs["self"]
        eq = s["equipment"]
        have = {k for k, v in items.items() if v} | {v for v in eq.values() if v}
        tasks = s.get("tasks", {})
        # Tools and the workbench.
        if items.get("berries", 0) < 4 and s["hunger"] < 70:
            return self._fetch(obs, "b")
        if "workbench" not in self.sites:
            if items.get("wood", 0) < COST["workbench"]["wood"]:
                return self._fetch(obs, "T")
            if self._crowded(obs):
                return self._explore(obs)  # others' stations all round: set up further off
            return self._place(obs, "workbench")
        for tool in ("wooden_pickaxe", "wooden_sword"):
            if (
                tool not in have
                and "stone_pickaxe" not in have
                and not (tool == "wooden_sword" and ("iron_sword" in have))
            ):
                return self._make(obs, items, "workbench", tool, inputs(tool))
        if "wooden_sword" in items and eq["weapon"] is None:
            return {"type": "equip", "item": "wooden_sword"}
        if "stone_pickaxe" not in have:
            return self._make(obs, items, "workbench", "stone_pickaxe", inputs("stone_pickaxe"))
        if "axe" not in have:
            return self._make(obs, items, "workbench", "axe", inputs("axe"))
        if self.p.weapon == "stone" and "stone_sword" not in have:
            return self._make(obs, items, "workbench", "stone_sword", inputs("stone_sword"))
        if "stone_sword" in items and eq["weapon"] in (None, "wooden_sword"):
            return {"type": "equip", "item": "stone_sword"}
        # Iron, for the pieces of its plan: the ones the tasks need first, then armor and lock
        # (given up for leather and no home when the world's iron or coal cannot be found).
        plan = self._iron_plan()
        for pieces in (plan - EXTRA_IRON, plan & EXTRA_IRON):
            need = sum(INGOTS[t] for t in pieces if not self._done(t, have, tasks))
            short = max(0, need - items.get("iron_ingot", 0))
            if short:
                return self._smelt(obs, items, short)
        if "anvil" not in self.sites and "anvil" in plan:
            return self._place(obs, "anvil", near_site="workbench")
        for gear in ("iron_sword", "iron_armor"):
            if gear not in plan:
                continue
            if gear not in have:
                return self._make(
                    obs, items, "anvil", gear, inputs(gear, "wood")
                )
            if gear in items:
                return {"type": "equip", "item": gear}
        # A locked stone home with a bed inside, to sleep in at night.
        home = self._home(obs, items) if self._builds_home() else None
        if home is not None:
            return home
        # Cloth and leather for the table and the outfit.
        outfit_done = not self.p.production or self._done("travel_outfit", have, tasks)
        table = "tailoring_table" in self.sites or not self.p.production
        cloth_need = ((0 if table else COST["tailoring_table"]["cloth"])
                      + (0 if outfit_done else inputs("travel_outfit")["cloth"]))
        if items.get("cloth", 0) < cloth_need:
            if "loom" not in self.sites:
                if items.get("fibre", 0) < COST["loom"]["fibre"]:
                    return self._fetch(obs, "f")
                return self._place(obs, "loom", near_site="workbench")
            missing = cloth_need - items.get("cloth", 0)
            if items.get("fibre", 0) < inputs("cloth")["fibre"] * missing:
                return self._fetch(obs, "f")
            return self._make(obs, items, "loom", "cloth", {}, count=missing)
        if not table:
            return self._place(obs, "tailoring_table", near_site="workbench")
        leather_need = ((0 if outfit_done else inputs("travel_outfit")["leather"])
                        + (inputs("leather_armor")["leather"]
                           if self._wants_leather_armor(have) else 0))
        if items.get("leather", 0) < leather_need:
            hides = inputs("leather")["hide"] * (leather_need - items.get("leather", 0))
            if items.get("hide", 0) >= hides:
                return self._make(
                    obs, items, "workbench", "leather", {},
                    count=leather_need - items.get("leather", 0),
                )
            self._hunting(obs)
            return self._hunt(obs, "boar")
        if self._wants_leather_armor(have):
            return self._make(obs, items, "workbench", "leather_armor", {})
        if "leather_armor" in items and eq["armor"] is None:
            return {"type": "equip", "item": "leather_armor"}
        if self.p.cook and "stove" not in self.sites:
            if items.get("stone", 0) < COST["stove"]["stone"]:
                return self._fetch(obs, "#")
            return self._place(obs, "stove", near_site="workbench")
        if self.p.cook and not self.cooked_meal and items.get("raw_meat"):
            return self._make(obs, items, "stove", "cooked_meat", inputs("cooked_meat", "wood"))
        # The outfit as soon as the design is affordable.
        if not outfit_done:
            if (items.get("travel_outfit_design")
                    and items.get("leather", 0) >= inputs("travel_outfit")["leather"]):
                return self._make(obs, items, "tailoring_table", "travel_outfit", {})
            if s["coins"] >= OUTFIT_PRICE:
                return self._buy(obs, "travel_outfit_design", 1)
        if "travel_outfit" in items:
            return {"type": "equip", "item": "travel_outfit"}
        # Supplies for the next descent, then go.
        tier = self._next_tier(items, tasks, s["coins"], outfit_done)
        if tier is None:
            return self._pastime(obs, items)
        want = self._potions_for(tier)
        if items.get("healing_potion", 0) < want:
            reserve = 0 if outfit_done else OUTFIT_PRICE
            if self.p.buy_potions and s["coins"] >= POTION_PRICE + reserve:
                n = min(want - items.get("healing_potion", 0),
                        (s["coins"] - reserve) // POTION_PRICE)
                if n > 0:
                    return self._buy(obs, "healing_potion", n)
            if "stove" in self.sites:
                return self._cook_potions(obs, items, want - items.get("healing_potion", 0))
        if items.get("berries", 0) < 8:
            return self._fetch(obs, "b")
        if tier >= 3 and "torch" not in have:
            if s["coins"] >= TORCH_PRICE:
                return self._buy(obs, "torch", min(2, s["coins"] // TORCH_PRICE))
            return self._make(obs, items, "workbench", "torch", inputs("torch"))
        if tier >= 3 and self._hold_for_streak(obs):
            return self._pastime(obs, items)
        if s["health"] < self.p.enter_above:
            return self._recover(obs, items)
        return self._descend(obs, items, tier)

    def _potions_for(self, tier: int) -> int:
        """Potions it carries into `tier`: its set's number, and more for each time it was
        knocked down in there (a fight lost for want of them is prepared better next time)."""
        extra = self.p.loss_potions * self.losses.get(tier, 0)
        return min(MOST_POTIONS, self.p.potions_for(tier) + extra)

    def _iron_plan(self) -> set[str]:
        """The pieces of its plan that take iron ingots."""
        plan = set()
        if self.p.weapon == "iron":
            plan |= {"anvil", "iron_sword"}
        if self._armor() == "iron":
            plan |= {"anvil", "iron_armor"}
        if self.p.cook:
            plan.add("stove")
        if self.p.production:
            plan |= {"tailoring_table", "travel_outfit"}
        if self._builds_home():
            plan.add("lock")
        return plan

    def _armor(self) -> str:
        if self.p.armor == "iron" and self.iron_poor:
            return "leather"
        return self.p.armor

    def _builds_home(self) -> bool:
        if self.house.locked:
            return self.p.home
        return self.p.home and not self.home_given_up and not (
            self.iron_poor and not self.house.lock_fitted)

    def _wants_leather_armor(self, have: set) -> bool:
        return (self._armor() == "leather" and not self.armor_given_up
                and not {"leather_armor", "iron_armor"} & have)

    def _hunting(self, obs: dict[str, Any]) -> None:
        """Time spent hunting for hides; past HUNT_PATIENCE the leather armor's four are given
        up (nine hunters share fourteen boars): the outfit's two are enough to go on."""
        tick = obs["tick"]
        if self.hunt_tick is not None:
            self.hunted += min(tick - self.hunt_tick, 60)
        self.hunt_tick = tick
        if self.hunted > HUNT_PATIENCE:
            self.armor_given_up = True

    def _smelt(self, obs: dict[str, Any], items: dict[str, int], short: int) -> dict[str, Any]:
        """Ore and coal for `short` ingots, then the furnace. When one of them is nowhere in
        sight, what it carries is smelted first, so the next piece can be made meanwhile."""
        if "furnace" not in self.sites:
            if items.get("stone", 0) < COST["furnace"]["stone"]:
                return self._fetch(obs, "#")
            return self._place(obs, "furnace", near_site="workbench")
        ore, coal = items.get("iron_ore", 0), items.get("coal", 0)
        for kind, held in (("i", ore), ("c", coal)):
            if held < short:
                if self.notes.nearest(kind, *me(obs), avoid=self.avoid) is None:
                    self._searching(obs)
                    if min(ore, coal) > 0:
                        return self._make(obs, items, "furnace", "iron_ingot", {},
                                          count=min(ore, coal))
                return self._fetch(obs, kind)
        return self._make(obs, items, "furnace", "iron_ingot", {}, count=short)

    def _searching(self, obs: dict[str, Any]) -> None:
        """Time spent looking for iron or coal it knows nowhere of; past IRON_SEARCH with the
        tasks' own iron in hand, armor and lock are given up (leather armor, no home)."""
        tick = obs["tick"]
        if self.search_tick is not None:
            self.searched += min(tick - self.search_tick, 60)
        self.search_tick = tick
        if self.searched > IRON_SEARCH:
            self.iron_poor = True

    def _recover(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any]:
        """Health back before it goes in: a stew, a potion when far down, sleep at home at
        night, else rest (health comes back while fed)."""
        s = obs["self"]
        if items.get("berry_stew") and s["hunger"] < 90:
            return {"type": "eat", "item": "berry_stew"}
        if s["health"] < 30 and items.get("healing_potion"):
            return {"type": "use", "item": "healing_potion"}
        return {"type": "wait", "ticks": 30}

    def _cook_potions(self, obs: dict[str, Any], items: dict[str, int], n: int) -> dict[str, Any]:
        """Gather berries and flax for `n` potions (some berries kept to eat), then cook them."""
        n = max(1, min(n, 8))
        potion = inputs("healing_potion")
        if items.get("fibre", 0) < potion["fibre"] * n:
            return self._fetch(obs, "f")
        if items.get("berries", 0) < potion["berries"] * n + KEEP_BERRIES:
            return self._fetch(obs, "b")
        return self._make(obs, items, "stove", "healing_potion", {}, count=n)

    def _pastime(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any]:
        """Nothing risky to do now: cook spare potions and make torches, a craft at a time."""
        spare = self.p.spare_potions
        if "stove" in self.sites and items.get("healing_potion", 0) < spare:
            return self._cook_potions(obs, items, spare - items.get("healing_potion", 0))
        if items.get("torch", 0) < self.p.spare_torches:
            return self._make(obs, items, "workbench", "torch", inputs("torch"))
        return {"type": "wait", "ticks": 30}

    # ------------------------------------------------------------------ the streak
    def _day_report(self, e: dict[str, Any]) -> None:
        if not e.get("full", True):
            return  # a day joined part-way neither counts nor breaks a streak
        self.streak = self.streak + 1 if int(e.get("downs", 0)) == 0 else 0
        self.streak_met = self.streak_met or self.streak >= STREAK_DAYS
        self.down_today = False

    def _hold_for_streak(self, obs: dict[str, Any]) -> bool:
        """Keep out of the Royal Tomb and the Sanctum (where knockdowns happen) while a
        five-day streak without one can still be completed early enough; then go anyway."""
        if self.streak_met or not self.p.hold_for_streak:
            return False
        day = obs["time"]["day"]
        if self.down_today:
            last_day = day + STREAK_DAYS
        else:
            last_day = day + STREAK_DAYS - self.streak - 1
        return last_day * DAY_TICKS <= STREAK_BY

    def _done(self, thing: str, have: set, tasks: dict) -> bool:
        if thing in ("anvil", "stove", "tailoring_table"):
            return thing in self.sites
        if thing == "travel_outfit":
            return "production" in tasks or "travel_outfit" in have
        return thing in have

    def _next_tier(
        self, items: dict[str, int], tasks: dict, coins: int, outfit_done: bool
    ) -> int | None:
        """The tier to go to next, or None: nothing deeper for this configuration. One that stops
        short of the Sanctum goes back to its deepest tier while the outfit's coins are short."""
        if "exploration" in tasks:
            return None
        if self.sigils_offered or items.get("royal_sigil"):
            tier = 4
        elif items.get("inner_sigil"):
            tier = 3
        elif items.get("outer_sigil"):
            tier = 2
        else:
            tier = 1
        if tier <= self.p.max_tier:
            return tier
        if self.p.max_tier >= 1 and not outfit_done and coins < OUTFIT_PRICE:
            return self.p.max_tier
        return None

    def _descend(self, obs: dict[str, Any], items: dict[str, int], tier: int) -> dict[str, Any]:
        s = obs["self"]
        if tier == 4:
            altar = obs["landmarks"].get("altar")
            if altar is None:
                return self._seek_altar(obs)
            altar = tuple(altar)
            if not adjacent(me(obs), altar):
                return self._go(altar)
            if not self.sigils_offered:
                return {"type": "offer"}
            self.entering = 4
            return {"type": "enter"}
        gate = tuple(obs["landmarks"]["gates"][tier - 1])
        if me(obs) != gate:
            return self._go(gate)
        if tier == 3 and s["equipment"]["light"] is None and items.get("torch"):
            return {"type": "equip", "item": "torch"}
        self.entering = tier
        return {"type": "enter"}

    def _seek_altar(self, obs: dict[str, Any]) -> dict[str, Any]:
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
                self.avoid -= set(tries)
            self.altar_tries = tries
        x, y = me(obs)
        while self.altar_tries and (
            self.altar_tries[0] in self.avoid or near((x, y), self.altar_tries[0], 3)
        ):
            self.altar_tries.pop(0)
        if not self.altar_tries:
            self.altar_tries = None
            return self._explore(obs)
        return self._go(self.altar_tries[0])

    # ------------------------------------------------------------------ the home
    def _home(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any] | None:
        """The next step toward a locked house with a bed in it; None once both stand."""
        if not self.house.lock_fitted and not items.get("lock"):
            if items.get("iron_ingot", 0) < 1:
                return None  # the ingot plan above makes one first
            return self._make(obs, items, "workbench", "lock", {})
        if self.old_house:
            step = self._take_down(obs)
            if step is not None:
                return step
        foreign = self._foreign_in_house(obs)
        if foreign is not None:
            self._relocate_house(foreign)
            return {"type": "wait", "ticks": 1}
        step = build_house(
            obs,
            items,
            self.house,
            self.notes,
            find_site=lambda: self._house_site(obs),
            craft=lambda station, recipe, needs, count: self._make(
                obs, items, station, recipe, needs, count=count, batch=True
            ),
            fetch=lambda material: self._fetch(obs, SOURCE[material]),
            place_at=lambda item, target: self._place_at(obs, item, target),
            explore=lambda: self._explore(obs),
            blocked=self._blocked(),
        )
        if step is not None:
            return step
        if "bed" in self.sites:
            return None
        if items.get("bed"):
            return self._place_at(obs, "bed", self.house.bed_tile())
        bed = inputs("cloth_bed")
        if items.get("cloth", 0) < bed["cloth"]:
            if "loom" not in self.sites:
                return self._place(obs, "loom", near_site="workbench")
            need = bed["cloth"] - items.get("cloth", 0)
            return self._make(obs, items, "loom", "cloth", inputs("cloth"), count=need)
        return self._make(obs, items, "workbench", "cloth_bed", bed)

    def _house_site(self, obs: dict[str, Any]) -> Pos | None:
        taken = self.seen_structures | self.others_floors | set(self.sites.values()) | self.avoid
        site = find_house_site(self.notes, [self.sites["workbench"]], taken, radius=25)
        return site or find_house_site(self.notes, [me(obs)], taken)

    def _blocked(self) -> set[Pos]:
        """Tiles nobody stands on: refused targets, its stations and bed, its walls, and the
        structures of others it has seen (a spot beside a wall that is another's station is
        walked to and never stood on)."""
        return self.avoid | set(self.sites.values()) | self.house.walls() | self.seen_structures

    def _place_at(self, obs: dict[str, Any], item: str, target: Pos) -> dict[str, Any]:
        """Place `item` on `target`, walking next to it first (inside the house for the bed)."""
        here = me(obs)
        if adjacent(here, target):
            self.last_target = None  # a refused place (a sheep in the way) is tried again
            self.place_failures[target] = self.place_failures.get(target, 0) + 1
            if self.place_failures[target] > 6:
                self._move_house(target)
            return {"type": "place", "item": item, "x": target[0], "y": target[1]}
        within = self.house.inside if item == "bed" else None
        spot = stand_spot(self.notes, here, target, self._blocked(), within)
        if spot is None and within is not None:
            # Tiles of its own house put off-limits by earlier refusals (walking in before the
            # door stood, say): inside its locked house they are reachable now.
            self.avoid = {p for p in self.avoid if not within(p)}
            spot = stand_spot(self.notes, here, target, self._blocked(), within)
        if spot is None:
            self._move_house(target)
            self.house_stuck += 1
            if self.house_stuck > HOUSE_PATIENCE:
                self.home_given_up = True  # walled round by others: no home this time
            return {"type": "wait", "ticks": 1}
        return self._go(spot)

    def _foreign_in_house(self, obs: dict[str, Any]) -> Pos | None:
        """A tile of its house still to build that holds another's wall, station or floor: two
        sites chosen at once by neighbours overlap, and neither can ever build on the other's
        piece (the place is refused every time). None when there is none in sight."""
        house = self.house
        if house.site is None or house.locked:
            return None
        others = _pieces(obs, own=False)
        floors, walls, door = house.layout()
        for p in [*floors, *walls, door]:
            if p not in house.built and p in others:
                return p
        return None

    def _relocate_house(self, target: Pos) -> None:
        """Start the house again on another site; what it built of this one is taken down
        first (materials back), so no half house is left standing in others' way."""
        self.avoid.add(target)
        house = self.house
        self.old_house |= set(house.built)
        if house.site is not None and house.layout()[2] in house.built:
            house.lock_fitted = False  # the lock comes back with the door
        house.site, house.built = None, {}
        for piece in ("floor", "wall", "door"):
            self.sites.pop(piece, None)
        house.search_at = -(10**9)
        self.place_failures.clear()

    def _take_down(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """The next piece of a house given up: walk next to it and dismantle it. None once
        none is left (or its pack has no room for what comes back)."""
        if self.take_down_refused >= 3:
            self.old_house.clear()
            return None
        standing = _pieces(obs, own=True)
        view = obs["view"]
        x0, y0 = view["x0"], view["y0"]
        h, w = len(view["tiles"]), len(view["tiles"][0]) if view["tiles"] else 0
        here = me(obs)
        for p in sorted(self.old_house, key=lambda p: (abs(p[0] - here[0]) + abs(p[1] - here[1]), p)):
            if x0 <= p[0] < x0 + w and y0 <= p[1] < y0 + h and p not in standing:
                self.old_house.discard(p)  # gone (taken down)
                continue
            if adjacent(here, p):
                return {"type": "dismantle", "x": p[0], "y": p[1]}
            spot = stand_spot(self.notes, here, p, self._blocked())
            if spot is None:
                self.old_house.discard(p)
                continue
            return self._go(spot)
        return None

    def _move_house(self, target: Pos) -> None:
        """A tile of the house cannot be built: look for another site (before walls stand)."""
        self.avoid.add(target)
        house = self.house
        if house.site is not None and not house.walls():
            house.site, house.built = None, {}

    def _bedtime(self, obs: dict[str, Any]) -> bool:
        """At night, home to bed: for a first calm night, and whenever energy runs low."""
        s = obs["self"]
        if (
            not self.p.home
            or obs["time"]["phase"] != "night"
            or not self.house.locked
            or "bed" not in self.sites
        ):
            return False
        if not self.calm_night or s["energy"] < 50:
            return True
        return not self.streak_met and self._hold_for_streak(obs)

    def _go_to_bed(self, obs: dict[str, Any]) -> dict[str, Any]:
        bed = self.sites["bed"]
        here = me(obs)
        if adjacent(here, bed) and self.house.inside(here):
            return {"type": "sleep"}
        spot = stand_spot(self.notes, here, bed, self._blocked(), self.house.inside)
        return self._go(spot or bed)

    # ------------------------------------------------------------------ programs
    def _program_running(self, obs: dict[str, Any]) -> bool:
        return any(p["status"] in ("running", "waiting") for p in obs.get("programs", ()))

    def _while_program_runs(self, obs: dict[str, Any], items: dict[str, int]):
        """The program keeps the beat; step in (which stops it) only to stay alive or fed."""
        s = obs["self"]
        if s["health"] < 30 and items.get("healing_potion"):
            return {"type": "use", "item": "healing_potion"}
        food = next((f for f in FOODS if items.get(f)), None)
        if s["hunger"] < 25 and food:
            return {"type": "eat", "item": food}
        return None

    def _hand_over(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """In a fresh Inner Temple, hand the fight to the steady_clear program: deciding every
        few ticks, the planner cannot keep the enemies' two-tick beat; a program can, and a clear
        with little damage and no supplies is the curriculum's Steadiness stage."""
        d = self.dungeon
        if d is None or d.handed_over or d.cleared or self.entering not in self.p.hand_over:
            return None
        if "programs" not in obs:  # this world hosts no programs
            return None
        d.handed_over = True
        return {
            "type": "program",
            "name": "steady_clear",
            "source": program_library.source("steady_clear"),
        }

    # ------------------------------------------------------------------ inside
    def _inside(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any] | None:
        d = self.dungeon
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
                return self._go(d.portal)
        elif self._retreats(s["health"], items) and d.entrance is not None:
            if here == d.entrance:
                return {"type": "leave"}  # retreat to fight another day
            return self._go(d.entrance)
        chests = sorted(d.chests(), key=lambda p: abs(p[0] - here[0]) + abs(p[1] - here[1]))
        if chests and (d.cleared or abs(chests[0][0] - here[0]) + abs(chests[0][1] - here[1]) < 12):
            if adjacent(here, chests[0]):
                self.last_target = chests[0]
                return unless_doing(obs, gather(chests[0]))
            if action is not None and action["type"] == "move_to":
                return None
            return self._go(chests[0])
        if action is not None and action["type"] == "move_to":
            return None
        if d.boss is not None and not d.cleared:
            return self._go(d.boss)
        target = d.frontier(here)
        if target is None:
            if d.entrance is not None and here != d.entrance:
                return self._go(d.entrance)
            return {"type": "leave"}
        return self._go(target)

    def _retreats(self, health: int, items: dict[str, int]) -> bool:
        """Whether it leaves an instance it has not cleared, to recover on the surface."""
        if self.p.retreat_below < 0 or health >= self.p.retreat_below:
            return False
        return self.p.retreat_with_potions or not items.get("healing_potion")

    # ------------------------------------------------------------------ small moves
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

    def _go(self, target: Pos) -> dict[str, Any]:
        self.last_target = target
        return goto(*target)

    def _to_site(self, obs: dict[str, Any], station: str) -> dict[str, Any]:
        """Walk to one of its stations. One the world has no way to, time after time (trees and
        others' buildings all round it), is given up: the plan sets up another where it can."""
        if self.site_refused.get(station, 0) >= SITE_PATIENCE and station in STATIONS:
            del self.sites[station]
            self.site_refused[station] = 0
            return {"type": "wait", "ticks": 1}
        self.site_walk = station
        return self._go(self.sites[station])

    def _way_out(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any] | None:
        """Walled in (every walk refused, and the open ground it can reach is a small pocket):
        clear the side that opens onto ground beyond, a tree or rock by gathering it, else a
        station of its own by taking it down (the plan sets it up again elsewhere). None when
        it is not walled in or nothing round the pocket can be cleared."""
        here = me(obs)
        tiles = self.notes.tiles
        taken = self.seen_structures | {(st["x"], st["y"]) for st in obs["structures"]}
        if self.house.site is not None:
            taken = taken - {self.house.layout()[2]}  # its own door opens for it
        region, frontier = {here}, [here]
        while frontier and len(region) < POCKET:
            x, y = frontier.pop()
            for q in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if q not in region and tiles.get(q) in OPEN and q not in taken:
                    region.add(q)
                    frontier.append(q)
        if len(region) >= POCKET:
            return None
        own = {p: name for name, p in self.sites.items() if name in STATIONS}
        pickaxe = any(items.get(t) for t in ("wooden_pickaxe", "stone_pickaxe", "iron_pickaxe"))
        best = None
        for x, y in region:
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                side, beyond = (x + dx, y + dy), (x + 2 * dx, y + 2 * dy)
                if side in region:
                    continue
                if side in own:
                    rank = 2
                elif tiles.get(side) == "T" or (tiles.get(side) in MINEABLE and pickaxe):
                    rank = 0
                else:
                    continue
                if not (tiles.get(beyond) in OPEN and beyond not in taken):
                    rank += 4
                key = (rank, abs(x - here[0]) + abs(y - here[1]), side, (x, y))
                best = key if best is None or key < best else best
        if best is None:
            return None
        side, stand = best[2], best[3]
        if stand != here:
            return goto(*stand)  # across the pocket, beside the side to clear
        self.moves_refused = WALLED_IN - 2  # walk again soon: the side may be open by then
        if side in own:
            del self.sites[own[side]]
            return {"type": "dismantle", "x": side[0], "y": side[1]}
        self.last_target = side
        return gather(side)

    def _make_way(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """Others stand in its way on a narrow way (a road one tile wide between rock and
        trees), and it in theirs: every walk is stopped, on both sides, for good. Step back to
        the nearest open place, off the narrow way, and wait there a random while so the others
        can pass; then go on. None when there is no such place behind it."""
        here, tick = me(obs), obs["tick"]
        if self.passing is None:
            self.passing = self._passing_place(obs)
            self.passing_until = None
            if self.passing is None:
                self.jammed = 0
                return None
        if self.passing_until is None:
            if here != self.passing:
                action = obs["self"]["action"]
                if action is not None and action["type"] == "move_to" and (
                        action["args"]["x"], action["args"]["y"]) == self.passing:
                    return None
                return self._go(self.passing)
            self.passing_until = tick + self.rng.randint(*PASSING_WAIT)
        if tick < self.passing_until:
            return unless_doing(obs, {"type": "wait", "ticks": min(30, self.passing_until - tick)})
        self.passing, self.passing_until, self.jammed = None, None, 0
        return None

    def _beside_another(self, obs: dict[str, Any]) -> bool:
        """Another character right beside it (a sheep or a boar walks on by itself)."""
        here, mine = me(obs), obs["self"]["id"]
        return any(e["kind"] == "character" and e["id"] != mine and near(here, (e["x"], e["y"]), 1)
                   for e in obs["entities"])

    def _passing_place(self, obs: dict[str, Any]) -> Pos | None:
        """The nearest remembered tile it can walk to without passing anyone, in the open (six
        or more open tiles in the 3x3 block around it): others walk round a body standing
        there."""
        tiles = self.notes.tiles
        bodies = {(e["x"], e["y"]) for e in obs["entities"]}
        taken = self.seen_structures | {(st["x"], st["y"]) for st in obs["structures"]}

        def open_ground(p: Pos) -> bool:
            return tiles.get(p) in WALKABLE_GROUND and p not in taken

        here = me(obs)
        seen, frontier = {here}, [here]
        for _ in range(PASSING_REACH):
            nxt = []
            for x, y in frontier:
                for q in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                    if q in seen or q in bodies or not open_ground(q):
                        continue
                    seen.add(q)
                    nxt.append(q)
            for q in sorted(nxt):
                block = sum(open_ground((q[0] + dx, q[1] + dy))
                            for dx in (-1, 0, 1) for dy in (-1, 0, 1))
                if block >= 6:
                    return q
            frontier = nxt
        return None

    def _explore(self, obs: dict[str, Any], systematic: bool = False) -> dict[str, Any]:
        """Somewhere not yet seen: a random nearby place, or (looking for iron or coal it knows
        nowhere of) the nearest unseen point of a grid over the map."""
        x, y = me(obs)
        if self.explore_to is not None and obs["tick"] - self.explore_since > EXPLORE_PATIENCE:
            self.avoid.add(self.explore_to)  # a point it cannot get to or see: not again
            self.explore_to = None
        if (
            self.explore_to is None
            or near((x, y), self.explore_to, 2)
            or (self.explore_to in self.notes.tiles and not self.explore_known)
        ):
            waypoint = self._unseen_waypoint(x, y) if systematic else None
            self.explore_known = False
            if waypoint is None and self.explore_refused >= LOST:
                # Unseen points, time after time, with no way to them (inside rock or water, as
                # most are once the open land is seen): somewhere remembered and open instead.
                waypoint = self.notes.open_frontier(self.rng, x, y)
                self.explore_known = waypoint is not None
            self.explore_to = waypoint or self.notes.frontier(self.rng, x, y)
            self.explore_since = obs["tick"]
        return self._go(self.explore_to)

    def _unseen_waypoint(self, x: int, y: int) -> Pos | None:
        """The nearest point of a coarse grid over the map it has not seen: exploring ring by
        ring finds a far seam of coal in minutes where a random walk may take an hour."""
        size = self.notes.size
        best, best_d = None, 10**9
        for gy in range(WAYPOINT_STEP // 2, size, WAYPOINT_STEP):
            for gx in range(WAYPOINT_STEP // 2, size, WAYPOINT_STEP):
                p = (gx, gy)
                if p in self.notes.tiles or p in self.avoid:
                    continue
                d = abs(gx - x) + abs(gy - y)
                if d < best_d:
                    best, best_d = p, d
        return best

    def _fetch(self, obs: dict[str, Any], kind: str) -> dict[str, Any]:
        x, y = me(obs)
        target = self._source(kind, x, y)
        if kind in DUG and nearest_reachable(self.notes, kind, x, y, avoid=self.avoid) is None:
            dig = self._dig(obs, kind)  # no open face known: dig to a seam inside the rock
            if dig is not None:
                return dig
        if target is None:
            return self._explore(obs, systematic=kind in DUG)
        if adjacent((x, y), target):
            self.last_target = target
            return gather(target)
        return self._go(target)

    def _source(self, kind: str, x: int, y: int) -> Pos | None:
        """The nearest known source of `kind` (as the crow flies), but not back to the one it
        just turned from: a walk toward one can bring another nearer whose way leads back, and
        it turned back and forth between two flax plants for the last hour (planner, seed 5)."""
        target = self.notes.nearest(kind, x, y, avoid=self.avoid)
        last, before, flips = self.fetch_trail.get(kind, (None, None, 0))
        if target is not None and target == before and last is not None:
            flips += 1  # back to the one before: once is fine, again and again is not
            if (flips >= FLIPS and self.notes.tiles.get(last) == kind
                    and last not in self.avoid):
                self.fetch_trail[kind] = (last, before, flips)
                return last  # keep going to the one it turned to
        elif target != last:
            flips = 0
        if target != last:
            self.fetch_trail[kind] = (target, last, flips)
        return target

    def _dig(self, obs: dict[str, Any], kind: str) -> dict[str, Any] | None:
        """Coal and iron sit mostly inside rock: the cheapest way to a known seam, walking on
        open ground and mining through rock (a mined tile becomes ground), and the next step of
        it. None when no known seam can be got at (then it looks for one)."""
        here = me(obs)
        plan = self.dig_plans.get(kind)
        if plan is None or not self._plan_holds(plan, kind):
            blocked = self.avoid | self.seen_structures | self._blocked()
            blocked |= {(e["x"], e["y"]) for e in obs["entities"]}
            plan = dig_route(self.notes, here, kind, blocked)
            self.dig_plans[kind] = plan
            if plan is None:
                return None
        # The first tile of the route still to be mined: stand next to it and gather it.
        for i, p in enumerate(plan):
            if self.notes.tiles.get(p) in MINEABLE:
                if adjacent(here, p):
                    self.last_target = p
                    return unless_doing(obs, gather(p))
                before = plan[i - 1] if i > 0 else None
                if before is None or self.notes.tiles.get(before) not in OPEN:
                    self.dig_plans[kind] = None
                    return None
                # Walked up to it and still not there (something stands on it): another way.
                if self.dig_at != (here, before):
                    self.dig_at, self.dig_since = (here, before), obs["tick"]
                elif obs["tick"] - self.dig_since > DIG_PATIENCE:
                    self.avoid.add(before)
                    self.dig_plans[kind], self.dig_at = None, None
                return self._go(before)
        self.dig_plans[kind] = None
        return None

    def _plan_holds(self, plan: list[Pos], kind: str) -> bool:
        end = plan[-1]
        return self.notes.tiles.get(end) == kind and end not in self.avoid and not any(
            p in self.avoid for p in plan)

    def _hunt(self, obs: dict[str, Any], kind: str) -> dict[str, Any]:
        x, y = me(obs)
        # One across water or behind others' walls (the world had no way to it) is left alone.
        prey = [e for e in obs["entities"] if e["kind"] == kind and (e["x"], e["y"]) not in self.avoid]
        if not prey:
            return self._last_seen_prey(obs) or self._explore(obs)
        e = min(prey, key=lambda e: abs(e["x"] - x) + abs(e["y"] - y))
        if max(abs(e["x"] - x), abs(e["y"] - y)) <= 1:
            return {"type": "attack", "target": e["id"]}
        return self._go((e["x"], e["y"]))

    def _last_seen_prey(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """No boar in sight: the nearest one seen lately, where it was (boars wander slowly, and
        nine hunters share fourteen of them). One not there on arrival is forgotten."""
        here, tick = me(obs), obs["tick"]
        seen = {i: (p, t) for i, (p, t) in self.prey_seen.items()
                if tick - t <= PREY_MEMORY and p not in self.avoid and not near(here, p, 2)}
        self.prey_seen = seen
        if not seen:
            return None
        spot = min((p for p, _ in seen.values()),
                   key=lambda p: (abs(p[0] - here[0]) + abs(p[1] - here[1]), p))
        return self._go(spot)

    def _place(
        self, obs: dict[str, Any], item: str, near_site: str | None = None
    ) -> dict[str, Any]:
        items = inv(obs)
        for mat, n in COST[item].items():
            if items.get(mat, 0) < n and mat in SOURCE:
                return self._fetch(obs, SOURCE[mat])
        here = me(obs)
        target = self.place_target
        if target is not None and self._free_to_build(obs, target):
            # A crowded workbench: the free tile found nearby (below), walked up to.
            if adjacent(here, target):
                self.place_target, self.no_spot = None, 0
                self.last_target = target
                return {"type": "place", "item": item, "x": target[0], "y": target[1]}
            stand = stand_spot(self.notes, here, target, self._blocked())
            if stand is not None:
                return self._go(stand)
        self.place_target = None
        site = self.sites.get(near_site) if near_site else None
        if site is not None and not near(here, site, 1) and self.no_spot < CROWDED:
            return self._to_site(obs, near_site)
        spot = self._spot(obs)
        if spot is None:
            self.no_spot += 1
            if self.no_spot >= CROWDED:
                taken = self._taken(obs)
                anchor = site or here
                self.place_target = self.notes.open_spot_near(*anchor, taken, radius=10)
            x, y = here
            return self._go(self.notes.frontier(self.rng, x, y, reach=4))
        self.no_spot = 0
        self.last_target = spot
        return {"type": "place", "item": item, "x": spot[0], "y": spot[1]}

    def _crowded(self, obs: dict[str, Any]) -> bool:
        """Others' structures near here: a shared world's plaza fills with stations and houses,
        and a base among them gets walled in."""
        here = me(obs)
        others = [p for p in self.seen_structures if near(here, p, CROWD_RADIUS)]
        return len(others) >= CROWD_STRUCTURES

    def _taken(self, obs: dict[str, Any]) -> set[Pos]:
        """Tiles no station goes on: anything standing or lying there, its house and way round."""
        taken = {(e["x"], e["y"]) for e in obs["entities"]}
        taken |= {(st["x"], st["y"]) for st in obs["structures"]}
        taken |= {(b["x"], b["y"]) for b in obs.get("loot", [])}
        return taken | self.seen_structures | self._blocked() | self.house.footprint()

    def _free_to_build(self, obs: dict[str, Any], p: Pos) -> bool:
        return self.notes.tiles.get(p) in (".", ",", "_") and p not in self._taken(obs)

    def _spot(self, obs: dict[str, Any]) -> Pos | None:
        """A free buildable neighbour that does not wall the character in: corners first, and a
        side only while two other sides stay open."""
        x, y = me(obs)
        busy = {(e["x"], e["y"]) for e in obs["entities"]}
        busy |= {(s["x"], s["y"]) for s in obs["structures"]}
        busy |= {(b["x"], b["y"]) for b in obs.get("loot", [])}
        busy |= self.house.footprint()  # stations stay off the house and the way around it
        sides = [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]
        open_sides = [
            p for p in sides if self.notes.tiles.get(p) in (".", ",", "_", "=") and p not in busy
        ]
        for p in ((x + 1, y + 1), (x - 1, y + 1), (x + 1, y - 1), (x - 1, y - 1)):
            if self.notes.tiles.get(p) in (".", ",", "_") and p not in busy and p not in self.avoid:
                return p
        if len(open_sides) >= 3:
            for p in open_sides:
                if self.notes.tiles.get(p) in (".", ",", "_") and p not in self.avoid:
                    return p
        return None

    def _make(
        self,
        obs: dict[str, Any],
        items: dict[str, int],
        station: str,
        recipe: str,
        needs: dict[str, int],
        count: int = 1,
        batch: bool = False,
    ) -> dict[str, Any]:
        """Craft `count` (as many as the materials allow); with `batch`, first gather the
        materials for all of them, so one walk to the station makes the whole lot."""
        for item, n in needs.items():
            if items.get(item, 0) < n * (count if batch else 1):
                return self._fetch(obs, SOURCE[item])
        if station not in self.sites:
            return self._place(obs, station, near_site="workbench")
        site = self.sites[station]
        if not near(me(obs), site, 2):
            return self._to_site(obs, station)
        most = min(items.get(m, 0) // n for m, n in needs.items()) if needs else count
        return {"type": "craft", "recipe": recipe, "count": max(1, min(count, most))}

    def _buy(self, obs: dict[str, Any], item: str, count: int) -> dict[str, Any]:
        merchant = tuple(obs["landmarks"]["merchant"])
        if not adjacent(me(obs), merchant):
            return self._go(merchant)
        return {"type": "buy", "item": item, "count": count}


def _pieces(obs: dict[str, Any], own: bool) -> set[Pos]:
    """Where the structures and floors in view stand that are its own (`own`) or others'."""
    mine = obs["self"]["id"]
    return {(p["x"], p["y"]) for p in (*obs["structures"], *obs.get("floors", ()))
            if (p.get("owner") == mine) == own}
