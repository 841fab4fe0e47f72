"""Skills the built-in configurations share: a map remembered from observations (agents keep
their own notes, like an outside agent would), finding the nearest known source, exploring,
and small action builders. Nothing here reads the world directly."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import numpy as np

from .rulebook import inputs

TILE = {  # the one-character tile codes of observations (content/terrain.toml)
    "tree": "T", "rock": "#", "coal": "c", "iron": "i", "flax": "f", "bush": "b",
    "water": "~", "grass": ".", "sand": ",", "ground": "_", "plaza": "=",
}
SOURCES = "T#cifb"
SPACE = ord(" ")  # a tile not in view
BUILDABLE = ".,_"


class MapNotes:
    """Every tile the character has seen, by position, and where each kind of source is."""

    def __init__(self) -> None:
        self.tiles: dict[tuple[int, int], str] = {}
        self.sources: dict[str, set[tuple[int, int]]] = {ch: set() for ch in SOURCES}
        self.size = 128
        self.area = 0
        # the last view noted, where it was: a view the same as then is noted already (a
        # character that stands or works sees the same rows decision after decision)
        self._noted_at: tuple[int, int] | None = None
        self._noted: tuple[str, ...] = ()
        # what `update` noted, as tile bytes by row and column (a space where nothing is): a
        # view that moved is compared with it whole, so only the tiles that differ are walked
        # in Python (a walk mostly sees tiles it has seen, one row or column new)
        self._grid = np.full((0, 0), SPACE, dtype=np.uint8)
        # whether the grid holds all of `tiles` (a map written by hand, as tests do, is not in it)
        self._grid_of, self._grid_count = self.tiles, 0

    def update(self, obs: dict[str, Any]) -> None:
        view = obs["view"]
        if view.get("area", 0) != self.area:
            self.area = view.get("area", 0)
            if self.area != 0:
                return
        if self.area != 0:
            return
        plaza = obs.get("landmarks", {}).get("plaza")
        if plaza:
            self.size = plaza[0] * 2
        x0, y0 = view["x0"], view["y0"]
        rows = tuple(view["tiles"])
        if self._noted_at == (x0, y0) and self._noted == rows:
            return
        self._noted_at, self._noted = (x0, y0), rows
        if not rows:
            return
        h, w = len(rows), len(rows[0])
        seen = np.frombuffer("".join(rows).encode("latin-1"), dtype=np.uint8)
        if x0 < 0 or y0 < 0 or seen.size != h * w:  # not a map's window: tile by tile
            self._note(x0, y0, [(i, j) for i, row in enumerate(rows) for j in range(len(row))],
                       rows)
            self._grid = np.full((0, 0), SPACE, dtype=np.uint8)
            self._grid_of = None  # it no longer holds all that is noted
            return
        seen = seen.reshape(h, w)
        known = self._window(x0, y0, w, h)
        ys, xs = np.nonzero((seen != known) & (seen != SPACE))
        if len(ys):
            whole = self.grid() is not None
            self._note(x0, y0, zip(ys.tolist(), xs.tolist(), strict=True), rows)
            known[ys, xs] = seen[ys, xs]
            if whole:
                self._grid_count = len(self.tiles)

    def grid(self) -> np.ndarray | None:
        """The noted tiles as bytes by row (y) and column (x) from (0, 0), SPACE where none is
        noted; None unless it holds all of `tiles` (tiles written by hand are not in it)."""
        if self.tiles is not self._grid_of or len(self.tiles) != self._grid_count:
            return None
        return self._grid

    def _note(self, x0: int, y0: int, cells: Iterable[tuple[int, int]],
              rows: tuple[str, ...]) -> None:
        """Note the view's tiles at `cells` ((row, column) pairs, row after row as seen)."""
        tiles, sources = self.tiles, self.sources
        for i, j in cells:
            ch = rows[i][j]
            if ch == " ":
                continue
            pos = (x0 + j, y0 + i)
            old = tiles.get(pos)
            if old == ch:
                continue
            if old in sources:
                sources[old].discard(pos)
            tiles[pos] = ch
            if ch in sources:
                sources[ch].add(pos)

    def _window(self, x0: int, y0: int, w: int, h: int) -> np.ndarray:
        """The noted tile bytes under a view, the grid grown to hold it (a view ends inside
        the map, so it grows to the map's size at most)."""
        grid = self._grid
        if grid.shape[0] < y0 + h or grid.shape[1] < x0 + w:
            grown = np.full((max(grid.shape[0], y0 + h, self.size),
                             max(grid.shape[1], x0 + w, self.size)), SPACE, dtype=np.uint8)
            grown[:grid.shape[0], :grid.shape[1]] = grid
            grid = self._grid = grown
        return grid[y0:y0 + h, x0:x0 + w]

    def nearest(self, kinds: str, x: int, y: int, avoid: set | None = None,
                max_dist: int = 999) -> tuple[int, int] | None:
        best, best_d = None, max_dist + 1
        for ch in kinds:
            for p in self.sources.get(ch, ()):
                if avoid and p in avoid:
                    continue
                d = abs(p[0] - x) + abs(p[1] - y)
                if d < best_d or (d == best_d and best is not None and p < best):
                    best, best_d = p, d
        return best

    def open_spot_near(self, x: int, y: int, taken: set, radius: int = 6) -> tuple[int, int] | None:
        """A remembered buildable tile near (x, y), not in `taken`."""
        for r in range(1, radius + 1):
            for dy in range(-r, r + 1):
                for dx in range(-r, r + 1):
                    p = (x + dx, y + dy)
                    if max(abs(dx), abs(dy)) == r and self.tiles.get(p) in tuple(BUILDABLE) \
                            and p not in taken:
                        return p
        return None

    def frontier(self, rng: random.Random, x: int, y: int, reach: int = 30) -> tuple[int, int]:
        """A place not yet seen, within reach: somewhere new to look."""
        for _ in range(30):
            tx = min(max(x + rng.randint(-reach, reach), 1), self.size - 2)
            ty = min(max(y + rng.randint(-reach, reach), 1), self.size - 2)
            if (tx, ty) not in self.tiles:
                return (tx, ty)
        return (rng.randint(1, self.size - 2), rng.randint(1, self.size - 2))

    def open_frontier(self, rng: random.Random, x: int, y: int, reach: int = 40,
                      tries: int = 200) -> tuple[int, int] | None:
        """A remembered open tile within reach, one beside an unseen tile if the sample has one,
        else any a few steps off: a walk the world does not refuse. An unseen point picked at
        random mostly lies inside rock or water, where no way leads."""
        keys = list(self.tiles)
        if not keys:
            return None
        fallback = None
        for _ in range(tries):
            p = keys[rng.randrange(len(keys))]
            d = abs(p[0] - x) + abs(p[1] - y)
            if self.tiles[p] not in WALKABLE_GROUND or d < 6 or d > reach:
                continue
            px, py = p
            if any(q not in self.tiles
                   for q in ((px + 1, py), (px - 1, py), (px, py + 1), (px, py - 1))):
                return p
            fallback = fallback or p
        return fallback


