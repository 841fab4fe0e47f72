"""A crowd's vision reads its bodies from a cell index instead of walking every body of the area
for every character (issue 22: per character a tick cost 0.1 ms with 9 characters, 0.27 ms with
100). What each character remembers is what the walk gave. (Not in the walk's order: nothing
reads the memory's order, observations and forgetting sort it by tick and id.)"""

from __future__ import annotations

from asiworld.engine import vision
from asiworld.headless.bench import _spread
from asiworld.headless.run import Run, RunConfig

CROWD = vision.CROWD  # the shipped threshold (the tests move it)


def crowd_after(ticks: int, crowd_from: int, monkeypatch) -> Run:
    monkeypatch.setattr(vision, "CROWD", crowd_from)
    run = Run(RunConfig(seed=5, minutes=0, agents=["forager", "planner", "random"] * 30,
                        stagger_ticks=0, size=64))
    run.pipeline.step()
    _spread(run.pipeline.world, 5)  # half of them meet others on the way back, half stay packed
    for _ in range(ticks):
        run.pipeline.step()
    return run


def memories(run: Run) -> dict[int, dict]:
    world = run.pipeline.world
    for mem in world.memory.values():
        mem.settle()
    return {cid: dict(mem.entities) for cid, mem in world.memory.items()}


def test_a_crowd_remembers_what_the_walk_over_every_body_remembered(monkeypatch):
    indexed = crowd_after(150, crowd_from=CROWD, monkeypatch=monkeypatch)
    walked = crowd_after(150, crowd_from=10**9, monkeypatch=monkeypatch)
    assert len(indexed.pipeline.world.areas[0].occupant) >= CROWD  # the index was used
    assert memories(indexed) == memories(walked)  # the same entries
    assert indexed.pipeline.world.state_hash() == walked.pipeline.world.state_hash()
    for cid in list(indexed.pipeline.world.memory)[::7]:  # and what they are shown
        shown = [w.observe(cid, consume=False) for w in (indexed.world, walked.world)]
        assert shown[0] == shown[1]


def test_the_index_gives_a_windows_bodies_in_the_areas_order():
    from asiworld.engine import World

    world = World.create(seed=3, size=48)
    for i in range(70):
        world.add_character(f"c{i}")
    area = world.areas[0]
    index = vision.BodyIndex(area)
    x0, y0 = world.landmarks.plaza
    window = (x0 - 3, y0 - 3, x0 + 4, y0 + 4)
    walk = [(x, y, eid) for (x, y), eid in area.occupant.items()
            if window[0] <= x < window[2] and window[1] <= y < window[3]]
    got = [(x, y, eid) for _, x, y, eid in index.within(*window)
           if window[0] <= x < window[2] and window[1] <= y < window[3]]
    assert got == walk and len(walk) > 20


def walking_crowd(ticks: int, crowd_from: int, monkeypatch):
    """80 characters on a 48-tile world, a seeded few of them sent walking every tick (no
    agents: nothing observes them between ticks, so nothing settles their memories)."""
    import random

    from asiworld.engine import World

    monkeypatch.setattr(vision, "CROWD", crowd_from)
    world = World.create(seed=9, size=48)
    chars = [world.add_character(f"c{i}") for i in range(80)]
    rng = random.Random(4)
    for _ in range(ticks):
        for cid in rng.sample(chars, 6):
            world.submit(cid, {"type": "move_to", "x": rng.randrange(48), "y": rng.randrange(48)})
        world.step()
    return world


def test_a_crowd_update_stamps_only_what_changed_and_settling_gives_the_walks_memory(monkeypatch):
    indexed = walking_crowd(60, crowd_from=CROWD, monkeypatch=monkeypatch)
    walked = walking_crowd(60, crowd_from=10**9, monkeypatch=monkeypatch)
    raw = {cid: {e: dict(v) for e, v in mem.entities.items()}
           for cid, mem in indexed.memory.items()}
    for mem in indexed.memory.values():
        mem.settle()
    settled = {cid: dict(mem.entities) for cid, mem in indexed.memory.items()}
    assert raw != settled  # the ticks of bodies standing still were left to the settling
    assert settled == {cid: dict(mem.entities) for cid, mem in walked.memory.items()}
    # a snapshot settles first: the restored world remembers what the walk remembered
    from asiworld.engine import World

    unsettled = walking_crowd(60, crowd_from=CROWD, monkeypatch=monkeypatch)
    restored = World.restore(unsettled.snapshot())
    assert {c: dict(m.entities) for c, m in restored.memory.items()} == \
        {c: dict(m.entities) for c, m in walked.memory.items()}


def test_a_crowd_too_big_for_one_table_is_compared_in_runs_of_viewers(monkeypatch):
    # a crowd's (viewer, body) pairs are cells of a viewers-by-bodies table of at most
    # TABLE_CELLS: with room for a few viewers only, the viewers go in runs, and remember the
    # same
    indexed = walking_crowd(30, crowd_from=CROWD, monkeypatch=monkeypatch)
    monkeypatch.setattr(vision, "TABLE_CELLS", 4 * len(indexed.areas[0].occupant))
    tables: list[int] = []
    compared = vision._compared
    monkeypatch.setattr(vision, "_compared", lambda *a: (tables.append(a[2]), compared(*a))[1])
    chunked = walking_crowd(30, crowd_from=CROWD, monkeypatch=monkeypatch)
    assert tables and max(tables) <= vision.TABLE_CELLS  # in runs of a few viewers
    walked = walking_crowd(30, crowd_from=10**9, monkeypatch=monkeypatch)
    for w in (indexed, chunked):
        for mem in w.memory.values():
            mem.settle()
    want = {cid: dict(mem.entities) for cid, mem in walked.memory.items()}
    assert {cid: dict(mem.entities) for cid, mem in chunked.memory.items()} == want
    assert {cid: dict(mem.entities) for cid, mem in indexed.memory.items()} == want


def test_the_same_crowd_run_twice_gives_the_same_world_and_memories(monkeypatch):
    # the pairs of a crowd's update are sorted arrays, and memories are written in their
    # order: nothing in it depends on a set's or a dict's hashing
    first = crowd_after(120, crowd_from=CROWD, monkeypatch=monkeypatch)
    again = crowd_after(120, crowd_from=CROWD, monkeypatch=monkeypatch)
    assert first.pipeline.world.state_hash() == again.pipeline.world.state_hash()
    assert [list(m.entities.items()) for m in first.pipeline.world.memory.values()] == \
        [list(m.entities.items()) for m in again.pipeline.world.memory.values()]
    assert memories(first) == memories(again)
