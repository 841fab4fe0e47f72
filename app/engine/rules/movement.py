"""move (one step) and move_to (path-found with tcod, re-planned when a body blocks the way)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import tcod.path

from .. import homes
from ..actions import DIRECTIONS, Arg, Handler, register
from ..errors import Refusal
from ..model import Area, Character, Op
from .common import require_in_area

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
        return f"a locked {s.kind}" if s.locked else f"a {s.kind}"
    return world.tile_name(area, x, y)


def _begin_move(world: World, char: Character, op: Op) -> None:
    op.wait = step_ticks(world, char)


def _move(world: World, char: Character, op: Op) -> bool:
    dx, dy = DIRECTIONS[op.args["dir"]]
    world.move_entity(char, char.x + dx, char.y + dy)
    op.result = {"x": char.x, "y": char.y}
    return True


register(Handler("move", "movement", {"dir": Arg("dir")}, _check_move, _move, begin=_begin_move,
                 help="one step north, south, east or west"))


def cost_for(world: World, area: Area, char: Character) -> np.ndarray:
    """Path cost for this character: terrain and structures; its own locked doors open."""
    walk = world.content.walk_lut[area.terrain].astype(np.int8)
    for (x, y), s in area.structures.items():
        if not homes.passable(s, char, world.content):
            walk[y, x] = 0
    return walk


def find_path(world: World, char: Character, x: int, y: int, avoid_bodies: bool) -> list | None:
    area = world.area_of(char)
    cost = cost_for(world, area, char)
    if avoid_bodies:
        for (ox, oy), eid in area.occupant.items():
            if eid != char.id:
                cost[oy, ox] = 0
    goal_open = bool(cost[y, x])
    cost[y, x] = 1  # so a solid goal (a tree) is reached by standing next to it
    graph = tcod.path.SimpleGraph(cost=cost.T, cardinal=1, diagonal=0)
    graph.set_heuristic(cardinal=1, diagonal=0)
    finder = tcod.path.Pathfinder(graph)
    finder.add_root((char.x, char.y))
    path = [tuple(map(int, p)) for p in finder.path_to((x, y)).tolist()[1:]]
    if not path:
        return None if (char.x, char.y) != (x, y) else []
    if not goal_open:
        path = path[:-1]
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


register(Handler("move_to", "movement", {"x": Arg("int", low=0, high=4095),
                                         "y": Arg("int", low=0, high=4095)},
                 _check_move_to, _move_to, begin=_begin_move_to, recheck=False,
                 help="walk a found path to a tile (or next to it when the tile is solid)"))
