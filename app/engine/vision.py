"""What a character sees (tcod's symmetric shadowcasting in a window around it) and what it
remembers: every tile it has seen with the tick it last saw it, and the entities last seen."""

from __future__ import annotations

import threading
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
    # The view as an observation shows it, for the view `key` it was made for (derived: the
    # key holds all it depends on, the area's version included): (key, rows, the visible
    # cells as bytes, row after row, or None). A character that stands or works is observed
    # again and again in it.
    shown: tuple | None = field(default=None, metadata={"derived": True})
    # The last walk over the area's bodies (derived): (tick, view key, World.bodies_moved, the
    # ids it saw). Until the view or a body moves, a walk again finds the same bodies where
    # their entries say they stand: it would only write its tick into those entries.
    walked: tuple = field(default=(), metadata={"derived": True})
    # Tiles seen ever, per area, counted when the view last changed (derived): (area, looks,
    # count); `looks` counts the views made, each of which may see new tiles.
    looks: int = field(default=0, metadata={"derived": True})
    seen_count: tuple = field(default=(), metadata={"derived": True})
    # The sight change stamps (_sight) the field of view was computed against, and their count
    # then (derived): (stamps, count), () when not known.
    sight: tuple = field(default=(), metadata={"derived": True})

    def settle(self) -> None:
        """Write where and when the last crowd update saw its bodies into their entries (an
        update in a crowd writes only the bodies that came into its view or left it; call
        before reading the entries of the bodies in view from outside an update: saving,
        forgetting). The entries of the bodies out of view are always written."""
        view = self.view
        if view is not None:
            _settle(self.entities, view)

    def forget_view(self) -> None:
        """Call before removing entities from `entities` other than by an update."""
        self.settle()
        self.view = None
        self.walked = ()  # entries may go: the next update walks


def _settle(entries: dict[int, dict[str, Any]], view: View) -> None:
    tick, xy = view.tick, (1 << KEY_X) - 1
    for k in view.keys.tolist():
        entry = entries.get(k >> KEY_ID)
        if entry is not None:
            x, y = (k >> KEY_X) & xy, k & xy
            if entry["x"] == x and entry["y"] == y:
                entry["tick"] = tick
            else:  # a new entry, as an update that saw it move would have made
                entries[k >> KEY_ID] = {**entry, "x": x, "y": y, "tick": tick}


@dataclass
class View:
    """The bodies a crowd update saw, as keys (BodyIndex.key: id, x and y in one int), and
    its tick. The entries of these bodies may be older than the view until the memory is
    settled: their "tick" (a packed crowd sees a hundred bodies round every character, most
    where they stood a tick ago) and, for a body that moved within the view, its "x" and "y"
    (in a crowd at the plaza most bodies a character sees moving stay in its view; each move
    was a new entry in every memory that saw it, most of a crowded tick's cost)."""

    area: int
    tick: int
    keys: np.ndarray  # by row, then column (y, x): the order the windows give them
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
    return _sight(world, area)[0][y0:y1, x0:x1]


def _sight(world: World, area: Area) -> tuple[np.ndarray, np.ndarray, int]:
    """The area's see-through mask ([y, x], read only), with per tile the count of mask changes
    at which it last changed, and that count now: a view of a window none of whose tiles
    changed since its field of view was computed has the same field of view. A forager's
    crowd bumps the area's version several times a tick (a tree cut, a station built), each
    time far from most of the views, which would otherwise all be computed again."""
    cached = world.sight_cache.get(area.id)
    if cached is None or cached[0] != area.version:
        see = world.content.see_lut[area.terrain]
        for (x, y), s in area.structures.items():
            if homes.opaque(s, world.content):
                see[y, x] = False
        see.flags.writeable = False
        if cached is not None and cached[1].shape == see.shape:
            _, before, stamps, count = cached
            changed = before != see
            if changed.any():
                count += 1
                stamps[changed] = count
        else:  # a new grid: every tile counts as changed (a view compares the grid too)
            count, stamps = 0, np.zeros(see.shape, np.int64)
        cached = world.sight_cache[area.id] = (area.version, see, stamps, count)
    return cached[1], cached[2], cached[3]


KEY_ID, KEY_X = 32, 16  # a body's key: id << 32 | x << 16 | y (ids below 2**31, x, y below 2**16)


