"""What a character sees (tcod's symmetric shadowcasting in a window around it) and what it
remembers: every tile it has seen with the tick it last saw it, and the entities last seen."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import tcod.constants
import tcod.map

from . import clock, homes
from .model import Area, Character

if TYPE_CHECKING:
    from .world import World

UNSEEN = 255


@dataclass
class AreaMemory:
    tiles: np.ndarray  # remembered tile codes, UNSEEN where never seen
    ticks: np.ndarray  # tick each tile was last seen, -1 never


@dataclass
class Memory:
    areas: dict[int, AreaMemory] = field(default_factory=dict)
    entities: dict[int, dict[str, Any]] = field(default_factory=dict)
    # The current field of view: window origin and a [h, w] mask; rebuilt when the key changes.
    key: tuple = ()
    x0: int = 0
    y0: int = 0
    visible: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), bool))


def radius(world: World, char: Character) -> int:
    v = world.content.vision
    area = world.areas[char.area]
    lit = char.equipment.get("light") is not None
    if area.dark:
        dark = area.instance.dark_radius if area.instance is not None else None
        return v.torch_radius if lit else (3 if dark is None else dark)
    if area.kind == "surface" and clock.is_night(world.tick, world.content):
        return max(v.night_radius, v.torch_radius if lit else 0)
    return v.day_radius


def transparency(world: World, area: Area, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """What lets sight through in a window (read-only): terrain and opaque structures. The whole
    area's mask is kept per area version (terrain and structures change only with it), so a
    character's update does not walk every structure of the map."""
    cached = world.sight_cache.get(area.id)
    if cached is None or cached[0] != area.version:
        see = world.content.see_lut[area.terrain]
        for (x, y), s in area.structures.items():
            if homes.opaque(s, world.content):
                see[y, x] = False
        see.flags.writeable = False
        cached = world.sight_cache[area.id] = (area.version, see)
    return cached[1][y0:y1, x0:x1]


CELL_SHIFT = 4  # a body index cell is 16 x 16 tiles (a day's view spans at most two of them)
CROWD = 64  # bodies in an area from which the tick's updates use an index instead of a walk


class BodyIndex:
    """An area's bodies by cell, each with its place in `area.occupant`'s order, so a window's
    bodies come out in the order a walk over the whole dict would meet them (memory keeps
    that order). World.body_index keeps one per crowded area until a body moves."""

    def __init__(self, area: Area) -> None:
        cells: dict[tuple[int, int], list[tuple[int, int, int, int]]] = {}
        for order, ((x, y), eid) in enumerate(area.occupant.items()):
            cells.setdefault((x >> CELL_SHIFT, y >> CELL_SHIFT), []).append((order, x, y, eid))
        self.cells = cells
        self._area = area
        self._grid: np.ndarray | None = None  # [y, x] -> place in the order, -1 for no body
        self._ids: np.ndarray | None = None

    def seen(self, x0: int, y0: int, visible: np.ndarray) -> list[tuple[int, int, int]]:
        """(x, y, id) of the bodies on the `visible` tiles of the window at (x0, y0), in the
        area's order: array work per window instead of a Python step per body near it (a
        packed crowd has hundreds round every character)."""
        if self._grid is None:
            area = self._area
            grid = np.full(area.terrain.shape, -1, np.int32)
            ids = np.array(list(area.occupant.values()), np.int64)
            if len(ids):
                xy = np.array(list(area.occupant), np.int64)
                grid[xy[:, 1], xy[:, 0]] = np.arange(len(ids), dtype=np.int32)
            self._grid, self._ids = grid, ids
        h, w = visible.shape
        window = self._grid[y0:y0 + h, x0:x0 + w]
        ys, xs = np.nonzero(visible & (window >= 0))
        order = window[ys, xs]
        by_order = np.argsort(order)
        return list(zip((xs[by_order] + x0).tolist(), (ys[by_order] + y0).tolist(),
                        self._ids[order[by_order]].tolist(), strict=True))

    def within(self, x0: int, y0: int, x1: int, y1: int) -> list[tuple[int, int, int, int]]:
        """(order, x, y, id) of the bodies in [x0, x1) x [y0, y1), in the area's order."""
        found: list[tuple[int, int, int, int]] = []
        for cy in range(y0 >> CELL_SHIFT, ((y1 - 1) >> CELL_SHIFT) + 1):
            for cx in range(x0 >> CELL_SHIFT, ((x1 - 1) >> CELL_SHIFT) + 1):
                found.extend(self.cells.get((cx, cy), ()))
        found.sort()
        return found


