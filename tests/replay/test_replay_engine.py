"""The replay layer with the real engine: its frames round-trip, seek, render and verify."""

from __future__ import annotations

import random

import pytest
from asiworld import engine
from asiworld.engine.frames import FrameBuilder
from asiworld.replay import Replay
from asiworld.replay.apply import apply_frame
from asiworld.replay.render import render_state
from asiworld.replay.session import RunRecording
from asiworld.replay.verify import verify_replay
from engine_runs import busy_action

TICKS = 240


def record_engine_run(path, tamper_at: int | None = None, observe: bool = False):
    world = engine.World.create(seed=21, content=engine.load_content(), size=48)
    chars = [world.add_character(name=f"r{i}", label="test") for i in range(3)]
    fb = FrameBuilder(world)
    recording = RunRecording.start(
        path,
        world,
        fb,
        configurations=[{"name": "busy", "characters": chars}],
        keyframe_every=100,
        frames_per_chunk=30,
        hash_every=20,
    )
    rng = random.Random(5)
    frames = [None]
    for _ in range(TICKS):
        for cid in chars:
            if rng.random() < 0.3:
                if observe:
                    world.observe(cid)
                world.submit(cid, busy_action(rng, world, cid))
        if tamper_at is not None and world.tick == tamper_at:
            world.input_log.append((world.tick, chars[0], {"type": "move", "dir": "n"}))
        frames.append(recording.after_step(world.step()))
    recording.close()
    return frames


@pytest.fixture(scope="module")
def engine_run(tmp_path_factory):
    path = tmp_path_factory.mktemp("engine") / "run.asirep"
    return path, record_engine_run(path)


def test_engine_frames_round_trip_and_seek_like_sequential_application(engine_run):
    path, frames = engine_run
    with Replay.open(path) as replay:
        got = list(replay.frames())
        assert got[1:] == frames[1:]
        state = None
        for frame in got:
            state = apply_frame(state, frame)
            if frame["tick"] in (99, 100, 157, TICKS):
                seeked = replay.state_at(frame["tick"])
                assert seeked["entities"] == state["entities"]
                assert seeked["areas"]["0"]["tiles"] == state["areas"]["0"]["tiles"]
                assert seeked.get("structures") == state.get("structures")


def test_verify_passes_on_an_engine_run_and_fails_on_a_forged_input(engine_run, tmp_path):
    with Replay.open(engine_run[0]) as replay:
        verdict = verify_replay(replay)
    assert verdict.ok, verdict.message
    assert verdict.checked == TICKS // 20
    forged = tmp_path / "forged.asirep"
    record_engine_run(forged, tamper_at=130)  # the log says a move happened that never did
    with Replay.open(forged) as replay:
        verdict = verify_replay(replay)
    assert not verdict.ok
    assert verdict.mismatch_tick == 140 or verdict.code == "log_mismatch"


def test_verify_passes_on_a_run_whose_agents_observe(tmp_path):
    path = tmp_path / "observed.asirep"
    record_engine_run(path, observe=True)
    with Replay.open(path) as replay:
        assert verify_replay(replay).ok


def test_an_engine_keyframe_renders(engine_run):
    with Replay.open(engine_run[0]) as replay:
        image = render_state(replay.state_at(120))
    assert image.size[0] == 48 * 10