def key(eid: Any, x: Any, y: Any) -> Any:
    """One int for a body where it stands (ints or arrays of them)."""
    return (eid << KEY_ID) | (x << KEY_X) | y


CELL_SHIFT = 4  # a body index cell is 16 x 16 tiles (a day's view spans at most two of them)
# The most cells of one (viewers x bodies) table of bools (_came_and_left): a crowd bigger
# than that is compared in runs of viewers (1,000 packed characters take about a million).
TABLE_CELLS = 1 << 24
CROWD = 64  # bodies in an area from which the tick's updates use an index instead of a walk


class BodyIndex:
    """An area's bodies by cell, each with its place in `area.occupant`'s order, so a window's
    bodies come out in the order a walk over the whole dict would meet them (memory keeps
    that order). World.body_index keeps one per crowded area until a body moves."""

    def __init__(self, area: Area) -> None:
        self._area = area
        self._cells: dict[tuple[int, int], list[tuple[int, int, int, int]]] | None = None
        self._keys: np.ndarray | None = None  # [y, x] -> the body's key, -1 for none

    @property
    def cells(self) -> dict[tuple[int, int], list[tuple[int, int, int, int]]]:
        """(order, x, y, id) of the bodies by cell (made when first asked: a crowd's tick
        reads the grid only, and a crowd's bodies move every tick)."""
        if self._cells is None:
            cells: dict[tuple[int, int], list[tuple[int, int, int, int]]] = {}
            for order, ((x, y), eid) in enumerate(self._area.occupant.items()):
                cells.setdefault((x >> CELL_SHIFT, y >> CELL_SHIFT), []).append((order, x, y, eid))
            self._cells = cells
        return self._cells

    def grid(self) -> np.ndarray:
        """[y, x] -> the key (`key`) of the body standing there, -1 for none (read only)."""
        if self._keys is None:
            area = self._area
            grid = np.full(area.terrain.shape, -1, np.int64)
            if area.occupant:
                xy = np.array(list(area.occupant), np.int64)
                ids = np.array(list(area.occupant.values()), np.int64)
                grid[xy[:, 1], xy[:, 0]] = key(ids, xy[:, 0], xy[:, 1])
            grid.flags.writeable = False
            self._keys = grid
        return self._keys

    def seen(self, x0: int, y0: int, visible: np.ndarray) -> np.ndarray:
        """The keys (`key`) of the bodies on the `visible` tiles of the window at (x0, y0),
        row by row: three array operations per window instead of a Python step per body near
        it (a packed crowd has a hundred round every character)."""
        h, w = visible.shape
        found = self.grid()[y0:y0 + h, x0:x0 + w][visible]
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
    if _look(world, char, bodies):
        if bodies is None:
            _remember_walk_again(world, char)
        else:
            _remember_crowd(world, char.area, bodies, [char])


def _remember_walk_again(world: World, char: Character) -> None:
    """_remember_walk, or what it would do when neither the view nor any body moved since the
    last walk (an agent observed between steps): the tick written into the entries of the
    bodies that walk saw."""
    mem = world.memory[char.id]
    walked = mem.walked
    if not walked or walked[1] != mem.key or walked[2] != world.bodies_moved \
            or mem.view is not None:
        _remember_walk(world, char)
        return
    tick = world.tick
    if walked[0] != tick:
        entries = mem.entities
        for eid in walked[3]:
            entries[eid]["tick"] = tick
        mem.walked = (tick, *walked[1:])


def seen_tiles(mem: Memory, area_id: int) -> int:
    """How many tiles of an area the memory holds (counted again only after a new view)."""
    kept = mem.seen_count
    if kept and kept[0] == area_id and kept[1] == mem.looks:
        return kept[2]
    am = mem.areas.get(area_id)
    count = int(np.count_nonzero(am.ticks >= 0)) if am is not None else 0
    mem.seen_count = (area_id, mem.looks, count)
    return count