def inv(obs: dict[str, Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    for stack in obs["self"]["inventory"]:
        out[stack["item"]] = out.get(stack["item"], 0) + stack["count"]
    return out


def adjacent(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1


def near(a: tuple[int, int], b: tuple[int, int], d: int) -> bool:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) <= d


def me(obs: dict[str, Any]) -> tuple[int, int]:
    return obs["self"]["x"], obs["self"]["y"]


def free_neighbour(obs: dict[str, Any], notes: MapNotes, avoid: set) -> tuple[int, int] | None:
    """An adjacent buildable tile with nothing on it, to place something on, that leaves the
    character a way out: never a tile that would close the pocket it stands in (a station is
    solid; a forager that set its workbench in the one gap of a nook of trees and flax stood
    there for the rest of the run, every walk refused)."""
    x, y = me(obs)
    busy = {(e["x"], e["y"]) for e in obs["entities"]}
    solid = _solid(obs)
    busy |= solid
    busy |= {(f["x"], f["y"]) for f in obs.get("floors", [])}
    busy |= {(b["x"], b["y"]) for b in obs.get("loot", [])}
    for dx, dy in ((1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)):
        p = (x + dx, y + dy)
        if (notes.tiles.get(p) in tuple(BUILDABLE) and p not in busy and p not in avoid
                and len(pocket(notes.tiles, (x, y), solid | {p}, OPEN_ENOUGH, unseen_open=True))
                >= OPEN_ENOUGH):
            return p
    return None


OPEN_ENOUGH = 24  # tiles: ground this large around a character is not a pocket it is shut in


def pocket(tiles: dict[tuple[int, int], str], start: tuple[int, int],
           taken: set[tuple[int, int]], limit: int, unseen_open: bool = False
           ) -> set[tuple[int, int]]:
    """The open ground a character at `start` can walk to, north, south, east and west, past
    nothing `taken`, up to `limit` tiles (enough to know it is not shut in). With `unseen_open`
    a tile it has not seen counts as open: only what it knows shuts it in."""
    region, frontier = {start}, [start]
    while frontier and len(region) < limit:
        x, y = frontier.pop()
        for q in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if q in region or q in taken:
                continue
            tile = tiles.get(q)
            if tile in OPEN_GROUND or (unseen_open and tile is None):
                region.add(q)
                frontier.append(q)
    return region


def boxed_in(obs: dict[str, Any], notes: MapNotes) -> set[tuple[int, int]] | None:
    """The pocket of ground the character is shut in (every walk out of it is refused), or None
    when it is not shut in."""
    if obs["self"].get("area", 0) != 0:
        return None
    room = pocket(notes.tiles, me(obs), _solid(obs), OPEN_ENOUGH, unseen_open=True)
    return room if len(room) < OPEN_ENOUGH else None


def _solid(obs: dict[str, Any]) -> set[tuple[int, int]]:
    """Where the structures in sight stand that nobody walks through (a door lets its people by)."""
    return {(s["x"], s["y"]) for s in obs["structures"] if s["kind"] != "door"}


def goto(x: int, y: int) -> dict[str, Any]:
    return {"type": "move_to", "x": int(x), "y": int(y)}


def gather(p: tuple[int, int]) -> dict[str, Any]:
    return {"type": "gather", "x": int(p[0]), "y": int(p[1])}


def unless_doing(obs: dict[str, Any], action: dict[str, Any]) -> dict[str, Any] | None:
    """None when the character is already doing exactly this action: sending it again would
    replace the running operation and start it over (a chest takes 2 ticks to open; an agent
    deciding every tick would never finish it)."""
    running = obs["self"]["action"]
    if running is not None and running["type"] == action["type"] and all(
        running["args"].get(k) == v for k, v in action.items() if k != "type"
    ):
        return None
    return action


FOOD_ORDER = ("berry_stew", "cooked_meat", "berries", "raw_meat")


def best_food(items: dict[str, int]) -> str | None:
    for food in FOOD_ORDER:
        if items.get(food):
            return food
    return None


# ------------------------------------------------------------------ dungeons (rusher, builder)
# Added for the rusher and the builder: what a character remembers of the instance it is in,
# and one step of fighting through it. How much risk it takes is the caller's choice.

INSIDE_WALKABLE = ":EoO;"  # dungeon floor, entrance, both portals, sanctum floor


class InstanceNotes:
    """The tiles, chests, entrance, portal and boss of the dungeon instance the character is in."""

    def __init__(self, area: int) -> None:
        self.area = area
        self.tiles: dict[tuple[int, int], str] = {}
        self.entrance: tuple[int, int] | None = None
        self.portal: tuple[int, int] | None = None
        self.boss: tuple[int, int] | None = None
        self.cleared = False
        self.failed: set[tuple[int, int]] = set()  # targets the way to which was refused

    def update(self, obs: dict[str, Any]) -> None:
        view = obs["view"]
        x0, y0 = view["x0"], view["y0"]
        for i, row in enumerate(view["tiles"]):
            for j, ch in enumerate(row):
                if ch == " ":
                    continue
                pos = (x0 + j, y0 + i)
                self.tiles[pos] = ch
                if ch in "oO":
                    self.portal = pos
                    self.cleared = self.cleared or ch == "O"
                elif ch == "E":
                    self.entrance = pos
        for e in obs["entities"]:
            if e.get("boss"):
                self.boss = (e["x"], e["y"])
        for e in obs["events"]:
            if e["kind"] == "boss_defeated":
                self.cleared = True

    def chests(self) -> list[tuple[int, int]]:
        return [p for p, ch in self.tiles.items() if ch == "C" and p not in self.failed]

    def unexplored(self, here: tuple[int, int]) -> tuple[int, int] | None:
        """The nearest remembered floor tile next to a tile never seen: where to look next."""
        best, best_d = None, 10**9
        for (x, y), ch in self.tiles.items():
            if ch not in INSIDE_WALKABLE or (x, y) in self.failed:
                continue
            if any((x + dx, y + dy) not in self.tiles
                   for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))):
                d = abs(x - here[0]) + abs(y - here[1])
                if d < best_d or (d == best_d and best is not None and (x, y) < best):
                    best, best_d = (x, y), d
        return best


