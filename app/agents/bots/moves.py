"""The small moves every goal of the strategy makes: walk somewhere, fetch a material (digging
to coal and iron inside rock), explore, set up a station, craft at one, buy from the merchant,
cook potions. They read and write the character's notes (character.py); what only they need
(the way dug toward a seam, the sources turned between) they keep here."""

from __future__ import annotations

import heapq
import itertools
from functools import cache
from typing import Any

from .character import Character, Pos
from .rulebook import inputs, station_costs
from .skills import (
    MapNotes,
    adjacent,
    gather,
    goto,
    inv,
    me,
    near,
    nearest_reachable,
    stand_spot,
    unless_doing,
)

WAYPOINT_STEP = 10  # tiles between the points it explores toward
EXPLORE_PATIENCE = 300  # ticks it walks toward one such point before it gives it up
LOST = 3  # such points in a row with no way to them before it walks to remembered ground
CROWD_RADIUS = 8  # a workbench is not set up with CROWD_STRUCTURES others' within this
CROWD_STRUCTURES = 3
CROWDED = 3  # times without a free tile by the workbench before it builds a little further off
SITE_PATIENCE = 3  # walks to one of its stations refused in a row before it sets up another
DUG = ("c", "i")  # coal and iron: fetched by digging to them when no open face is known
MINEABLE = set("#ci")  # rock, coal, iron: a pickaxe takes them down to ground
OPEN = set(".,_=123")  # open ground a character walks on
MINE_COST = 7  # a rock tile mined costs about this many steps of walking (6 units, fast)
DIG_REACH = 5000  # the most route cost it searches
DIG_PATIENCE = 30  # ticks standing in one place on its way to a tile before it tries another
FLIPS = 10  # turns back in a row between two sources before it keeps to one
KEEP_BERRIES = 4  # berries kept to eat while it gathers for potions
# The stations its plan sets up, and what each costs to place: read from the content, so a
# change to structures.toml reaches the bots (they copied these numbers before).
COST = station_costs(("workbench", "furnace", "anvil", "loom", "stove", "tailoring_table"))
STATIONS = frozenset(COST)  # what it sets up again elsewhere when it cannot get to it
SOURCE = {"wood": "T", "stone": "#", "coal": "c", "fibre": "f", "berries": "b", "iron_ore": "i"}


def dig_route(notes: MapNotes, start: Pos, kind: str, avoid: set) -> list[Pos] | None:
    """The cheapest route from `start` to a known tile of `kind` over remembered tiles: open
    ground costs 1, rock, coal and iron to mine through MINE_COST, the seam itself ends it.
    The route's tiles after `start`, or None."""
    tiles = notes.tiles
    if not _seam_reachable(tiles, start, kind, avoid, notes.grid()):
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