def update_all(world: World, chars: list[Character]) -> None:
    """Refresh every character's view and memory (the tick's last step). In a crowded area
    the memories of everyone whose view changed are updated together, as array work over
    all of them: per character, the dozen numpy calls of a hundred bodies each cost more
    than the work itself. Whether a body came or went in a view that stayed where it was
    is asked for all such views of an area at once too."""
    crowds: dict[int, tuple[BodyIndex, list[Character]]] = {}
    still: dict[int, list[Character]] = {}
    # an area's body index and a radius are the same for everyone of an area in this loop
    # (nobody moves in it): asked once per area, and per area and light
    indexes: dict[int, BodyIndex | None] = {}
    radii: dict[tuple[int, bool], int] = {}
    for char in chars:
        area_id = char.area
        if area_id in indexes:
            bodies = indexes[area_id]
        else:
            bodies = indexes[area_id] = world.body_index(area_id)
        lit = char.equipment.get("light") is not None
        r = radii.get((area_id, lit))
        if r is None:
            r = radii[(area_id, lit)] = radius(world, char)
        if bodies is None:
            _see(world, char, r)
            _remember_walk(world, char)
        elif _see(world, char, r) or not _same_area(world, char):
            crowds.setdefault(area_id, (bodies, []))[1].append(char)
        else:
            still.setdefault(area_id, []).append(char)
    for area_id, group in still.items():
        moved = _bodies_came_or_went(world, area_id, group)
        if moved:
            bodies = world.body_index(area_id)
            crowds.setdefault(area_id, (bodies, []))[1].extend(moved)
    for area_id, (bodies, group) in crowds.items():
        _remember_crowd(world, area_id, bodies, group)


def _look(world: World, char: Character, bodies: BodyIndex | None) -> bool:
    """The field of view brought up to date (the tiles seen remembered); whether the bodies
    in view must be remembered again: not when the view is the same and, in a crowd, no
    body came or went on any of its tiles since its last update."""
    if _see(world, char) or bodies is None or not _same_area(world, char):
        return True
    mem = world.memory[char.id]
    moves, _ = world.body_moves(char.area)
    h, w = mem.visible.shape
    if moves[mem.x0:mem.x0 + w, mem.y0:mem.y0 + h].max() <= mem.view.changes:
        mem.view.tick = world.tick  # the same view, and no body came or went in it
        return False
    return True


def _same_area(world: World, char: Character) -> bool:
    """Whether the last crowd update saw this character's area."""
    view = world.memory[char.id].view
    return view is not None and view.area == char.area


def _bodies_came_or_went(world: World, area_id: int, group: list[Character]) -> list[Character]:
    """Those of `group` (each with the same view as at its last crowd update, of `area_id`)
    on a tile of whose window a body came or went since; the others' views take the tick.
    One array operation per shape of window."""
    moves, _ = world.body_moves(area_id)
    shapes: dict[tuple[int, int], list[Memory]] = {}
    mems = [world.memory[c.id] for c in group]
    for mem in mems:
        shapes.setdefault(mem.visible.shape, []).append(mem)
    tick, changed = world.tick, set()
    for (h, w), members in shapes.items():
        latest = np.lib.stride_tricks.sliding_window_view(moves, (w, h))[
            np.array([m.x0 for m in members]), np.array([m.y0 for m in members])].max(axis=(1, 2))
        for mem, last in zip(members, latest.tolist(), strict=True):
            if last <= mem.view.changes:
                mem.view.tick = tick  # the same view, and no body came or went in it
            else:
                changed.add(id(mem))
    return [c for c, m in zip(group, mems, strict=True) if id(m) in changed]


def _see(world: World, char: Character, r: int | None = None) -> bool:
    """The field of view brought up to date (the tiles seen remembered): whether it is new
    (an area's new version with the same see-through tiles in the window gives the same field
    of view: its tiles are remembered again, but it is not new). `r`: its radius (`radius`),
    when known."""
    mem = world.memory[char.id]
    area = world.areas[char.area]
    if r is None:
        r = radius(world, char)
    key = (char.area, char.x, char.y, r, area.version)
    old = mem.key
    if key == old:
        return False
    x0, y0 = max(char.x - r, 0), max(char.y - r, 0)
    x1, y1 = min(char.x + r + 1, area.width), min(char.y + r + 1, area.height)
    sight, stamps, count = _sight(world, area)
    kept = mem.sight
    new = not (old[:4] == key[:4] and kept and kept[0] is stamps
               and stamps[y0:y1, x0:x1].max() <= kept[1])
    if new:
        fov = field_of_view(sight[y0:y1, x0:x1], (char.y - y0, char.x - x0), r)
        mem.x0, mem.y0, mem.visible = x0, y0, fov
    else:
        fov = mem.visible
    mem.key, mem.sight = key, (stamps, count)
    mem.looks += 1
    am = mem.areas.get(char.area)
    if am is None:
        am = mem.areas[char.area] = AreaMemory(
            tiles=np.full(area.terrain.shape, UNSEEN, np.uint8),
            ticks=np.full(area.terrain.shape, -1, np.int32))
    # copyto with a mask: no index arrays made (a crowd's new area versions make this the
    # commonest new view)
    np.copyto(am.tiles[y0:y1, x0:x1], area.terrain[y0:y1, x0:x1], where=fov)
    np.copyto(am.ticks[y0:y1, x0:x1], world.tick, where=fov)
    return new