def hostiles(obs: dict[str, Any], radius: int = 99) -> list[dict[str, Any]]:
    """Visible hostile creatures within `radius` (Chebyshev), nearest (then weakest) first."""
    x, y = me(obs)
    found = []
    for e in obs["entities"]:
        d = max(abs(e["x"] - x), abs(e["y"] - y))
        if e.get("hostile") and d <= radius:
            found.append((d, e.get("health", 0), e["id"], e))
    return [f[3] for f in sorted(found, key=lambda f: f[:3])]


def crawl(obs: dict[str, Any], notes: InstanceNotes, *, retreat_below: int | None,
          potion_below: int, goal: tuple[int, int] | None = None) -> dict[str, Any] | None:
    """One decision inside an instance: drink, strike, loot, push on toward the boss, or leave.

    retreat_below: below this health walk back to the entrance and leave (None: never).
    potion_below: below this health drink a healing potion when one is carried.
    goal: the current move_to target, so a running walk toward it is not restarted."""
    s = obs["self"]
    here = me(obs)
    items = inv(obs)
    if s["health"] < potion_below and items.get("healing_potion"):
        return {"type": "use", "item": "healing_potion"}
    close = hostiles(obs, 1)
    if close:
        return {"type": "attack", "target": close[0]["id"]}
    walking = s["action"] is not None and s["action"]["type"] == "move_to"
    if s["hunger"] < 40:
        food = best_food(items)
        if food:
            return {"type": "eat", "item": food}

    def walk(p: tuple[int, int]) -> dict[str, Any] | None:
        if walking and goal == p:
            return None
        return goto(*p)

    def leave_by(p: tuple[int, int] | None) -> dict[str, Any] | None:
        if p is None:
            return None
        return {"type": "leave"} if here == p else walk(p)

    if not notes.cleared and retreat_below is not None and s["health"] < retreat_below:
        return leave_by(notes.entrance)
    chests = sorted(notes.chests(), key=lambda p: (abs(p[0] - here[0]) + abs(p[1] - here[1]), p))
    if chests and adjacent(here, chests[0]):
        return unless_doing(obs, gather(chests[0]))
    if notes.cleared:
        if chests:
            return walk(chests[0])
        return leave_by(notes.portal)
    seen = hostiles(obs, 6)
    if seen:
        return walk((seen[0]["x"], seen[0]["y"]))
    if chests and abs(chests[0][0] - here[0]) + abs(chests[0][1] - here[1]) <= 10:
        return walk(chests[0])
    if notes.boss is not None:
        return walk(notes.boss)
    target = notes.unexplored(here)
    if target is not None:
        return walk(target)
    return leave_by(notes.entrance)