def _seam_reachable(tiles: dict[Pos, str], start: Pos, kind: str, avoid: set,
                    grid: Any = None) -> bool:
    """Whether dig_route's moves (open or mineable tiles, none in `avoid` but the seam) lead
    from `start` to a tile of `kind` at all, so the search runs only when it may find a route
    (the same route: its answer is unchanged). Most calls answer no after going over all the
    ground the character remembers: a flood fill in Python took 17 ms a call and 40 % of a
    300-minute cohort run, so the fill is scipy's labelling of the remembered map as an array.
    The answer is _seam_reachable_walk's (tests/configurations/test_dig_route.py checks it).
    `grid`: the same tiles as MapNotes.grid() keeps them (no array to build from the dict, which
    took most of a call), or None."""
    if not tiles or tiles.get(start) == kind:  # the walk never steps back on its start: walk
        return _seam_reachable_walk(tiles, start, kind, avoid)
    # Imported here: scipy costs a quarter second, and only the strategy's digging reads it.
    import numpy as np
    from scipy import ndimage

    if grid is not None and 0 <= start[0] < grid.shape[1] and 0 <= start[1] < grid.shape[0]:
        x0 = y0 = 0  # the notes' own grid: the whole map from (0, 0), spaces never seen
        height, width = grid.shape
    else:
        count = len(tiles)
        codes = "".join(tiles.values()).encode("latin-1", "replace")
        if len(codes) != count:  # a tile noted as more than one character: not the bots' notes
            return _seam_reachable_walk(tiles, start, kind, avoid)
        xy = np.fromiter(itertools.chain.from_iterable(tiles), dtype=np.int64, count=2 * count)
        xs, ys = xy[0::2], xy[1::2]
        # A border of never-seen tiles round what is known and the start (the slices below
        # would do without it; a grid of the notes has none).
        x0, y0 = min(int(xs.min()), start[0]) - 1, min(int(ys.min()), start[1]) - 1
        width = max(int(xs.max()), start[0]) - x0 + 2
        height = max(int(ys.max()), start[1]) - y0 + 2
        grid = np.zeros((height, width), dtype=np.uint8)  # 0: never seen
        grid[ys - y0, xs - x0] = np.frombuffer(codes, dtype=np.uint8)
    seam = grid == ord(kind)
    # Where the walk may step: open or mineable, not the seam (reaching one ends it), not avoided;
    # and the start, from which it steps to every side.
    walk = _steppable()[grid] & ~seam
    for ax, ay in avoid:
        if 0 <= ax - x0 < width and 0 <= ay - y0 < height:
            walk[ay - y0, ax - x0] = False
    sx, sy = start[0] - x0, start[1] - y0
    walk[sy, sx] = True
    labels, _ = ndimage.label(walk)  # four neighbours, the walk's steps
    reached = labels == labels[sy, sx]
    # Tiles with a seam tile on one of their four sides (slices: a twelfth of the time
    # ndimage.binary_dilation takes for the same array).
    beside = np.zeros_like(seam)
    beside[1:, :] |= seam[:-1, :]
    beside[:-1, :] |= seam[1:, :]
    beside[:, 1:] |= seam[:, :-1]
    beside[:, :-1] |= seam[:, 1:]
    return bool((beside & reached).any())


@cache
def _steppable() -> Any:
    """By a tile's code: open or mineable ground (a step of dig_route's)."""
    import numpy as np

    table = np.zeros(256, dtype=bool)
    table[[ord(ch) for ch in OPEN | MINEABLE]] = True
    return table


def _seam_reachable_walk(tiles: dict[Pos, str], start: Pos, kind: str, avoid: set) -> bool:
    """_seam_reachable as a flood fill in Python, tile by tile: the definition the array's
    labelling must agree with, and the answer where the array cannot stand in."""
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


