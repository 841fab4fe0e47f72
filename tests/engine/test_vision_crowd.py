"""A crowd's vision reads its bodies from a cell index instead of walking every body of the area
for every character (issue 22: per character a tick cost 0.1 ms with 9 characters, 0.27 ms with
100). What each character remembers, and in what order, is what the walk gave."""

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


def memories(run: Run) -> dict[int, list]:
    world = run.pipeline.world
    return {cid: list(mem.entities.items()) for cid, mem in world.memory.items()}


def test_a_crowd_remembers_what_the_walk_over_every_body_remembered(monkeypatch):
    indexed = crowd_after(150, crowd_from=CROWD, monkeypatch=monkeypatch)
    walked = crowd_after(150, crowd_from=10**9, monkeypatch=monkeypatch)
    assert len(indexed.pipeline.world.areas[0].occupant) >= CROWD  # the index was used
    assert memories(indexed) == memories(walked)  # the same entries in the same order
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
