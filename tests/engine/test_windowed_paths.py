"""A walk's path is searched in a window round its start and goal, widened until the search
stayed inside it: the path is always the one tcod's A* finds over the whole map (the engine's
path finding before windows), tile for tile, so every state hash stays what it was."""

from __future__ import annotations

import random

import numpy as np
import tcod.path
from asiworld.engine import World, astar, homes, load_content
from asiworld.engine.model import SURFACE
from asiworld.engine.rules import movement
from hypothesis import given, settings
from hypothesis import strategies as st

CONTENT = load_content()


def whole_map_path(base, start, goal, opened=(), bodies=()):
    """The engine's search before windows: one A* over the whole map."""
    cost = np.array(base, dtype=np.int8)
    for x, y in opened:
        cost[x, y] = 1
    for x, y in bodies:
        cost[x, y] = 0
    goal_open = bool(cost[goal])
    cost[goal] = 1
    graph = tcod.path.SimpleGraph(cost=cost, cardinal=1, diagonal=0)
    graph.set_heuristic(cardinal=1, diagonal=0)
    finder = tcod.path.Pathfinder(graph)
    finder.add_root(start)
    path = [tuple(map(int, p)) for p in finder.path_to(goal).tolist()[1:]]
    if not path:
        return None if start != goal else []
    return path if goal_open else path[:-1]