# What field_of_view calls in tcod; without any of it, tcod's own compute_fov
_FOV_DIRECT = hasattr(tcod.map, "ffi") and hasattr(tcod.map, "lib") \
    and hasattr(tcod.map.lib, "TCOD_map_compute_fov")
_fov_maps = threading.local()  # per thread: two worlds may be stepped on two threads at once


def field_of_view(see: np.ndarray, pov: tuple[int, int], r: int) -> np.ndarray:
    """tcod.map.compute_fov(see, pov, r) with light walls and symmetric shadowcasting: the
    same C call on a map kept per window shape (tcod's wrapper builds a map for every call,
    about half of a day's view's cost, and a crowd computes hundreds a tick)."""
    if not _FOV_DIRECT:
        return tcod.map.compute_fov(see, pov, r, light_walls=True,
                                    algorithm=tcod.constants.FOV_SYMMETRIC_SHADOWCAST)
    kept = getattr(_fov_maps, "maps", None)
    if kept is None:
        kept = _fov_maps.maps = {}
    found = kept.get(see.shape)
    if found is None:
        h, w = see.shape
        cells = np.empty(see.shape, dtype=[("transparent", bool), ("walkable", bool),
                                           ("fov", bool)])
        ffi = tcod.map.ffi
        found = kept[see.shape] = (cells, ffi.new("struct TCOD_Map*", (
            w, h, w * h, ffi.from_buffer("struct TCOD_MapCell*", cells))))
    cells, cmap = found
    cells["transparent"] = see
    tcod.map.lib.TCOD_map_compute_fov(cmap, pov[1], pov[0], r, True,
                                      tcod.constants.FOV_SYMMETRIC_SHADOWCAST)
    return cells["fov"].copy()


def can_see(mem: Memory, x: int, y: int) -> bool:
    h, w = mem.visible.shape
    i, j = y - mem.y0, x - mem.x0
    return 0 <= i < h and 0 <= j < w and bool(mem.visible[i, j])


def _remember_walk(world: World, char: Character) -> None:
    # A plain loop over the bodies: for the few dozen bodies of an area it is several times
    # faster than numpy's per-call overhead (a walk over every body for every character
    # grows with the square of a crowd: crowds use _remember_crowd). Known entities are
    # updated in place.
    mem = world.memory[char.id]
    mem.forget_view()
    h, w = mem.visible.shape
    x0, y0 = mem.x0, mem.y0
    x1, y1 = x0 + w, y0 + h
    visible = mem.visible
    known_all, area_id, tick = mem.entities, char.area, world.tick
    seen = []
    for (x, y), eid in world.areas[area_id].occupant.items():
        if x0 <= x < x1 and y0 <= y < y1 and visible[y - y0, x - x0] and eid != char.id:
            seen.append(eid)
            _remember(world, known_all, eid, x, y, area_id, tick)
    _forget_oldest(world, mem, len(seen))
    mem.walked = (tick, mem.key, world.bodies_moved, tuple(seen))


FORGET_BATCH = 32  # memories forgotten at least at once (see _forget_oldest)


