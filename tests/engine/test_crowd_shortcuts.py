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


def test_pairs_are_matched_as_a_search_of_the_old_pairs_matches_them():
    rng = np.random.default_rng(7)
    for size in (0, 1, 50, 2000):
        new = np.unique(rng.integers(0, 4 * size + 1, size))
        old = np.unique(np.concatenate([new[rng.random(len(new)) < 0.8],
                                        rng.integers(0, 4 * size + 1, size // 5)]))
        kept, held = vision._matched(old.astype(np.int64), new.astype(np.int64))
        assert np.array_equal(kept, np.isin(new, old))
        assert np.array_equal(held, np.isin(old, new))