@st.composite
def maps(draw):
    width, height = draw(st.integers(2, 40)), draw(st.integers(2, 40))
    density = draw(st.sampled_from([0.0, 0.1, 0.25, 0.4, 0.55]))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    base = np.array([[0 if rng.random() < density else 1 for _ in range(height)]
                     for _ in range(width)], dtype=np.int8)
    tiles = [(x, y) for x in range(width) for y in range(height)]
    start, goal = rng.choice(tiles), rng.choice(tiles)
    bodies = rng.sample(tiles, rng.randrange(0, len(tiles) // 3 + 1))
    bodies = [p for p in bodies if p != start]
    opened = rng.sample(tiles, rng.randrange(0, 4))
    return base, start, goal, opened, bodies, draw(st.integers(0, 4))


@settings(max_examples=400, deadline=None)
@given(maps())
def test_a_window_finds_the_path_a_whole_map_search_finds(case):
    base, start, goal, opened, bodies, margin = case
    base.flags.writeable = False
    assert movement.window_path(base, start, goal, opened, bodies, margin=margin) == \
        whole_map_path(base, start, goal, opened, bodies)


def test_a_detour_round_a_wall_longer_than_the_window_is_the_whole_map_path():
    # The straight way is walled off from x = 1 to 38: the first window (margin 1) holds no
    # way round, the search reaches its edge and is done again wider.
    base = np.ones((40, 40), dtype=np.int8)
    base[1:39, 20] = 0
    base.flags.writeable = False
    path = movement.window_path(base, (20, 18), (20, 22), margin=1)
    assert path == whole_map_path(base, (20, 18), (20, 22))
    assert len(path) > 30


def test_a_goal_walled_in_has_no_path_and_one_with_a_gap_has_one():
    base = np.ones((60, 60), dtype=np.int8)
    base[28:33, 28] = base[28:33, 32] = base[28, 28:33] = base[32, 28:33] = 0
    base.flags.writeable = False
    assert movement.window_path(base, (5, 5), (30, 30), margin=1) is None
    gap = base.copy()
    gap[30, 28] = 1
    assert movement.window_path(gap, (5, 5), (30, 30), margin=1) == whole_map_path(gap, (5, 5), (30, 30))


def test_walks_in_a_crowded_world_follow_the_whole_map_paths():
    world = World.create(seed=3, size=64, content=CONTENT)
    for i in range(80):
        world.add_character(f"c{i}")
    area = world.areas[SURFACE]
    base, _ = homes.base_cost(world, area)
    rng = random.Random(5)
    chars = world.characters()
    for _ in range(300):
        char = rng.choice(chars)
        goal = (rng.randrange(area.width), rng.randrange(area.height))
        for avoid in (False, True):
            bodies = [p for p, eid in area.occupant.items() if eid != char.id] if avoid else ()
            assert movement.find_path(world, char, *goal, avoid_bodies=avoid) == \
                whole_map_path(base, (char.x, char.y), goal, (), bodies)


def test_a_goal_with_no_open_tile_beside_it_has_no_path_unless_the_start_is_beside_it():
    base = np.ones((50, 50), dtype=np.int8)
    base[20:27, 20:27] = 0  # a wood; the goal is the tree at its heart
    base.flags.writeable = False
    assert movement.window_path(base, (2, 2), (23, 23)) is None
    assert whole_map_path(base, (2, 2), (23, 23)) is None
    # a body standing on the one open tile beside a goal boxes it in too
    gap = base.copy()
    gap[23, 22] = 1
    gap[23, 21:22] = 1
    gap[23, 20] = 1
    assert movement.window_path(gap, (23, 10), (23, 23), bodies=[(23, 22)]) is None
    assert movement.window_path(gap, (23, 10), (23, 23)) == whole_map_path(gap, (23, 10), (23, 23))
    assert movement.window_path(gap, (23, 22), (23, 23)) == []  # beside a solid goal already


def test_a_searcher_kept_for_a_shape_answers_like_a_new_one_search_after_search():
    # The searchers of astar are reset between searches; one that cannot reset (a tcod
    # without the pathfinder's arrays) builds a new pathfinder; one that calls tcod's C
    # directly and one that goes through tcod's path_to: all give a new one's paths.
    rng = random.Random(11)
    for reusable, direct in ((True, True), (True, False), (False, False)):
        search = astar.Searcher((20, 24))
        search._reusable, search._direct = reusable, direct
        for _ in range(60):
            base = np.array([[0 if rng.random() < 0.3 else 1 for _ in range(24)]
                             for _ in range(20)], dtype=np.int8)
            start, goal = (rng.randrange(20), rng.randrange(24)), (rng.randrange(20), rng.randrange(24))
            base[start] = base[goal] = 1
            np.copyto(search.cost, base)
            found = [tuple(p) for p in search.search(start, goal)[1:]]
            assert (found or None) == (whole_map_path(base, start, goal) if start != goal else None)


def test_the_body_grid_follows_every_body_that_joins_moves_and_leaves():
    world = World.create(seed=4, size=48, content=CONTENT)
    chars = [world.add_character(f"c{i}") for i in range(30)]
    grid = world.body_grid(SURFACE)  # made before the crowd moves, then kept up to date
    rng = random.Random(8)
    for tick in range(80):
        for cid in rng.sample(chars, 5):
            world.submit(cid, {"type": "move_to", "x": rng.randrange(48), "y": rng.randrange(48)})
        if tick == 40:
            chars.append(world.add_character("late"))
        world.step()
    fresh = np.zeros_like(grid)
    for x, y in world.areas[SURFACE].occupant:
        fresh[x, y] = True
    assert world.body_grid(SURFACE) is grid and (grid == fresh).all()
    assert grid.sum() >= 31  # creatures too


@settings(max_examples=300, deadline=None)
@given(maps(), st.integers(0, 2**32 - 1))
def test_a_goal_outside_a_walked_pocket_has_no_path_from_anywhere_in_it(case, seed):
    # A search that found no way hands back the pocket it walked; from any tile of it, a goal
    # that Pockets says is shut out has no whole-map path either.
    base, start, goal, opened, _, margin = case
    base.flags.writeable = False
    pockets: list = []
    if movement.window_path(base, start, goal, opened, margin=margin, pockets=pockets) is not None:
        return
    rng = random.Random(seed)
    width, height = base.shape
    for x0, y0, reached in pockets:
        assert reached[start[0] - x0, start[1] - y0]
        inside = [(x + x0, y + y0) for x, y in zip(*np.nonzero(reached), strict=True)]
        for _ in range(10):
            other = rng.choice(inside)
            target = (rng.randrange(width), rng.randrange(height))
            if movement.Pockets.shut_out(pockets, other, target):
                assert whole_map_path(base, other, target, opened) is None
            else:
                assert other == target or any(
                    0 <= x - x0 < reached.shape[0] and 0 <= y - y0 < reached.shape[1]
                    and reached[x - x0, y - y0] for x, y in
                    (target, (target[0] + 1, target[1]), (target[0] - 1, target[1]),
                     (target[0], target[1] + 1), (target[0], target[1] - 1)))


def test_a_walker_shut_in_is_refused_goal_after_goal_without_a_new_search(arena, monkeypatch):
    hero = arena.hero(at=(20, 20))
    for x in range(18, 23):  # a ring of water round a 3 x 3 pocket
        for y in range(18, 23):
            if x in (18, 22) or y in (18, 22):
                arena.tile(x, y, "water")
    searches = []
    window_path = movement.window_path
    monkeypatch.setattr(movement, "window_path",
                        lambda *a, **k: searches.append(a[1:3]) or window_path(*a, **k))
    goals = [(12, 12), (28, 25), (14, 27), (26, 11)]
    for goal in goals:
        assert arena.refused(hero.id, {"type": "move_to", "x": goal[0], "y": goal[1]}) == "no_path"
    assert len(searches) == 1  # the first walked the pocket; the rest were known to be out
    arena.act(hero, {"type": "move_to", "x": 21, "y": 21}, ticks=20)  # inside: still walked
    assert (hero.x, hero.y) == (21, 21)
    assert arena.refused(hero.id, {"type": "move_to", "x": 12, "y": 12}) == "no_path"
    assert len(searches) == 2  # a walk inside the pocket was searched (a way was found)
    arena.tile(22, 20, "grass")  # a gap: the area's version moves, the pockets are forgotten
    arena.act(hero, {"type": "move_to", "x": 28, "y": 25}, ticks=1)
    assert len(searches) == 3


def test_a_full_path_memo_forgets_its_older_half_and_keeps_the_walks_just_checked(monkeypatch):
    # a crowd checks its new walks at submit and again at the tick: the memo must still hold
    # the ones just checked when it overflows between the two, and answer them alike
    monkeypatch.setattr(movement, "MEMO_PATHS", 8)
    world = World.create(seed=3, size=64, content=CONTENT)
    char = world.character(world.add_character("walker"))
    searches = []
    window_path = movement.window_path
    monkeypatch.setattr(movement, "window_path",
                        lambda *a, **k: searches.append(a[1:3]) or window_path(*a, **k))
    goals = [(char.x + dx, char.y + 3) for dx in range(-5, 5)]  # ten walks, room for eight
    first = [movement.find_path(world, char, *g, avoid_bodies=False) for g in goals]
    assert len(searches) == 10 and len(world.path_memo) <= 8
    again = [movement.find_path(world, char, *g, avoid_bodies=False) for g in goals[-4:]]
    assert again == first[-4:]
    assert len(searches) == 10  # the newest were kept: no search again
    assert movement.find_path(world, char, *goals[0], avoid_bodies=False) == first[0]
    assert len(searches) == 11  # the oldest went, and its search gives the same path
