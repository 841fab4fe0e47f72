"""Homes and beds. A home is a region of floor fully enclosed by its owner's walls and doors
(no path to the outside that avoids them) with at least one locked door; its completed building
area is the number of the owner's floor tiles inside. A usable bed is an owned bed its owner can
reach. Both are recomputed when the owner's structures change, never every tick."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import tcod.path

from . import astar
from .model import SURFACE, Area, Character, Entity, Pos, Structure

if TYPE_CHECKING:
    from .content import Content
    from .world import World

BARRIERS = ("wall", "door")


def passable(s: Structure, who: Entity | None, content: Content) -> bool:
    """Whether a body may stand in a structure's tile: a locked door passes only its owner."""
    if s.kind == "door":
        return not s.locked or (who is not None and who.id == s.owner and who.is_character)
    return not content.structures[s.kind].get("solid", False)


def opaque(s: Structure, content: Content) -> bool:
    return bool(content.structures[s.kind].get("opaque", False))


def _flood(open_mask: np.ndarray, sources: list[Pos]) -> np.ndarray:
    """Tiles of `open_mask` reachable (4-connected) from `sources` ([y, x] mask)."""
    dist = np.full(open_mask.shape, np.iinfo(np.int32).max, dtype=np.int32)
    for x, y in sources:
        if open_mask[y, x]:
            dist[y, x] = 0
    cost = open_mask.astype(np.int8)
    tcod.path.dijkstra2d(dist, cost, 1, 0, out=dist)
    return dist != np.iinfo(np.int32).max


def home_of(area: Area, owner: int) -> tuple[int, bool, set[Pos]]:
    """(completed building area, has a locked door, tiles inside) for one owner."""
    barrier = [(p, s) for p, s in area.structures.items()
               if s.owner == owner and s.kind in BARRIERS]
    doors = [(p, s) for p, s in barrier if s.kind == "door"]
    if not doors:
        return 0, False, set()
    xs = [p[0] for p, _ in barrier]
    ys = [p[1] for p, _ in barrier]
    x0, y0 = max(min(xs) - 1, 0), max(min(ys) - 1, 0)
    x1, y1 = min(max(xs) + 1, area.width - 1), min(max(ys) + 1, area.height - 1)
    w, h = x1 - x0 + 1, y1 - y0 + 1
    blocked = np.zeros((h, w), dtype=bool)
    for (x, y), _ in barrier:
        blocked[y - y0, x - x0] = True
    border = [(x, 0) for x in range(w)] + [(x, h - 1) for x in range(w)] + \
             [(0, y) for y in range(h)] + [(w - 1, y) for y in range(h)]
    # A box touching the map edge cannot enclose along that edge: the edge counts as outside.
    outside = _flood(~blocked, border)
    enclosed = ~blocked & ~outside
    best: tuple[int, bool, set[Pos]] = (0, False, set())
    for (dx, dy), _door in doors:
        starts = [(dx - x0 + ox, dy - y0 + oy) for ox, oy in ((0, 1), (0, -1), (1, 0), (-1, 0))]
        starts = [(x, y) for x, y in starts if 0 <= x < w and 0 <= y < h and enclosed[y, x]]
        if not starts:
            continue
        region = _flood(enclosed, starts)
        ys_in, xs_in = np.nonzero(region)
        tiles = {(int(x) + x0, int(y) + y0) for x, y in zip(xs_in, ys_in, strict=True)}
        floor = sum(1 for p in tiles if area.floor.get(p) == owner)
        locked = any(s.locked for p, s in doors if _borders(p, tiles))
        if (locked, floor) > (best[1], best[0]):
            best = (floor, locked, tiles)
    return best


def _borders(p: Pos, tiles: set[Pos]) -> bool:
    x, y = p
    return any(q in tiles for q in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)))


def structures_changed(world: World, area: Area, owner: int) -> None:
    char = world.entities.get(owner)
    if not isinstance(char, Character) or area.id != SURFACE:
        return
    refresh_home(world, char)
    refresh_bed(world, char)


def refresh_home(world: World, char: Character) -> None:
    size, locked, tiles = home_of(world.areas[SURFACE], char.id)
    world.home_tiles[char.id] = tiles if locked else set()
    if (size, locked) != (char.home_area, char.home_locked):
        char.home_area, char.home_locked = size, locked
        world.emit("home", char=char.id, area=size if locked else 0, locked=locked,
                   enclosed_floor=size)


def inside_home(world: World, char: Character) -> bool:
    if char.area != SURFACE:
        return False
    return (char.x, char.y) in world.home_tiles.get(char.id, ())


def beds_of(world: World, char: Character) -> list[Pos]:
    area = world.areas[SURFACE]
    return [p for p, s in area.structures.items() if s.owner == char.id and s.kind == "bed"]


def reachable_bed(world: World, char: Character) -> Pos | None:
    """The first owned bed its owner can walk up to from where it stands on the surface."""
    beds = beds_of(world, char)
    if not beds:
        return None
    area = world.areas[SURFACE]
    start = (char.x, char.y) if char.area == SURFACE else char.surface_pos
    base, doors = base_cost(world, area)
    # The whole area's kept A* searcher: a new graph and pathfinder per check cost more than
    # the search (this runs for every character with a bed every minute or so).
    finder = astar.searcher(base.shape)
    cost = finder.cost
    np.copyto(cost, base)
    for x, y in doors.get(char.id, ()):
        cost[x, y] = 1
    exhausted = False  # a search that missed resolved everything reachable from start
    for bx, by in beds:
        for nx, ny in ((bx + 1, by), (bx - 1, by), (bx, by + 1), (bx, by - 1)):
            if not area.in_bounds(nx, ny) or not cost[nx, ny]:
                continue
            if (nx, ny) == start:
                return (bx, by)
            if exhausted:
                if finder.distance[nx, ny] != astar.UNREACHED:
                    return (bx, by)
            elif len(finder.search(start, (nx, ny))) > 1:  # [goal] alone: not reached
                return (bx, by)
            else:
                exhausted = True
    return None


def refresh_bed(world: World, char: Character) -> None:
    usable = reachable_bed(world, char) is not None
    if usable != char.usable_bed:
        char.usable_bed = usable
        world.emit("bed", char=char.id, usable=usable)


def periodic(world: World) -> None:
    """Re-check usable beds now and then: paths open and close as the world changes."""
    interval = world.content.place.usable_bed_check_interval
    for ent in world.characters():
        if (world.tick + ent.id) % interval == 0 and not ent.down:
            if ent.usable_bed or beds_of(world, ent):
                refresh_bed(world, ent)


# -- path cost: terrain, and structures as they let a character through ----------------------
def base_cost(world: World, area: Area) -> tuple[np.ndarray, dict[int, list[tuple[int, int]]]]:
    """Terrain and structures' path cost for an area version, indexed [x, y] (tcod's node
    order, contiguous; read-only), and each owner's locked doors (open to that owner only)."""
    key = (area.id, area.version)
    cached = world.path_cache.get(key)
    if cached is None:
        walk = world.content.walk_lut[area.terrain].astype(np.int8)
        doors: dict[int, list[tuple[int, int]]] = {}
        for (x, y), s in area.structures.items():
            if not passable(s, None, world.content):
                walk[y, x] = 0
            if s.kind == "door" and s.locked:
                doors.setdefault(s.owner, []).append((x, y))
        base = np.ascontiguousarray(walk.T)
        base.flags.writeable = False
        for stale in [k for k in world.path_cache if k[0] == area.id]:
            del world.path_cache[stale]
        cached = world.path_cache[key] = (base, doors)
    return cached
