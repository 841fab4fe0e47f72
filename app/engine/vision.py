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
        return v.torch_radius if lit else int(area.info.get("dark_radius", 3))
    if area.kind == "surface" and clock.is_night(world.tick, world.content):
        return max(v.night_radius, v.torch_radius if lit else 0)
    return v.day_radius


def transparency(world: World, area: Area, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    see = world.content.see_lut[area.terrain[y0:y1, x0:x1]]
    for (x, y), s in area.structures.items():
        if x0 <= x < x1 and y0 <= y < y1 and homes.opaque(s, world.content):
            see[y - y0, x - x0] = False
    return see


def update(world: World, char: Character) -> None:
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
    _remember_entities(world, char, mem, area)


def can_see(mem: Memory, x: int, y: int) -> bool:
    h, w = mem.visible.shape
    i, j = y - mem.y0, x - mem.x0
    return 0 <= i < h and 0 <= j < w and bool(mem.visible[i, j])


def bodies(world: World, area: Area) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Positions of every body in an area as arrays, built once after bodies move and shared
    by all the characters who look around in it (the world clears the cache on every move)."""
    cache = world.body_cache
    hit = cache.get(area.id)
    if hit is not None:
        return hit
    ids = list(area.occupant.values())
    pos = np.array(list(area.occupant.keys()), dtype=np.int32).reshape(-1, 2)
    value = (pos[:, 0], pos[:, 1], ids)
    cache[area.id] = value
    return value


def _remember_entities(world: World, char: Character, mem: Memory, area: Area) -> None:
    h, w = mem.visible.shape
    x0, y0 = mem.x0, mem.y0
    xs, ys, ids = bodies(world, area)
    inside = np.nonzero((xs >= x0) & (xs < x0 + w) & (ys >= y0) & (ys < y0 + h))[0]
    if not len(inside):
        return
    seen = inside[mem.visible[ys[inside] - y0, xs[inside] - x0]]
    tick, area_id = world.tick, char.area
    for i in seen.tolist():
        eid = ids[i]
        if eid == char.id:
            continue
        x, y = int(xs[i]), int(ys[i])
        known = mem.entities.get(eid)
        if known is not None and known["x"] == x and known["y"] == y and known["area"] == area_id:
            known["tick"] = tick
        else:
            mem.entities[eid] = {"id": eid, "kind": world.entities[eid].kind, "x": x, "y": y,
                                 "area": area_id, "tick": tick}
    # The oldest memories go first, in batches (sorting every tick would cost more than the
    # memory saves); what is in view now is always kept.
    keep = max(world.content.vision.memory_entities, len(seen))
    if len(mem.entities) > keep + 32:
        oldest = sorted(mem.entities.values(), key=lambda e: (e["tick"], e["id"]))
        for e in oldest[: len(mem.entities) - keep]:
            del mem.entities[e["id"]]
