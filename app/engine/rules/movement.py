"""move (one step) and move_to (path-found with tcod, re-planned when a body blocks the way)."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice
from typing import TYPE_CHECKING

import numpy as np
import tcod.path

from .. import astar, codes, homes
from ..errors import Refusal
from ..handlers import DIRECTIONS, Arg, Handler, register
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
        raise Refusal(codes.OUT_OF_BOUNDS, f"({x}, {y}) is outside the map")
    if not world.walkable(area, x, y, char):
        raise Refusal(codes.BLOCKED, f"({x}, {y}) is blocked by {_what_blocks(world, area, x, y)}")


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


FIRST_MARGIN = 8  # tiles round the start and goal of the first window searched
GOAL_ROOM = 4  # tiles round the goal in which a walled-in goal is looked for first
UNREACHED = astar.UNREACHED


def window_path(base: np.ndarray, start: tuple[int, int], goal: tuple[int, int],
                opened: Iterable[tuple[int, int]] = (), bodies: Iterable | np.ndarray = (),
                margin: int = FIRST_MARGIN,
                blocked: np.ndarray | None = None,
                pockets: list | None = None) -> list[tuple[int, int]] | None:
    """tcod's A* from `start` to `goal` over `base` ([x, y] costs; `opened` tiles cost 1,
    bodies block, the goal itself always passes), searched in a window round the two and
    widened until the search stayed inside it. The bodies: `bodies` ((x, y) pairs), or
    `blocked`, a [x, y] mask of the map's bodies (World.body_grid; the walker's own ignored).

    Exactly the path a search over the whole map finds: tcod's heap orders by priority only
    (distance + Manhattan distance to the goal, the same wherever the window lies), so a
    search whose frontier never reached a window edge that has map beyond it made the same
    pushes and pops, in the same order, as the search over the whole map (which then never
    looked past the window either). A search that touched such an edge is done again in a
    window four times as wide, up to the whole map, where no check is needed. A goal walled
    in (a tree inside a wood, a tile ringed by bodies) is found without a wider search: the
    search would have walked everything the start can reach before giving up.
    None when there is no way; [] when already there. With a solid goal (a tree) the path
    ends next to it. `pockets`: a list that gets (x0, y0, reached), a [x, y] mask of every tile
    the start reaches, when a search found no way after walking all of them (see Pockets)."""
    if start == goal:
        return []
    opened = list(opened)
    if blocked is None:
        blocked = np.zeros(base.shape, dtype=bool)
        pairs = np.asarray(bodies, dtype=np.int64).reshape(-1, 2)
        blocked[pairs[:, 0], pairs[:, 1]] = True
    if _boxed_in(base, start, goal, opened, blocked):
        return None
    width, height = base.shape
    (sx, sy), (gx, gy) = start, goal
    margin = max(margin, 1)  # a window one tile wide would trip tcod's loop check
    lo_x, hi_x, lo_y, hi_y = min(sx, gx), max(sx, gx), min(sy, gy), max(sy, gy)
    while True:
        x0, x1 = _span(lo_x - margin, hi_x + margin + 1, width)
        y0, y1 = _span(lo_y - margin, hi_y + margin + 1, height)
        search = astar.searcher((x1 - x0, y1 - y0))
        goal_open = _window_cost(base, (x0, y0, x1, y1), start, goal, opened, blocked,
                                 search.cost)
        found = search.search((sx - x0, sy - y0), (gx - x0, gy - y0))[1:]
        whole = x0 == 0 and y0 == 0 and x1 == width and y1 == height
        if whole or not _reached_edge(search.distance, (x0, y0, x1, y1), base.shape):
            break
        if not found and _walled_in(base, start, goal, opened, blocked):
            return None  # a walled-in goal has no path in any window: no wider search
        margin *= 4
    path: list | None = [(x + x0, y + y0) for x, y in found]
    if not path:
        path = None
        if pockets is not None:  # the search stayed inside: it walked all the start reaches
            pockets.append((x0, y0, search.distance != UNREACHED))
    elif not goal_open:
        path = path[:-1]
    return path


WINDOW_STEP = 16  # window sides are rounded up to a multiple of this: fewer shapes to keep


def _span(lo: int, hi: int, size: int) -> tuple[int, int]:
    """[lo, hi) clipped to [0, size), then widened to a multiple of WINDOW_STEP (or the whole
    side) so that searches share a few window shapes (astar.searcher); a wider window finds
    the same path."""
    lo, hi = max(lo, 0), min(hi, size)
    side = min(-(-(hi - lo) // WINDOW_STEP) * WINDOW_STEP, size)
    hi = min(lo + side, size)
    return hi - side, hi


def _window_cost(base: np.ndarray, window: tuple[int, int, int, int], start: tuple[int, int],
                 goal: tuple[int, int], opened: list[tuple[int, int]], blocked: np.ndarray,
                 cost: np.ndarray) -> bool:
    """Write the search's costs in `window` (x0, y0, x1, y1) into `cost`, the goal passable;
    whether the goal was passable before."""
    x0, y0, x1, y1 = window
    np.copyto(cost, base[x0:x1, y0:y1])
    for x, y in opened:
        if x0 <= x < x1 and y0 <= y < y1:
            cost[x - x0, y - y0] = 1
    sx, sy = start[0] - x0, start[1] - y0
    inside = 0 <= sx < x1 - x0 and 0 <= sy < y1 - y0
    own = cost[sx, sy] if inside else 0
    cost[blocked[x0:x1, y0:y1]] = 0
    if inside:
        cost[sx, sy] = own  # the walker's own body does not block it
    gx, gy = goal[0] - x0, goal[1] - y0
    goal_open = bool(cost[gx, gy])
    cost[gx, gy] = 1  # so a solid goal (a tree) is reached by standing next to it
    return goal_open


def _boxed_in(base: np.ndarray, start: tuple[int, int], goal: tuple[int, int],
              opened: list[tuple[int, int]], blocked: np.ndarray) -> bool:
    """The commonest walled-in goal, told without a search: no tile beside it is passable
    and the start is not beside it (a tree inside a wood, a tile of a lake)."""
    width, height = base.shape
    gx, gy = goal
    for x, y in ((gx + 1, gy), (gx - 1, gy), (gx, gy + 1), (gx, gy - 1)):
        if not (0 <= x < width and 0 <= y < height):
            continue
        if (x, y) == start:
            return False
        if (base[x, y] > 0 or (x, y) in opened) and not blocked[x, y]:
            return False
    return True


def _walled_in(base: np.ndarray, start: tuple[int, int], goal: tuple[int, int],
               opened: list[tuple[int, int]], blocked: np.ndarray) -> bool:
    """Is the goal in a pocket of passable tiles, inside a few tiles round it, that neither
    holds the start nor touches it? Then no search reaches it: every step of a path enters a
    passable tile, so a path's tiles after the start are all in the goal's pocket."""
    width, height = base.shape
    gx, gy = goal
    window = (max(gx - GOAL_ROOM, 0), max(gy - GOAL_ROOM, 0),
              min(gx + GOAL_ROOM + 1, width), min(gy + GOAL_ROOM + 1, height))
    x0, y0, x1, y1 = window
    cost = np.empty((x1 - x0, y1 - y0), dtype=np.int8)
    _window_cost(base, window, start, goal, opened, blocked, cost)
    # The pocket: what the goal reaches over passable tiles. tcod's dijkstra2d fills the
    # same distances a Pathfinder resolved from the goal would, without building a graph and
    # a pathfinder for a window of 81 tiles (several times the search's own cost).
    distance = tcod.path.maxarray(cost.shape, dtype=np.int32)
    distance[gx - x0, gy - y0] = 0
    tcod.path.dijkstra2d(distance, cost, 1, 0, out=distance)
    pocket = distance != UNREACHED
    if _reached_edge(distance, window, base.shape):
        return False  # the pocket may go on past the window
    sx, sy = start
    for x, y in ((sx, sy), (sx + 1, sy), (sx - 1, sy), (sx, sy + 1), (sx, sy - 1)):
        if x0 <= x < x1 and y0 <= y < y1 and pocket[x - x0, y - y0]:
            return False
    return True


def _reached_edge(dist: np.ndarray, window: tuple[int, int, int, int],
                  shape: tuple[int, int]) -> bool:
    """Did the search reach a tile of a window edge that has map beyond it?"""
    x0, y0, x1, y1 = window
    # the edges' least distance, in one array (a comparison and an any per edge cost three
    # times as much; a crowd's re-plans ask this 150 times a tick)
    edges = []
    if x0 > 0:
        edges.append(dist[0, :])
    if x1 < shape[0]:
        edges.append(dist[-1, :])
    if y0 > 0:
        edges.append(dist[:, 0])
    if y1 < shape[1]:
        edges.append(dist[:, -1])
    return bool(edges) and int(np.concatenate(edges).min()) != UNREACHED


_NO_BODIES: dict[tuple[int, int], np.ndarray] = {}  # an empty mask per map shape (read only)
MEMO_PATHS = 8192  # a crowd's walks are checked at submit, at the tick and at the start
POCKETS = "pockets"  # the path memo's key for a walker's pockets (see Pockets)
POCKETS_KEPT = 8  # pockets kept per walker and area version


class Pockets:
    """What a walker reaches, learnt from its searches that found no way: a walker shut in
    (a forager that walled itself in with its stations, a lake shore) asks for one unreachable
    goal after another, and each search walks the same pocket again to the same no.

    A search that found no way and stayed inside its window walked every tile the start
    reaches: the pocket. From any tile of it, with the same terrain, structures and opened
    doors (the memo's key: walker, area, area version), nothing outside it is reached either
    (what the later start reaches, the first start reached through it), so a goal that is
    neither in the pocket nor beside one of its tiles (a solid goal is reached by standing next
    to it) has no way: the answer a search would give, without the search. A walker keeps
    the pockets of its area's current version only (a few masks of a window each)."""

    @staticmethod
    def of(world: World, char: Character, area: Area) -> list:
        """The walker's pockets in this version of its area (a list to append to)."""
        key = (POCKETS, char.id, char.area)
        kept = world.path_memo.get(key)
        if kept is None or kept[0] != area.version or len(kept[1]) >= POCKETS_KEPT:
            kept = world.path_memo[key] = (area.version, [])
        return kept[1]

    @staticmethod
    def shut_out(pockets: list, start: tuple[int, int], goal: tuple[int, int]) -> bool:
        """Is `goal` out of reach of `start` by a pocket that holds the start?"""
        sx, sy = start
        gx, gy = goal
        for x0, y0, reached in pockets:
            width, height = reached.shape
            if not (0 <= sx - x0 < width and 0 <= sy - y0 < height and reached[sx - x0, sy - y0]):
                continue
            for x, y in ((gx, gy), (gx + 1, gy), (gx - 1, gy), (gx, gy + 1), (gx, gy - 1)):
                if 0 <= x - x0 < width and 0 <= y - y0 < height and reached[x - x0, y - y0]:
                    return False
            return True
        return False


def find_path(world: World, char: Character, x: int, y: int, avoid_bodies: bool) -> list | None:
    area = world.area_of(char)
    # A check at submit, again at the tick and at the start ask the same question: answer
    # once. The key holds all the search depends on (area ids are never reused; the version
    # moves with every change of terrain, structures and locks).
    memo_key = (char.id, char.area, char.x, char.y, x, y, area.version)
    if not avoid_bodies and memo_key in world.path_memo:
        found = world.path_memo[memo_key]
        return None if found is None else list(found)
    pockets = None
    if not avoid_bodies:  # bodies move every tick: only a search without them has pockets
        pockets = Pockets.of(world, char, area)
        if Pockets.shut_out(pockets, (char.x, char.y), (x, y)):
            world.path_memo[memo_key] = None
            return None
    base, doors = homes.base_cost(world, area)
    blocked = world.body_grid(char.area) if avoid_bodies else _NO_BODIES.get(base.shape)
    if blocked is None:
        blocked = np.zeros(base.shape, dtype=bool)
        blocked.flags.writeable = False
        _NO_BODIES[base.shape] = blocked
    opened = doors.get(char.id, ())
    if avoid_bodies and _shut_in(base, (char.x, char.y), (x, y), opened, blocked):
        return None
    path = window_path(base, (char.x, char.y), (x, y), opened, blocked=blocked,
                       pockets=pockets)
    if not avoid_bodies:
        memo = world.path_memo
        if len(memo) > MEMO_PATHS:
            # the older half goes (a dict keeps its order of insertion): a crowd checks two
            # hundred new walks at submit in a tick and again at the next, and clearing the
            # whole memo lost those between the two (a search each, 0.14 ms)
            for old in list(islice(memo, len(memo) // 2)):
                del memo[old]
        world.path_memo[memo_key] = None if path is None else tuple(path)
    return path


SHUT_IN_TILES = 16  # the most tiles of a walker's pocket among bodies walked before a search


def _shut_in(base: np.ndarray, start: tuple[int, int], goal: tuple[int, int],
             opened: Iterable[tuple[int, int]], blocked: np.ndarray) -> bool:
    """Is the start in a pocket of at most SHUT_IN_TILES passable tiles (bodies block, the
    walker's own does not) that neither holds the goal nor touches it? Then window_path finds
    no way: every tile of a path is in the start's pocket, the goal (which always passes)
    included. A walker in a packed crowd is most often ringed by bodies on its own tile, and
    walking its pocket costs a few lookups where a search costs a window's arrays."""
    if start == goal:
        return False
    width, height = base.shape
    seen, todo = {start}, [start]
    while todo:
        x, y = todo.pop()
        for step in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if step == goal:
                return False
            nx, ny = step
            if step in seen or not (0 <= nx < width and 0 <= ny < height) \
                    or blocked[nx, ny] or not (base[nx, ny] > 0 or step in opened):
                continue
            if len(seen) >= SHUT_IN_TILES:
                return False  # a pocket this big: the search decides
            seen.add(step)
            todo.append(step)
    return True


def _check_move_to(world: World, char: Character, args: dict) -> None:
    require_in_area(world, char, args["x"], args["y"])
    if find_path(world, char, args["x"], args["y"], avoid_bodies=False) is None:
        raise Refusal(codes.NO_PATH, f"{char.name} has no way to ({args['x']}, {args['y']})")


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
                raise Refusal(codes.NO_PATH,
                              f"the way to ({op.args['x']}, {op.args['y']}) is blocked")
            op.path, op.stuck = path, 0
    op.wait = step_ticks(world, char)
    return False


register(Handler("move_to", "movement", {"x": Arg("int", low=0, high=4095, help="x of the tile to walk to"),
                                         "y": Arg("int", low=0, high=4095, help="y of the tile to walk to")},
                 _check_move_to, _move_to, begin=_begin_move_to, recheck=False,
                 help="walk a found path to a tile (or next to it when the tile is solid)"))