def _forget_oldest(world: World, mem: Memory, seen: int) -> None:
    # The oldest memories go first, in batches (sorting every tick would cost more than the
    # memory saves); what is in view now is always kept.
    keep = max(world.content.vision.memory_entities, seen)
    if len(mem.entities) > keep + FORGET_BATCH:
        mem.settle()  # the ticks sorted on are then all written
        mem.walked = ()  # entries go: the next update walks
        oldest = sorted(mem.entities.values(), key=lambda e: (e["tick"], e["id"]))
        gone = [e["id"] for e in oldest[: len(mem.entities) - keep]]
        for eid in gone:
            del mem.entities[eid]
        view = mem.view
        # a body in view forgotten (one seen this tick, tied on the tick with one out of
        # view): the next update remembers it anew, as it would any body new in view
        if view is not None:
            gone_ids = set(gone)
            if any(k >> KEY_ID in gone_ids for k in view.keys.tolist()):
                mem.view = None


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


def _remember_crowd(world: World, area_id: int, bodies: BodyIndex,
                    group: list[Character]) -> None:
    """The bodies in view of each character of `group` (all in the crowded area `area_id`)
    remembered. Only the bodies that came into a character's view since its last update go
    through _remember; those that left it get where and when that view saw them; those
    that stayed, standing or moving within it, are left to the view (View, Memory.settle).
    What each one sees, and what changed since its last view, is found for the whole group
    at once: every (viewer, body) pair as a cell of a viewers-by-bodies table, against the
    last views' pairs (_came_and_left). (The memory's order is not the walk's then, but
    nothing reads it: observations and forgetting sort by tick and id.)"""
    tick = world.tick
    memory = world.memory
    mems = [memory[c.id] for c in group]
    # what each sees: its window of the body grid through its field of view, per shape of
    # window (a day's window is the same shape for everyone away from the map's edge); the
    # viewers take their places shape by shape, so the pairs come out in order
    shapes: dict[tuple[int, int], list[int]] = {}
    for i, mem in enumerate(mems):
        shapes.setdefault(mem.visible.shape, []).append(i)
    if len(shapes) > 1:
        order = [i for members in shapes.values() for i in members]
        group = [group[i] for i in order]
        mems = [mems[i] for i in order]
    grid = bodies.grid()
    width = grid.shape[1]
    flat_grid = grid.reshape(-1)
    occupied = world.body_grid(area_id).T  # [y, x], as the key grid
    found_parts, slot_parts, start = [], [], 0
    for (h, w), members in shapes.items():
        ms = mems[start:start + len(members)]
        cs = group[start:start + len(members)]
        ys = np.array([m.y0 for m in ms])
        xs = np.array([m.x0 for m in ms])
        # the visible tiles a body stands on, as offsets into the viewers' windows (a bool
        # window per viewer: an int64 window of keys each would be eight times the bytes)
        hits = np.stack([m.visible for m in ms])
        hits &= np.lib.stride_tricks.sliding_window_view(occupied, (h, w))[ys, xs]
        # none sees itself: its own tile left out where its own body stands on it
        cy, cx = np.array([c.y for c in cs]), np.array([c.x for c in cs])
        own = cy * width + cx
        itself = (flat_grid[own] >> KEY_ID) == np.array([c.id for c in cs])
        rows = np.flatnonzero(itself)
        hits[rows, (cy - ys)[rows], (cx - xs)[rows]] = False
        flat = np.flatnonzero(hits)
        slot_, within = np.divmod(flat, h * w)
        offsets = (np.arange(h)[:, None] * width + np.arange(w)).reshape(-1)
        found_parts.append(flat_grid[(ys * width + xs)[slot_] + offsets[within]])
        slot_parts.append(slot_ + start if start else slot_)
        start += len(members)
    found = np.concatenate(found_parts) if len(found_parts) > 1 else found_parts[0]
    slot = np.concatenate(slot_parts) if len(slot_parts) > 1 else slot_parts[0]
    # the last views, where they were of this area: their bodies in the same order as the
    # new ones (by viewer, then row by row)
    views = [mem.view for mem in mems]
    olds, old_slots = [], []
    for slot_i, view in enumerate(views):
        if view is not None and view.area == area_id:
            olds.append(view.keys)
            old_slots.append(slot_i)
        else:
            mems[slot_i].settle()  # a view of another area: its entries are written now
    came = np.ones(len(found), bool)
    entries_of = [mem.entities for mem in mems]
    xy = (1 << KEY_X) - 1
    if olds:
        old = np.concatenate(olds) if len(olds) > 1 else olds[0]
        old_slot = np.repeat(np.array(old_slots, np.int64), [len(k) for k in olds])
        came, left = _came_and_left(old_slot, old, slot, found, len(mems), world.next_id)
        # a body seen before and now, elsewhere in the view, is left to the view; one that
        # left the view takes where and when the last view saw it
        for slot_i, k in zip(old_slot[left].tolist(), old[left].tolist(), strict=True):
            entries = entries_of[slot_i]
            eid = k >> KEY_ID
            entry = entries.get(eid)
            if entry is not None:
                x, y = (k >> KEY_X) & xy, k & xy
                if entry["x"] == x and entry["y"] == y:
                    entry["tick"] = views[slot_i].tick
                else:
                    entries[eid] = {**entry, "x": x, "y": y, "tick": views[slot_i].tick}
    # the bodies new in a view (_remember, inlined: a packed crowd's views take hundreds a tick)
    kinds = world.entities
    for slot_i, k in zip(slot[came].tolist(), found[came].tolist(), strict=True):
        entries = entries_of[slot_i]
        eid, x, y = k >> KEY_ID, (k >> KEY_X) & xy, k & xy
        known = entries.get(eid)
        if known is not None and known["x"] == x and known["y"] == y \
                and known["area"] == area_id:
            known["tick"] = tick
        else:
            entries[eid] = {"id": eid, "kind": kinds[eid].kind, "x": x, "y": y,
                            "area": area_id, "tick": tick}
    # each one's view, for the next update and the settling (a view kept is written over:
    # nothing else holds it)
    ends = np.cumsum(np.bincount(slot, minlength=len(mems))).tolist()
    _, changes = world.body_moves(area_id)
    start, keep = 0, world.content.vision.memory_entities + FORGET_BATCH
    for mem, view, end in zip(mems, views, ends, strict=True):
        if view is None:
            mem.view = View(area_id, tick, found[start:end], changes)
        else:
            view.area, view.tick, view.keys, view.changes = area_id, tick, found[start:end], \
                changes
        if len(mem.entities) > keep and len(mem.entities) > end - start + FORGET_BATCH:
            _forget_oldest(world, mem, end - start)  # (what it checks first, asked here)
        start = end