class Moves:
    """The moves of one character, over its notes."""

    def __init__(self, me: Character):
        self.me = me
        self.dig_plans: dict[str, list[Pos] | None] = {}  # the way to a coal or iron seam
        self.dig_at: tuple[Pos, Pos] | None = None  # (where it stood, where it walked to)
        self.dig_since = 0
        self.no_spot = 0  # times in a row it found no free tile beside it to place a station
        self.place_target: Pos | None = None
        # the last two sources it went for, and how often in a row it turned back between them
        self.fetch_trail: dict[str, tuple[Pos | None, Pos | None, int]] = {}

    def go(self, target: Pos) -> dict[str, Any]:
        self.me.last_target = target
        return goto(*target)

    def to_site(self, obs: dict[str, Any], station: str) -> dict[str, Any]:
        """Walk to one of its stations. One the world has no way to, time after time (trees and
        others' buildings all round it), is given up: the plan sets up another where it can."""
        if self.me.site_refused.get(station, 0) >= SITE_PATIENCE and station in STATIONS:
            del self.me.sites[station]
            self.me.site_refused[station] = 0
            return {"type": "wait", "ticks": 1}
        self.me.site_walk = station
        return self.go(self.me.sites[station])

    def explore(self, obs: dict[str, Any], systematic: bool = False) -> dict[str, Any]:
        """Somewhere not yet seen: a random nearby place, or (looking for iron or coal it knows
        nowhere of) the nearest unseen point of a grid over the map."""
        x, y = me(obs)
        if self.me.explore_to is not None and obs["tick"] - self.me.explore_since > EXPLORE_PATIENCE:
            self.me.avoid.add(self.me.explore_to)  # a point it cannot get to or see: not again
            self.me.explore_to = None
        if (
            self.me.explore_to is None
            or near((x, y), self.me.explore_to, 2)
            or (self.me.explore_to in self.me.notes.tiles and not self.me.explore_known)
        ):
            waypoint = self.unseen_waypoint(x, y) if systematic else None
            self.me.explore_known = False
            if waypoint is None and self.me.explore_refused >= LOST:
                # Unseen points, time after time, with no way to them (inside rock or water, as
                # most are once the open land is seen): somewhere remembered and open instead.
                waypoint = self.me.notes.open_frontier(self.me.rng, x, y)
                self.me.explore_known = waypoint is not None
            self.me.explore_to = waypoint or self.me.notes.frontier(self.me.rng, x, y)
            self.me.explore_since = obs["tick"]
        return self.go(self.me.explore_to)

    def unseen_waypoint(self, x: int, y: int) -> Pos | None:
        """The nearest point of a coarse grid over the map it has not seen: exploring ring by
        ring finds a far seam of coal in minutes where a random walk may take an hour."""
        size = self.me.notes.size
        best, best_d = None, 10**9
        for gy in range(WAYPOINT_STEP // 2, size, WAYPOINT_STEP):
            for gx in range(WAYPOINT_STEP // 2, size, WAYPOINT_STEP):
                p = (gx, gy)
                if p in self.me.notes.tiles or p in self.me.avoid:
                    continue
                d = abs(gx - x) + abs(gy - y)
                if d < best_d:
                    best, best_d = p, d
        return best

    def fetch(self, obs: dict[str, Any], kind: str) -> dict[str, Any]:
        x, y = me(obs)
        target = self.source(kind, x, y)
        if kind in DUG and nearest_reachable(self.me.notes, kind, x, y, avoid=self.me.avoid) is None:
            dig = self.dig(obs, kind)  # no open face known: dig to a seam inside the rock
            if dig is not None:
                return dig
        if target is None:
            return self.explore(obs, systematic=kind in DUG)
        if adjacent((x, y), target):
            self.me.last_target = target
            return gather(target)
        return self.go(target)

    def source(self, kind: str, x: int, y: int) -> Pos | None:
        """The nearest known source of `kind` (as the crow flies), but not back to the one it
        just turned from: a walk toward one can bring another nearer whose way leads back, and
        it turned back and forth between two flax plants for the last hour (planner, seed 5)."""
        target = self.me.notes.nearest(kind, x, y, avoid=self.me.avoid)
        last, before, flips = self.fetch_trail.get(kind, (None, None, 0))
        if target is not None and target == before and last is not None:
            flips += 1  # back to the one before: once is fine, again and again is not
            if (flips >= FLIPS and self.me.notes.tiles.get(last) == kind
                    and last not in self.me.avoid):
                self.fetch_trail[kind] = (last, before, flips)
                return last  # keep going to the one it turned to
        elif target != last:
            flips = 0
        if target != last:
            self.fetch_trail[kind] = (target, last, flips)
        return target

    def dig(self, obs: dict[str, Any], kind: str) -> dict[str, Any] | None:
        """Coal and iron sit mostly inside rock: the cheapest way to a known seam, walking on
        open ground and mining through rock (a mined tile becomes ground), and the next step of
        it. None when no known seam can be got at (then it looks for one)."""
        here = me(obs)
        plan = self.dig_plans.get(kind)
        if plan is None or not self.plan_holds(plan, kind):
            blocked = self.me.avoid | self.me.seen_structures | self.me.blocked()
            blocked |= {(e["x"], e["y"]) for e in obs["entities"]}
            plan = dig_route(self.me.notes, here, kind, blocked)
            self.dig_plans[kind] = plan
            if plan is None:
                return None
        # The first tile of the route still to be mined: stand next to it and gather it.
        for i, p in enumerate(plan):
            if self.me.notes.tiles.get(p) in MINEABLE:
                if adjacent(here, p):
                    self.me.last_target = p
                    return unless_doing(obs, gather(p))
                before = plan[i - 1] if i > 0 else None
                if before is None or self.me.notes.tiles.get(before) not in OPEN:
                    self.dig_plans[kind] = None
                    return None
                # Walked up to it and still not there (something stands on it): another way.
                if self.dig_at != (here, before):
                    self.dig_at, self.dig_since = (here, before), obs["tick"]
                elif obs["tick"] - self.dig_since > DIG_PATIENCE:
                    self.me.avoid.add(before)
                    self.dig_plans[kind], self.dig_at = None, None
                return self.go(before)
        self.dig_plans[kind] = None
        return None

    def plan_holds(self, plan: list[Pos], kind: str) -> bool:
        end = plan[-1]
        return self.me.notes.tiles.get(end) == kind and end not in self.me.avoid and not any(
            p in self.me.avoid for p in plan)

    def place(
        self, obs: dict[str, Any], item: str, near_site: str | None = None
    ) -> dict[str, Any]:
        items = inv(obs)
        for mat, n in COST[item].items():
            if items.get(mat, 0) < n and mat in SOURCE:
                return self.fetch(obs, SOURCE[mat])
        here = me(obs)
        target = self.place_target
        if target is not None and self.free_to_build(obs, target):
            # A crowded workbench: the free tile found nearby (below), walked up to.
            if adjacent(here, target):
                self.place_target, self.no_spot = None, 0
                self.me.last_target = target
                return {"type": "place", "item": item, "x": target[0], "y": target[1]}
            stand = stand_spot(self.me.notes, here, target, self.me.blocked())
            if stand is not None:
                return self.go(stand)
        self.place_target = None
        site = self.me.sites.get(near_site) if near_site else None
        if site is not None and not near(here, site, 1) and self.no_spot < CROWDED:
            return self.to_site(obs, near_site)
        spot = self.spot(obs)
        if spot is None:
            self.no_spot += 1
            if self.no_spot >= CROWDED:
                taken = self.me.taken(obs)
                anchor = site or here
                self.place_target = self.me.notes.open_spot_near(*anchor, taken, radius=10)
            x, y = here
            return self.go(self.me.notes.frontier(self.me.rng, x, y, reach=4))
        self.no_spot = 0
        self.me.last_target = spot
        return {"type": "place", "item": item, "x": spot[0], "y": spot[1]}

    def crowded(self, obs: dict[str, Any]) -> bool:
        """Others' structures near here: a shared world's plaza fills with stations and houses,
        and a base among them gets walled in."""
        here = me(obs)
        others = [p for p in self.me.seen_structures if near(here, p, CROWD_RADIUS)]
        return len(others) >= CROWD_STRUCTURES

    def free_to_build(self, obs: dict[str, Any], p: Pos) -> bool:
        return self.me.notes.tiles.get(p) in (".", ",", "_") and p not in self.me.taken(obs)

    def spot(self, obs: dict[str, Any]) -> Pos | None:
        """A free buildable neighbour that does not wall the character in: corners first, and a
        side only while two other sides stay open."""
        x, y = me(obs)
        busy = {(e["x"], e["y"]) for e in obs["entities"]}
        busy |= {(s["x"], s["y"]) for s in obs["structures"]}
        busy |= {(b["x"], b["y"]) for b in obs.get("loot", [])}
        busy |= self.me.house.footprint()  # stations stay off the house and the way around it
        sides = [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]
        open_sides = [
            p for p in sides if self.me.notes.tiles.get(p) in (".", ",", "_", "=") and p not in busy
        ]
        for p in ((x + 1, y + 1), (x - 1, y + 1), (x + 1, y - 1), (x - 1, y - 1)):
            if self.me.notes.tiles.get(p) in (".", ",", "_") and p not in busy and p not in self.me.avoid:
                return p
        if len(open_sides) >= 3:
            for p in open_sides:
                if self.me.notes.tiles.get(p) in (".", ",", "_") and p not in self.me.avoid:
                    return p
        return None

    def make(
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
                return self.fetch(obs, SOURCE[item])
        if station not in self.me.sites:
            return self.place(obs, station, near_site="workbench")
        site = self.me.sites[station]
        if not near(me(obs), site, 2):
            return self.to_site(obs, station)
        most = min(items.get(m, 0) // n for m, n in needs.items()) if needs else count
        return {"type": "craft", "recipe": recipe, "count": max(1, min(count, most))}

    def buy(self, obs: dict[str, Any], item: str, count: int) -> dict[str, Any]:
        merchant = tuple(obs["landmarks"]["merchant"])
        if not adjacent(me(obs), merchant):
            return self.go(merchant)
        return {"type": "buy", "item": item, "count": count}

    def cook_potions(self, obs: dict[str, Any], items: dict[str, int], n: int) -> dict[str, Any]:
        """Gather berries and flax for `n` potions (some berries kept to eat), then cook them."""
        n = max(1, min(n, 8))
        potion = inputs("healing_potion")
        if items.get("fibre", 0) < potion["fibre"] * n:
            return self.fetch(obs, "f")
        if items.get("berries", 0) < potion["berries"] * n + KEEP_BERRIES:
            return self.fetch(obs, "b")
        return self.make(obs, items, "stove", "healing_potion", {}, count=n)
