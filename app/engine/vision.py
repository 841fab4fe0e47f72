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
    # The bodies of the last update in a crowd (derived: never saved; None: not known).
    view: View | None = field(default=None, metadata={"derived": True})

    def settle(self) -> None:
        """Write the tick of the last crowd update into the entries of the bodies it saw (an
        update in a crowd stamps only what changed; call before reading `entities`' ticks
        from outside an update: observing, saving)."""
        view = self.view
        if view is not None:
            entries = self.entities
            for k in view.keys.tolist():
                entry = entries.get(k >> KEY_ID)
                if entry is not None:
                    entry["tick"] = view.tick

    def forget_view(self) -> None:
        """Call before removing entities from `entities` other than by an update."""
        self.settle()
        self.view = None


@dataclass
class View:
    """The bodies a crowd update saw, as keys (BodyIndex.key: id, x and y in one int), and
    its tick. Their entries' "tick" may be older than `tick` until the memory is settled: a
    packed crowd sees a hundred bodies round every character, most where they stood a tick
    ago, and writing a tick into every one of their entries, every tick, was most of a
    crowded tick's cost."""

    area: int
    tick: int
    keys: np.ndarray  # ascending
    changes: int  # World.bodies_moved when it was seen (World.body_moves)


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


KEY_ID, KEY_X = 32, 16  # a body's key: id << 32 | x << 16 | y (ids below 2**31, x, y below 2**16)


def key(eid: Any, x: Any, y: Any) -> Any:
    """One int for a body where it stands (ints or arrays of them)."""
    return (eid << KEY_ID) | (x << KEY_X) | y


FEW_BODIES = 48  # bodies in a view below which a crowd update walks them instead of arrays
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
        self._keys: np.ndarray | None = None  # [y, x] -> the body's key, -1 for none

    def seen(self, x0: int, y0: int, visible: np.ndarray) -> np.ndarray:
        """The keys (`key`) of the bodies on the `visible` tiles of the window at (x0, y0),
        row by row: three array operations per window instead of a Python step per body near
        it (a packed crowd has a hundred round every character)."""
        if self._keys is None:
            area = self._area
            grid = np.full(area.terrain.shape, -1, np.int64)
            if area.occupant:
                xy = np.array(list(area.occupant), np.int64)
                ids = np.array(list(area.occupant.values()), np.int64)
                grid[xy[:, 1], xy[:, 0]] = key(ids, xy[:, 0], xy[:, 1])
            self._keys = grid
        h, w = visible.shape
        found = self._keys[y0:y0 + h, x0:x0 + w][visible]
        return found[found >= 0]

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
    elif bodies is not None and mem.view is not None and mem.view.area == char.area:
        moves, _ = world.body_moves(char.area)
        h, w = mem.visible.shape
        if moves[mem.x0:mem.x0 + w, mem.y0:mem.y0 + h].max() <= mem.view.changes:
            mem.view.tick = world.tick  # the same view, and no body came or went in it
            return
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
    if bodies is not None:
        seen = _remember_crowd(world, char, mem, bodies)
    else:
        mem.forget_view()
        h, w = mem.visible.shape
        x0, y0 = mem.x0, mem.y0
        x1, y1 = x0 + w, y0 + h
        visible = mem.visible
        seen = _remember_each(world, char, mem, [
            (eid, x, y) for (x, y), eid in area.occupant.items()
            if x0 <= x < x1 and y0 <= y < y1 and visible[y - y0, x - x0]])
    # The oldest memories go first, in batches (sorting every tick would cost more than the
    # memory saves); what is in view now is always kept.
    keep = max(world.content.vision.memory_entities, seen)
    if len(mem.entities) > keep + 32:
        mem.forget_view()  # the ticks sorted on are then all written
        oldest = sorted(mem.entities.values(), key=lambda e: (e["tick"], e["id"]))
        for e in oldest[: len(mem.entities) - keep]:
            del mem.entities[e["id"]]


def _remember(world: World, known_all: dict[int, dict[str, Any]], eid: int, x: int, y: int,
              area_id: int, tick: int) -> None:
    """One body seen: its entry stamped with the tick if it stands where it was remembered,
    else a new entry (in the old one's place in the memory's order)."""
    known = known_all.get(eid)
    if known is not None and known["x"] == x and known["y"] == y and known["area"] == area_id:
        known["tick"] = tick
    else:
        known_all[eid] = {"id": eid, "kind": world.entities[eid].kind, "x": x, "y": y,
                          "area": area_id, "tick": tick}


def _remember_each(world: World, char: Character, mem: Memory,
                   bodies: list[tuple[int, int, int]]) -> int:
    """Each body seen, (id, x, y), through _remember, the character itself left out; returns
    how many were remembered."""
    seen = 0
    for eid, x, y in bodies:
        if eid != char.id:
            seen += 1
            _remember(world, mem.entities, eid, x, y, char.area, world.tick)
    return seen


def _decoded(keys: list[int]) -> list[tuple[int, int, int]]:
    """(id, x, y) of each body key."""
    mask = (1 << KEY_X) - 1
    return [(k >> KEY_ID, (k >> KEY_X) & mask, k & mask) for k in keys]


def _remember_crowd(world: World, char: Character, mem: Memory, bodies: BodyIndex) -> int:
    """The bodies in view remembered; returns how many (the character itself not counted).
    A body the last update saw standing where it stands now keeps its entry as it is (its
    tick is the view's, Memory.settle); one that left the view gets the last view's tick
    written; the rest go through _remember, by key. The comparison is array work on sorted
    keys: Python sets of a crowd's keys, a tick old, were mostly cache misses. (The memory's
    order is not the plain loop's then, but nothing reads it: observations and forgetting
    sort by tick and id.)"""
    found = bodies.seen(mem.x0, mem.y0, mem.visible)
    tick, area_id, view, known_all = world.tick, char.area, mem.view, mem.entities
    if len(found) <= FEW_BODIES:  # a plain loop costs less than the array work
        mem.forget_view()
        return _remember_each(world, char, mem, _decoded(found.tolist()))
    keys = np.sort(found)
    _, changes = world.body_moves(area_id)
    me = key(char.id, char.x, char.y)
    n = len(keys)
    at = int(np.searchsorted(keys, me))
    seen = n - (at < n and int(keys[at]) == me)
    old = view.keys if view is not None and view.area == area_id else None
    if old is not None and len(old) == n and np.array_equal(old, keys):
        view.tick, view.changes = tick, changes  # everyone in view stands where they stood
        return seen
    if old is not None and len(old):  # n > FEW_BODIES here
        kept = old[np.minimum(np.searchsorted(old, keys), len(old) - 1)] == keys
        lost = old[keys[np.minimum(np.searchsorted(keys, old), n - 1)] != old]
        for gone in lost.tolist():
            entry = known_all.get(gone >> KEY_ID)
            if entry is not None:
                entry["tick"] = view.tick
        changed = keys[~kept].tolist()
    else:
        mem.settle()
        changed = keys.tolist()
    _remember_each(world, char, mem, _decoded(changed))
    mem.view = View(area_id, tick, keys, changes)
    return seen
