"""move (one step) and move_to (path-found with tcod, re-planned when a body blocks the way)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import tcod.path

from .. import homes
from ..actions import DIRECTIONS, Arg, Handler, register
from ..errors import Refusal
from ..model import Area, Character, Op
from .common import a, require_in_area

if TYPE_CHECKING:
    from ..world import World

STUCK_REPLAN = 3  # ticks to wait for a blocking body before finding another way


def step_ticks(world: World, char: Character) -> int:
    c = world.content.character
    return c.exhausted_move_ticks if char.energy <= 0 else c.move_ticks


def _check_move(world: World, char: Character, args: dict) -> None:
    dx, dy = DIRECTIONS[args["dir"]]
    x, y = char.x + dx, char.y + dy
    area = world.area_of(char)
    if not area.in_bounds(x, y):
        raise Refusal("out_of_bounds", f"({x}, {y}) is outside the map")
    if not world.walkable(area, x, y, char):
        raise Refusal("blocked", f"({x}, {y}) is blocked by {_what_blocks(world, area, x, y)}")


def _what_blocks(world: World, area: Area, x: int, y: int) -> str:
    occ = area.occupant.get((x, y))
    if occ is not None:
        return world.entities[occ].kind
    s = area.structures.get((x, y))
    if s is not None:
        return f"a locked {s.kind}" if s.locked else a(s.kind)
    return world.tile_name(area, x, y)


def _begin_move(world: World, char: Character, op: Op) -> None:
    op.wait = step_ticks(world, char)


def _move(world: World, char: Character, op: Op) -> bool:
    dx, dy = DIRECTIONS[op.args["dir"]]
    world.move_entity(char, char.x + dx, char.y + dy)
    op.result = {"x": char.x, "y": char.y}
    return True


register(Handler("move", "movement", {"dir": Arg("dir", help="n (north, up the map), s, e or w")}, _check_move, _move, begin=_begin_move,
                 help="one step north, south, east or west"))


def cost_xy(world: World, area: Area, char: Character) -> np.ndarray:
    """Path cost for this character, indexed [x, y] (tcod's node order, contiguous): terrain
    and structures, with its own locked doors open. The shared part is cached per area version,
    so only the character's doors are applied to a copy."""
    key = (area.id, area.version)
    base = world.path_cache.get(key)
    if base is None:
        walk = world.content.walk_lut[area.terrain].astype(np.int8)
        for (x, y), s in area.structures.items():
            if not homes.passable(s, None, world.content):
                walk[y, x] = 0
        base = np.ascontiguousarray(walk.T)
        for stale in [k for k in world.path_cache if k[0] == area.id]:
            del world.path_cache[stale]
        world.path_cache[key] = base
    cost = base.copy()
    for (x, y), s in area.structures.items():
        if s.kind == "door" and s.locked and s.owner == char.id:
            cost[x, y] = 1
    return cost


def find_path(world: World, char: Character, x: int, y: int, avoid_bodies: bool) -> list | None:
    area = world.area_of(char)
    # A check at submit, again at the tick and at the start ask the same question: answer once.
    memo_key = (char.id, char.area, char.x, char.y, x, y, area.version)
    if not avoid_bodies and memo_key in world.path_memo:
        found = world.path_memo[memo_key]
        return None if found is None else list(found)
    cost = cost_xy(world, area, char)
    if avoid_bodies:
        for (ox, oy), eid in area.occupant.items():
            if eid != char.id:
                cost[ox, oy] = 0
    goal_open = bool(cost[x, y])
    cost[x, y] = 1  # so a solid goal (a tree) is reached by standing next to it
    graph = tcod.path.SimpleGraph(cost=cost, cardinal=1, diagonal=0)
    graph.set_heuristic(cardinal=1, diagonal=0)
    finder = tcod.path.Pathfinder(graph)
    finder.add_root((char.x, char.y))
    path: list | None = [tuple(map(int, p)) for p in finder.path_to((x, y)).tolist()[1:]]
    if not path:
        path = None if (char.x, char.y) != (x, y) else []
    elif not goal_open:
        path = path[:-1]
    if not avoid_bodies:
        if len(world.path_memo) > 256:
            world.path_memo.clear()
        world.path_memo[memo_key] = None if path is None else tuple(path)
    return path


def _check_move_to(world: World, char: Character, args: dict) -> None:
    require_in_area(world, char, args["x"], args["y"])
    if find_path(world, char, args["x"], args["y"], avoid_bodies=False) is None:
        raise Refusal("no_path", f"{char.name} has no way to ({args['x']}, {args['y']})")


def _begin_move_to(world: World, char: Character, op: Op) -> None:
    op.path = find_path(world, char, op.args["x"], op.args["y"], avoid_bodies=False) or []
    op.wait = step_ticks(world, char)


def _move_to(world: World, char: Character, op: Op) -> bool:
    if not op.path:
        op.result = {"x": char.x, "y": char.y}
        return True
    nx, ny = op.path[0]
    area = world.area_of(char)
    if world.walkable(area, nx, ny, char):
        op.path.pop(0)
        op.stuck = 0
        world.move_entity(char, nx, ny)
        if not op.path:
            op.result = {"x": char.x, "y": char.y}
            return True
    else:
        op.stuck += 1
        if op.stuck >= STUCK_REPLAN:
            path = find_path(world, char, op.args["x"], op.args["y"], avoid_bodies=True)
            if path is None:
                raise Refusal("no_path", f"the way to ({op.args['x']}, {op.args['y']}) is blocked")
            op.path, op.stuck = path, 0
    op.wait = step_ticks(world, char)
    return False


register(Handler("move_to", "movement", {"x": Arg("int", low=0, high=4095, help="x of the tile to walk to"),
                                         "y": Arg("int", low=0, high=4095, help="y of the tile to walk to")},
                 _check_move_to, _move_to, begin=_begin_move_to, recheck=False,
                 help="walk a found path to a tile (or next to it when the tile is solid)"))
