"""The same seed and the same ordered inputs give the same world at every tick; other seeds differ.
A replayed input log reaches the same state hash; a snapshot restored has the same future."""

from __future__ import annotations

from asiworld.agents.bots.driver import AgentDriver
from asiworld.agents.bots.forager import Forager
from asiworld.engine import World, load_content
from asiworld.engine.resim import replay_inputs
from asiworld.pipeline import Pipeline

CONTENT = load_content()


def run(seed: int, ticks: int, checkpoints=(50, 200, 400)) -> tuple[World, dict[int, str]]:
    world = World.create(seed=seed, content=CONTENT, size=64)
    pipeline = Pipeline(world)
    driver = pipeline.add_driver(AgentDriver())
    for i in range(3):
        driver.add(world.add_character(f"f{i}", "forager"), Forager(seed=i, think_ticks=2))
    hashes = {}
    while world.tick < ticks:
        pipeline.step()
        if world.tick in checkpoints:
            hashes[world.tick] = world.state_hash()
    return world, hashes


def test_one_seed_gives_equal_hashes_at_several_ticks():
    _, a = run(11, 400)
    _, b = run(11, 400)
    assert a == b and len(a) == 3


def test_different_seeds_give_different_worlds():
    _, a = run(11, 50, checkpoints=(50,))
    _, b = run(12, 50, checkpoints=(50,))
    assert a[50] != b[50]


def test_the_input_log_replays_to_the_same_hash():
    world, _ = run(5, 300)
    again = replay_inputs(5, world.input_log, world.tick, content=CONTENT, size=64)
    assert again.state_hash() == world.state_hash()


def test_a_tampered_input_log_does_not():
    world, _ = run(5, 300)
    log = list(world.input_log)
    i = next(i for i, (_, c, a) in enumerate(log) if c is not None and a["type"] == "move_to")
    t, c, a = log[i]
    log[i] = (t, c, {"type": "wait", "ticks": 50})
    again = replay_inputs(5, log, world.tick, content=CONTENT, size=64)
    assert again.state_hash() != world.state_hash()


def test_a_restored_snapshot_has_the_same_future():
    world, _ = run(3, 200)
    copy = World.restore(world.snapshot(), CONTENT)
    assert copy.state_hash() == world.state_hash()
    for _ in range(100):
        world.step()
        copy.step()
    assert copy.state_hash() == world.state_hash()


def test_a_refused_action_leaves_the_hash_unchanged():
    world, _ = run(3, 20, checkpoints=())
    before = world.state_hash()
    assert not world.submit(1, {"type": "move", "dir": "n"}).ok
    assert world.state_hash() == before
