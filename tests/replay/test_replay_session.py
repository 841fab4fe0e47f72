"""Recording a running world with RunRecording (the glue for headless runs and the server)."""

from __future__ import annotations

import random
from types import SimpleNamespace

from asiworld.engine.frames import FrameBuilder
from asiworld.replay import Replay
from asiworld.replay.session import RunRecording
from asiworld.replay.verify import verify_replay
from engine_runs import SIZE, new_world, walk_inputs


def test_a_recording_started_mid_run_still_verifies_from_the_seed(tmp_path):
    world, chars = new_world(11, characters=2)
    fb = FrameBuilder(world)
    rng = random.Random(4)
    for _ in range(70):  # seventy ticks happen before anyone records
        world.step(walk_inputs(rng, world, chars))
    path = tmp_path / "mid.asirep"
    recording = RunRecording.start(
        path, world, fb, configurations=[{"name": "walkers", "characters": chars}], hash_every=10
    )
    for _ in range(130):
        events = world.step(walk_inputs(rng, world, chars))
        recording.on_tick(SimpleNamespace(events=events, frame=fb.frame(events)))
    recording.close()
    with Replay.open(path) as replay:
        assert replay.first_tick == 70 and replay.last_tick == 200
        assert replay.header.seed == 11 and replay.header.width == SIZE
        assert replay.header.content_hash == world.content.hash
        assert next(replay.inputs())[2]["type"] == "join"  # the log goes back to tick 0
        verdict = verify_replay(replay)
    assert verdict.ok, verdict.message
    assert verdict.checked == 13


def test_characters_are_listed_from_the_join_inputs_with_their_configuration_label(tmp_path):
    world, _ = new_world(2, characters=0)
    fb = FrameBuilder(world)
    path = tmp_path / "joins.asirep"
    recording = RunRecording.start(path, world, fb)
    for tick in range(6):
        if tick in (0, 2):
            world.add_character(f"p{tick}", label="planner")
        recording.after_step(world.step())
    recording.close()
    with Replay.open(path) as replay:
        joined = replay.characters()
    assert [(c["name"], c["label"], c["tick"]) for c in joined] == [
        ("p0", "planner", 0),
        ("p2", "planner", 2),
    ]