def update(world: World, char: Character, bodies: BodyIndex | None = None) -> None:
    """Refresh `char`'s view and memory. `bodies`, when given, is its area's current index
    (World.body_index)."""
    mem = world.memory[char.id]
    area = world.areas[char.area]
    r = radius(world, char)
    key = (char.area, char.x, char.y, r, area.version)
    if key != mem.key:
        x0, y0 = max(char.x - r, 0), max(char.y - r, 0)
        x1, y1 = min(char.x + r + 1, area.width), min(char.y + r + 1, area.height)
        see = transparency(world, area, x0, y0, x1, y1)
        fov = tcod.map.compute_fov(see, (char.y - y0, char.x - x0), r, light_walls=True,
                                   algorithm=tcod.constants.FOV_SYMMETRIC_SHADOWCAST)
        mem.key, mem.x0, mem.y0, mem.visible = key, x0, y0, fov
        am = mem.areas.get(char.area)
        if am is None:
            am = mem.areas[char.area] = AreaMemory(
                tiles=np.full(area.terrain.shape, UNSEEN, np.uint8),
                ticks=np.full(area.terrain.shape, -1, np.int32))
        window = am.tiles[y0:y1, x0:x1]
        window[fov] = area.terrain[y0:y1, x0:x1][fov]
        am.ticks[y0:y1, x0:x1][fov] = world.tick
    _remember_entities(world, char, mem, area, bodies)


def can_see(mem: Memory, x: int, y: int) -> bool:
    h, w = mem.visible.shape
    i, j = y - mem.y0, x - mem.x0
    return 0 <= i < h and 0 <= j < w and bool(mem.visible[i, j])


def _remember_entities(world: World, char: Character, mem: Memory, area: Area,
                       bodies: BodyIndex | None) -> None:
    # A plain loop over the bodies: for the few dozen bodies of an area it is several times
    # faster than numpy's per-call overhead; a crowd's visible bodies come from the index's
    # grid, the window and field of view as arrays (a walk over every body for every
    # character grew with the square of the crowd, a step per body near the view with its
    # density). Known entities are updated in place.
    h, w = mem.visible.shape
    x0, y0 = mem.x0, mem.y0
    x1, y1 = x0 + w, y0 + h
    visible = mem.visible
    tick, area_id, me = world.tick, char.area, char.id
    known_all = mem.entities
    seen = 0
    near = bodies.seen(x0, y0, visible) if bodies else \
        [(x, y, eid) for (x, y), eid in area.occupant.items()
         if x0 <= x < x1 and y0 <= y < y1 and visible[y - y0, x - x0]]
    for x, y, eid in near:
        if eid != me:
            seen += 1
            known = known_all.get(eid)
            if known is not None and known["x"] == x and known["y"] == y \
                    and known["area"] == area_id:
                known["tick"] = tick
            else:
                known_all[eid] = {"id": eid, "kind": world.entities[eid].kind, "x": x, "y": y,
                                  "area": area_id, "tick": tick}
    # The oldest memories go first, in batches (sorting every tick would cost more than the
    # memory saves); what is in view now is always kept.
    keep = max(world.content.vision.memory_entities, seen)
    if len(mem.entities) > keep + 32:
        oldest = sorted(mem.entities.values(), key=lambda e: (e["tick"], e["id"]))
        for e in oldest[: len(mem.entities) - keep]:
            del mem.entities[e["id"]]
