"""What one character of the strategy knows and has decided so far, shared by its goals
(asiworld.agents.bots.goals): its parameter set, its notes of the map and of the dungeon it is
in, its stations, the places it has no way to, its house, its streak and its losses. It learns
from each observation and from the world's answer to each action; the goals read it and write
the little each of them decides."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from .rulebook import day_ticks, price, streak_days
from .skills import House, MapNotes, me, near

if TYPE_CHECKING:  # parameters.py reads the goals' names from goals/, which import this
    from .parameters import Params

Pos = tuple[int, int]
WALKABLE_INSIDE = set(":EoO;")  # dungeon floor, entrance, portals, sanctum floor
FOODS = ("berry_stew", "cooked_meat", "berries")
MEALS = ("berry_stew", "cooked_meat")  # what cooking means: food made at the stove
OUTFIT_PRICE = price("travel_outfit_design")  # the merchant's price (merchant.toml)
STREAK_DAYS = streak_days()  # days in a row without a knockdown, for the Royal Tomb stage
STREAK_BY = 9600  # hold the risky tiers for a streak that ends by this tick (minute 160)
DAY_TICKS = day_ticks()  # one day: 30 simulation minutes of 60 ticks (world.toml)
MOST_POTIONS = 24  # the most it carries into one tier
JAM_WINDOW = 60  # walks stopped from one place within this many ticks count as one jam


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


class Character:
    """The shared notes of one character (what every goal reads and writes)."""

    def __init__(self, params: Params, rng: random.Random):
        self.p = params
        self.rng = rng
        self.notes = MapNotes()
        self.sites: dict[str, Pos] = {}
        self.avoid: set[Pos] = set()
        self.last_target: Pos | None = None
        self.explore_to: Pos | None = None
        self.dungeon: DungeonNotes | None = None
        self.sigils_offered = False
        self.losses: dict[int, int] = {}  # knockdowns inside each tier (4: the Sanctum)
        self.house = House()  # the locked stone home with the bed inside (skills.House)
        self.seen_structures: set[Pos] = set()  # anyone's, so the house site avoids them
        self.others_floors: set[Pos] = set()  # floor tiles others laid (a house of theirs)
        self.old_house: set[Pos] = set()  # its pieces of a house given up, to take down
        self.take_down_refused = 0
        self.calm_night = False  # a whole night without damage has been had
        self.streak = 0  # full days in a row without a knockdown, from the day reports
        self.streak_met = False
        self.down_today = False
        # A meal made at the stove: Self-sufficiency asks for one, and a potion is not a meal.
        self.cooked_meal = False
        self.entering: int | None = None  # the tier of the last `enter`
        self.iron_poor = False  # armor and lock given up: no more iron or coal to be found
        self.explore_since = 0  # tick it set out for the point it explores toward
        self.explore_refused = 0  # such points in a row the world had no way to
        self.explore_known = False  # the point is remembered open ground, not an unseen one
        self.last_walk: tuple[dict, Pos] | None = None  # the last walk answered, from where
        self.same_walk = 0  # times in a row that walk was answered from the same place
        self.prey_seen: dict[int, tuple[Pos, int]] = {}  # boars seen: where, at what tick
        self.site_walk: str | None = None  # the station this decision walks to
        self.site_refused: dict[str, int] = {}  # walks to a station refused in a row
        self.moves_refused = 0  # walks refused in a row, wherever to
        self.walking = False  # this decision's answer is a walk
        self.home_given_up = False
        self.jammed = 0  # walks in a row stopped by bodies standing in the way
        self.jam_at: tuple[Pos, int] | None = None  # where and in which window the last was
        self.passing: Pos | None = None  # where it steps aside to let others by

    # ------------------------------------------------------------------ learning
    def feedback(self, result: dict[str, Any]) -> None:
        ok = bool(result.get("ok"))
        if not ok and self.passing is not None and self.last_target == self.passing:
            self.passing = None  # no way to the place to step aside: go on as before
            self.jammed = 0
        if not ok and self.last_target is not None:
            self.failed(self.last_target)
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

    def failed(self, target: Pos) -> None:
        if self.dungeon is not None:
            self.dungeon.failed.add(target)
        else:
            self.avoid.add(target)
            if self.explore_to == target:
                self.explore_to = None
                self.explore_refused += 1

    def learn(self, obs: dict[str, Any]) -> None:
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
                self.day_report(e)
            if kind == "op_failed" and e.get("type") == "move_to":
                # Stopped on the way: "is blocked" is the world's word for bodies in the way
                # (others on a narrow road between rock, and it in theirs).
                jam = "is blocked" in e.get("message", "") and self.beside_another(obs)
                again = self.jam_at == (me(obs), obs["tick"] // JAM_WINDOW)
                self.jammed = (self.jammed + 1 if again else 1) if jam else 0
                self.jam_at = (me(obs), obs["tick"] // JAM_WINDOW) if jam else None
                if self.passing is not None and self.last_target == self.passing:
                    self.passing, self.jammed = None, 0
            elif kind == "op_done" and e.get("type") == "move_to":
                self.jammed = 0
            if kind == "op_failed" and self.last_target is not None:
                self.failed(self.last_target)
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

    def day_report(self, e: dict[str, Any]) -> None:
        if not e.get("full", True):
            return  # a day joined part-way neither counts nor breaks a streak
        self.streak = self.streak + 1 if int(e.get("downs", 0)) == 0 else 0
        self.streak_met = self.streak_met or self.streak >= STREAK_DAYS
        self.down_today = False

    def beside_another(self, obs: dict[str, Any]) -> bool:
        """Another character right beside it (a sheep or a boar walks on by itself)."""
        here, mine = me(obs), obs["self"]["id"]
        return any(e["kind"] == "character" and e["id"] != mine and near(here, (e["x"], e["y"]), 1)
                   for e in obs["entities"])

    def hold_for_streak(self, obs: dict[str, Any]) -> bool:
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

    def potions_for(self, tier: int) -> int:
        """Potions it carries into `tier`: its set's number, and more for each time it was
        knocked down in there (a fight lost for want of them is prepared better next time)."""
        extra = self.p.loss_potions * self.losses.get(tier, 0)
        return min(MOST_POTIONS, self.p.potions_for(tier) + extra)

    def iron_plan(self) -> set[str]:
        """The pieces of its plan that take iron ingots."""
        plan = set()
        if self.p.weapon == "iron":
            plan |= {"anvil", "iron_sword"}
        if self.armor() == "iron":
            plan |= {"anvil", "iron_armor"}
        if self.p.cook:
            plan.add("stove")
        if self.p.production:
            plan |= {"tailoring_table", "travel_outfit"}
        if self.builds_home():
            plan.add("lock")
        return plan

    def armor(self) -> str:
        if self.p.armor == "iron" and self.iron_poor:
            return "leather"
        return self.p.armor

    def builds_home(self) -> bool:
        if self.house.locked:
            return self.p.home
        return self.p.home and not self.home_given_up and not (
            self.iron_poor and not self.house.lock_fitted)

    def done(self, thing: str, have: set, tasks: dict) -> bool:
        if thing in ("anvil", "stove", "tailoring_table"):
            return thing in self.sites
        if thing == "travel_outfit":
            return "production" in tasks or "travel_outfit" in have
        return thing in have

    def next_tier(
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

    def has(self, obs: dict[str, Any], items: dict[str, int]) -> set[str]:
        """What it carries or wears."""
        return {k for k, v in items.items() if v} | {
            v for v in obs["self"]["equipment"].values() if v}

    def outfit_done(self, obs: dict[str, Any], items: dict[str, int]) -> bool:
        """The travel outfit asks nothing more of it: tailored, or not in its set's plan."""
        tasks = obs["self"].get("tasks", {})
        return not self.p.production or self.done("travel_outfit", self.has(obs, items), tasks)

    def tier_ahead(self, obs: dict[str, Any], items: dict[str, int]) -> int | None:
        """The tier it goes to next (4: the Sanctum), or None (next_tier)."""
        s = obs["self"]
        return self.next_tier(items, s.get("tasks", {}), s["coins"], self.outfit_done(obs, items))

    def blocked(self) -> set[Pos]:
        """Tiles nobody stands on: refused targets, its stations and bed, its walls, and the
        structures of others it has seen (a spot beside a wall that is another's station is
        walked to and never stood on)."""
        return self.avoid | set(self.sites.values()) | self.house.walls() | self.seen_structures

    def taken(self, obs: dict[str, Any]) -> set[Pos]:
        """Tiles no station goes on: anything standing or lying there, its house and way round."""
        taken = {(e["x"], e["y"]) for e in obs["entities"]}
        taken |= {(st["x"], st["y"]) for st in obs["structures"]}
        taken |= {(b["x"], b["y"]) for b in obs.get("loot", [])}
        return taken | self.seen_structures | self.blocked() | self.house.footprint()
