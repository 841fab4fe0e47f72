"""The shortcuts a packed crowd's tick takes (issue 35) give what the long way gives: a field of
view kept across a new area version equals one computed again, a walker shut in among bodies
has no way exactly when a search finds none, and the crowd's pair matching marks what a
search of the old pairs marks."""

from __future__ import annotations

import numpy as np
from asiworld.engine import homes, vision
from asiworld.engine.model import SURFACE
from asiworld.engine.rules import movement
from asiworld.headless.bench import _spread
from asiworld.headless.run import Run, RunConfig


def crowd(spread: bool) -> Run:
    run = Run(RunConfig(seed=5, minutes=0, agents=["forager", "planner", "random"] * 30,
                        stagger_ticks=0, size=64))
    run.pipeline.step()
    if spread:
        _spread(run.pipeline.world, 5)
    return run


def test_a_field_of_view_kept_across_new_area_versions_is_the_one_computed_again(monkeypatch):
    kept = []
    see = vision._see

    def counting(world, char, r=None):
        before = world.memory[char.id].key
        new = see(world, char, r)
        after = world.memory[char.id].key
        if after != before and not new:
            kept.append(char.id)
        return new

    monkeypatch.setattr(vision, "_see", counting)
    run = crowd(spread=False)
    world = run.pipeline.world
    for _ in range(40):
        run.pipeline.step()
        for char in world.characters():
            mem = world.memory[char.id]
            area = world.areas[char.area]
            r = mem.key[3]
            h, w = mem.visible.shape
            see_through = vision.transparency(world, area, mem.x0, mem.y0, mem.x0 + w, mem.y0 + h)
            fresh = vision.field_of_view(see_through, (char.y - mem.y0, char.x - mem.x0), r)
            assert mem.key[:3] == (char.area, char.x, char.y)
            assert np.array_equal(mem.visible, fresh), char.id
    assert kept  # foragers changed the area while views stood still: some were kept


def test_a_walker_shut_in_among_bodies_has_no_way_exactly_when_a_search_finds_none():
    run = crowd(spread=False)
    for _ in range(30):
        run.pipeline.step()
    world = run.pipeline.world
    area = world.areas[SURFACE]
    base, doors = homes.base_cost(world, area)
    blocked = world.body_grid(SURFACE)
    rng = np.random.default_rng(5)
    shut = 0
    for char in world.characters():
        for _ in range(4):
            goal = (int(rng.integers(area.width)), int(rng.integers(area.height)))
            start = (char.x, char.y)
            opened = doors.get(char.id, ())
            searched = movement.window_path(base, start, goal, opened, blocked=blocked)
            if movement._shut_in(base, start, goal, opened, blocked):
                shut += 1
                assert searched is None, (start, goal)
    assert shut  # a packed plaza rings some walkers with bodies


def test_a_crowd_without_the_shut_in_shortcut_runs_the_same(monkeypatch):
    hashes = []
    for shortcut in (True, False):
        if not shortcut:
            monkeypatch.setattr(movement, "_shut_in", lambda *args: False)
        run = crowd(spread=False)
        for _ in range(40):
            run.pipeline.step()
        hashes.append(run.pipeline.world.state_hash())
    assert hashes[0] == hashes[1]


def _random_views(rng: np.random.Generator, viewers: int, bodies: int) -> list[list[int]]:
    """Per viewer, the keys of the bodies it sees, in the windows' order."""
    out = []
    for _ in range(viewers):
        ids = rng.choice(bodies, rng.integers(0, bodies + 1), replace=False)
        out.append(sorted(vision.key(int(i), int(rng.integers(0, 9)), 0) for i in ids))
    return out


def _flat(views: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """(viewer of each pair, body key of each pair), viewer by viewer."""
    return (np.array([i for i, v in enumerate(views) for _ in v], np.int64),
            np.array([k for v in views for k in v], np.int64))


def test_a_body_came_into_a_view_or_left_it_exactly_when_its_viewer_did_not_see_it_before_or_now():
    """_came_and_left against sets: a pair came when its viewer's old view had no pair of that
    body; left when the new view has none. A body that moved within a view did neither. In one
    table and in runs of two viewers."""
    rng = np.random.default_rng(7)
    for viewers, bodies in ((1, 1), (3, 5), (40, 60), (200, 400)):
        old_views = _random_views(rng, viewers, bodies)
        new_views = _random_views(rng, viewers, bodies)
        for i, row in enumerate(old_views):  # half the bodies of each view stay where they were
            by_id = {k >> vision.KEY_ID: k for k in new_views[i]}
            by_id.update({k >> vision.KEY_ID: k for k in row[: len(row) // 2]})
            new_views[i] = sorted(by_id.values())
        old_slot, old = _flat(old_views)
        new_slot, new = _flat(new_views)
        ids_before = [{k >> vision.KEY_ID for k in v} for v in old_views]
        ids_now = [{k >> vision.KEY_ID for k in v} for v in new_views]
        want_came = [k >> vision.KEY_ID not in ids_before[s]
                     for s, k in zip(new_slot.tolist(), new.tolist(), strict=True)]
        want_left = [k >> vision.KEY_ID not in ids_now[s]
                     for s, k in zip(old_slot.tolist(), old.tolist(), strict=True)]
        for cells in (vision.TABLE_CELLS, 2 * bodies):
            vision.TABLE_CELLS, kept = cells, vision.TABLE_CELLS
            try:
                came, left = vision._came_and_left(old_slot, old, new_slot, new, viewers,
                                                   bodies + 3)
            finally:
                vision.TABLE_CELLS = kept
            assert came.tolist() == want_came and left.tolist() == want_left