OPEN_GROUND = set(".,_=123")  # walkable surface codes: grass, sand, ground, plaza, gates


def nearest_reachable(notes: MapNotes, kinds: str, x: int, y: int, avoid: set | None = None,
                      max_dist: int = 999) -> tuple[int, int] | None:
    """The nearest known source with open ground beside it (north, south, east or west), so a
    walk can end next to it: the inside of a rock mass or a thicket is never picked."""
    best, best_d = None, max_dist + 1
    tiles = notes.tiles
    for ch in kinds:
        for p in notes.sources.get(ch, ()):
            if avoid and p in avoid:
                continue
            d = abs(p[0] - x) + abs(p[1] - y)
            if d > best_d or (d == best_d and best is not None and p > best):
                continue
            px, py = p
            if any(tiles.get(q) in OPEN_GROUND
                   for q in ((px + 1, py), (px - 1, py), (px, py + 1), (px, py - 1))):
                best, best_d = p, d
    return best


# ------------------------------------------------------------------ the house (builder, planner)
# Added for the builder and the planner: a 5x5 house of the character's own (a 3x3 floor, a ring
# of walls, a door in the middle of the south side with a lock), where to put it, where to stand
# while building it, and the next step of building it. Materials and stations come through the
# caller's own craft and fetch, so each configuration keeps its way of working.

