"""Recording a running world with RunRecording (the glue for headless runs and the server)."""

from __future__ import annotations

from types import SimpleNamespace

from asiworld.replay import Replay
from asiworld.replay.session import RunRecording
from asiworld.replay.verify import verify_replay
from replay_fakes import FakeFrameBuilder, FakeWorld, play


def test_a_recording_started_mid_run_still_verifies_from_the_seed(tmp_path):
    world = FakeWorld.create(11, size=24)
    fb = FakeFrameBuilder(world)
    chars = [world.add_character(f"c{i}") for i in range(2)]
    plan = play(world, 200, chars, seed=4)
    for inputs in plan[:70]:  # seventy ticks happen before anyone records
        world.step(inputs)
    path = tmp_path / "mid.asirep"
    recording = RunRecording.start(
        path, world, fb, configurations=[{"name": "walkers", "characters": chars}], hash_every=10
    )
    for inputs in plan[70:]:
        events = world.step(inputs)
        recording.on_tick(SimpleNamespace(events=events, frame=fb.frame(events)))
    recording.close()
    with Replay.open(path) as replay:
        assert replay.first_tick == 70 and replay.last_tick == 200
        assert replay.header.seed == 11 and replay.header.width == 24
        assert next(replay.inputs())[2]["type"] == "join"  # the log goes back to tick 0
        verdict = verify_replay(replay, lambda seed, size: FakeWorld.create(seed, size=size))
    assert verdict.ok, verdict.message
    assert verdict.checked == 13


def test_characters_are_listed_from_the_join_inputs_with_their_configuration_label(tmp_path):
    world = FakeWorld.create(2, size=16)
    fb = FakeFrameBuilder(world)
    path = tmp_path / "joins.asirep"
    recording = RunRecording.start(path, world, fb)
    for tick in range(6):
        if tick in (0, 2):
            world.add_character(f"p{tick}", label="planner")
        recording.tick_hook(world, world.step())
    recording.close()
    with Replay.open(path) as replay:
        joined = replay.characters()
    assert [(c["name"], c["label"], c["tick"]) for c in joined] == [
        ("p0", "planner", 0),
        ("p2", "planner", 2),
    ]