def _came_and_left(old_slot: np.ndarray, old: np.ndarray, new_slot: np.ndarray,
                   new: np.ndarray, viewers: int, next_id: int) -> tuple[np.ndarray, np.ndarray]:
    """Which of the `new` (viewer, body key) pairs are of a body its viewer did not see in
    its `old` view at all (came), and which of the old pairs are of a body not in the new
    view (left): masks. A body that moved within a view is in neither. A pair is a cell of
    a viewers-by-bodies table of bools (the bodies numbered densely: ids grow over a run),
    so the whole group takes a few array operations, without sorting its pairs."""
    old_ids, new_ids = old >> KEY_ID, new >> KEY_ID
    present = np.zeros(next_id, bool)
    present[old_ids] = True
    present[new_ids] = True
    ids = np.flatnonzero(present)
    dense = np.zeros(next_id, np.int64)
    dense[ids] = np.arange(len(ids))
    bodies = max(len(ids), 1)
    old_cells = old_slot * bodies + dense[old_ids]
    new_cells = new_slot * bodies + dense[new_ids]
    run = max(1, TABLE_CELLS // bodies)  # viewers per table
    if viewers <= run:
        return _compared(old_cells, new_cells, viewers * bodies)
    came, left = np.empty(len(new), bool), np.empty(len(old), bool)
    for first in range(0, viewers, run):
        # the pairs are in viewer order: a run of viewers is a slice of each
        lo, hi = first * bodies, (first + run) * bodies
        o = slice(*np.searchsorted(old_cells, (lo, hi)).tolist())
        n = slice(*np.searchsorted(new_cells, (lo, hi)).tolist())
        came[n], left[o] = _compared(old_cells[o] - lo, new_cells[n] - lo, run * bodies)
    return came, left


def _compared(old_cells: np.ndarray, new_cells: np.ndarray, cells: int
              ) -> tuple[np.ndarray, np.ndarray]:
    seen = np.zeros(cells, bool)
    seen[old_cells] = True
    came = ~seen[new_cells]
    seen[old_cells] = False
    seen[new_cells] = True
    return came, ~seen[old_cells]