WALKABLE_GROUND = set(".,_=")  # where a character may stand on the surface (structures aside)
HOUSE_SIDE = 5
HOUSE_BUILT = ("wall", "door", "floor")


class House:
    """The character's house: its site (top-left corner), what of it stands, and its lock."""

    def __init__(self) -> None:
        self.site: tuple[int, int] | None = None
        self.built: dict[tuple[int, int], str] = {}  # its own walls, doors and floors
        self.lock_fitted = False
        self.locked = False
        self.search_at = -(10**9)  # tick of the last search for a site

    def learn(self, events: list[dict[str, Any]]) -> None:
        """Its own placements, the fitted lock and the home state, from the observation's events."""
        for e in events:
            kind = e["kind"]
            if kind == "placed" and e.get("area", 0) == 0 and e["item"] in HOUSE_BUILT:
                pos = (e["x"], e["y"])
                self.built[pos] = e["item"] if pos not in self.built else "floor+" + e["item"]
            elif kind == "op_done" and e.get("type") == "install_lock":
                self.lock_fitted = True
            elif kind == "home":
                self.locked = bool(e.get("locked"))

    def layout(self) -> tuple[list[tuple[int, int]], list[tuple[int, int]], tuple[int, int]]:
        """(floor tiles, wall tiles, door tile) of the house at its site."""
        assert self.site is not None
        x0, y0 = self.site
        floors = [(x0 + i, y0 + j) for j in range(1, 4) for i in range(1, 4)]
        ring = [(x0 + i, y0 + j) for j in range(5) for i in range(5) if i in (0, 4) or j in (0, 4)]
        door = (x0 + 2, y0 + 4)
        return floors, [p for p in ring if p != door], door

    def bed_tile(self) -> tuple[int, int]:
        """The inside corner away from the door, where the bed goes."""
        assert self.site is not None
        return (self.site[0] + 1, self.site[1] + 1)

    def inside(self, p: tuple[int, int]) -> bool:
        if self.site is None:
            return False
        x0, y0 = self.site
        return x0 + 1 <= p[0] <= x0 + 3 and y0 + 1 <= p[1] <= y0 + 3

    def footprint(self) -> set[tuple[int, int]]:
        """The house and a ring of one tile around it: no station goes there."""
        if self.site is None:
            return set()
        x0, y0 = self.site
        return {(x0 + i, y0 + j) for j in range(-1, 6) for i in range(-1, 6)}

    def walls(self) -> set[tuple[int, int]]:
        """Tiles of its walls already standing (nobody stands there)."""
        return {p for p, kind in self.built.items() if "wall" in kind}


def house_site_ok(notes: MapNotes, x0: int, y0: int, taken: set) -> bool:
    """A 5x5 patch of buildable ground at (x0, y0), none of it taken, with open ground outside
    the door, away from the plaza and the first gate's approach."""
    plaza = notes.size // 2
    if abs(x0 + 2 - plaza) <= 7 and abs(y0 + 2 - plaza) <= 7:
        return False
    tiles = notes.tiles
    for j in range(HOUSE_SIDE):
        for i in range(HOUSE_SIDE):
            p = (x0 + i, y0 + j)
            if tiles.get(p) not in tuple(BUILDABLE) or p in taken:
                return False
    outside_door = (x0 + 2, y0 + 5)
    return tiles.get(outside_door) in WALKABLE_GROUND and outside_door not in taken


def find_house_site(
    notes: MapNotes, centres: list[tuple[int, int]], taken: set, radius: int = 15
) -> tuple[int, int] | None:
    """The nearest good house site around the first centre that has one (rings outward)."""
    for cx, cy in centres:
        for r in range(2, radius + 1):
            for dy in range(-r, r + 1):
                for dx in range(-r, r + 1):
                    if max(abs(dx), abs(dy)) == r and house_site_ok(notes, cx + dx, cy + dy, taken):
                        return (cx + dx, cy + dy)
    return None


def stand_spot(
    notes: MapNotes,
    here: tuple[int, int],
    target: tuple[int, int],
    blocked: set,
    within: Any = None,
) -> tuple[int, int] | None:
    """A walkable tile next to `target` (not on it, not blocked, and inside `within` when that
    test is given), nearest to `here`."""
    best, best_d = None, 10**9
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            p = (target[0] + dx, target[1] + dy)
            if p == target or p in blocked or (within is not None and not within(p)):
                continue
            if notes.tiles.get(p) not in WALKABLE_GROUND:
                continue
            d = abs(p[0] - here[0]) + abs(p[1] - here[1])
            if d < best_d:
                best, best_d = p, d
    return best


def build_house(
    obs: dict[str, Any],
    items: dict[str, int],
    house: House,
    notes: MapNotes,
    *,
    find_site: Any,
    craft: Any,
    fetch: Any,
    place_at: Any,
    explore: Any,
    blocked: set,
) -> dict[str, Any] | None:
    """The next step toward a locked house, or None once it is locked.

    find_site() -> site or None; craft(station, recipe, needs, count) and fetch(material) and
    place_at(item, tile) and explore() -> action: the caller's own ways of doing those.
    blocked: tiles nobody can stand on (the caller's stations, its walls, refused targets)."""
    if house.locked:
        return None
    if house.site is None:
        if obs["tick"] - house.search_at >= 60:
            house.search_at = obs["tick"]
            house.site = find_site()
        if house.site is None:
            return explore()  # wander while looking for open ground
    floors, walls, door = house.layout()
    todo_floors = [p for p in floors if p not in house.built]
    if todo_floors:
        if not items.get("floor"):
            return craft("workbench", "floor", inputs("floor"), len(todo_floors))
        return place_at("floor", todo_floors[0])
    todo_walls = [p for p in walls if p not in house.built]
    if todo_walls:
        if not items.get("wall"):
            stones = inputs("stone_wall")["stone"]
            if items.get("stone", 0) < stones:
                return fetch("stone")
            return craft(
                "workbench",
                "stone_wall",
                inputs("stone_wall"),
                min(len(todo_walls), items.get("stone", 0) // stones),
            )
        here = me(obs)
        todo_walls.sort(key=lambda p: (abs(p[0] - here[0]) + abs(p[1] - here[1]), p))
        return place_at("wall", todo_walls[0])
    if door not in house.built:
        if not items.get("door"):
            return craft("workbench", "door", inputs("door"), 1)
        return place_at("door", door)
    here = me(obs)
    if not adjacent(here, door):
        spot = stand_spot(notes, here, door, blocked)
        return goto(*(spot or door))
    if not house.lock_fitted:
        return {"type": "install_lock", "x": door[0], "y": door[1]}
    return {"type": "lock", "x": door[0], "y": door[1]}
