"""World snapshots recorded in a replay (chunk W): a point of view or a fork starts from the
nearest one, and gets exactly the world a re-simulation from the seed gives, or does not use it.

Bad inputs tried: a replay without snapshots, a replay cut off after a snapshot but before its
frames, a snapshot chunk with a flipped byte (CRC), a snapshot moved to another tick, a snapshot
of a changed world with a valid CRC, a pickled snapshot (as older replays hold) with a payload
that would call a function, a snapshot of another schema version, bytes that are not zlib, and a
snapshot interval that is not a multiple of the hash interval."""

from __future__ import annotations

import random
import zlib

import pytest
from asiworld import engine
from asiworld.cli import main
from asiworld.engine import snapshot as snap
from asiworld.engine.frames import FrameBuilder
from asiworld.replay import Recorder, Replay, ReplayError
from asiworld.replay import format as fmt
from asiworld.replay.snapshots import check_blob, world_blob
from asiworld.replay.verify import verify_replay
from asiworld.replay.worlds import ReplayWorlds, point_of_view
from engine_runs import busy_action

from tests.engine.hostile import CALLS, hostile_pickle

TICKS = 240
EVERY = 60  # snapshot interval in these tests (hashes every 20)


def record(path, snapshot_every: int = EVERY) -> list[int]:
    """A 240-tick run of three busy characters (one joins at tick 70); its character ids."""
    from asiworld.replay.session import RunRecording

    world = engine.World.create(seed=21, content=engine.load_content(), size=48)
    chars = [world.add_character(name=f"r{i}", label="test") for i in range(2)]
    recording = RunRecording.start(
        path,
        world,
        FrameBuilder(world),
        keyframe_every=100,
        frames_per_chunk=30,
        hash_every=20,
        snapshot_every=snapshot_every,
    )
    rng = random.Random(5)
    for _ in range(TICKS):
        if world.tick == 70:
            chars.append(world.add_character(name="late", label="test"))
        for cid in chars:
            if rng.random() < 0.3:
                world.submit(cid, busy_action(rng, world, cid))
        recording.after_step(world.step())
    recording.close()
    return chars


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The same run recorded with snapshots and without."""
    folder = tmp_path_factory.mktemp("snapshots")
    chars = record(folder / "with.asirep")
    record(folder / "without.asirep", snapshot_every=0)
    return folder / "with.asirep", folder / "without.asirep", chars


def world_and_start(path, tick: int, worlds: ReplayWorlds | None = None):
    start: dict = {}
    with Replay.open(path) as replay:
        world = (worlds or ReplayWorlds()).world_at(replay, tick, report=start)
    return world, start


def rewrite(path, out, replace: dict[int, bytes | None]) -> None:
    """Copy a replay without its index (readers then scan it), replacing or dropping
    (None) the chunks at the given offsets."""
    with Replay.open(path) as replay:
        refs = sorted(replay.index, key=lambda r: r.offset)
        data = path.read_bytes()
    body = bytearray(data[: refs[0].offset])
    for ref in refs:
        chunk = replace.get(ref.offset, data[ref.offset : ref.offset + ref.size])
        if chunk is not None:
            body += chunk
    out.write_bytes(bytes(body))


def snapshot_ref(path, tick: int):
    with Replay.open(path) as replay:
        return next(r for r in replay.world_snapshots() if r.t0 == tick)


# --- recording -------------------------------------------------------------------------------


def test_a_recording_holds_a_world_snapshot_every_interval_and_still_verifies(runs):
    with_snaps, without, _ = runs
    with Replay.open(with_snaps) as replay:
        assert [r.t0 for r in replay.world_snapshots()] == [60, 120, 180, 240]
        assert replay.header.snapshot_every == EVERY
        assert replay.summary["counts"]["snapshots"] == 4
        assert replay.check() == []
        assert verify_replay(replay).ok
    with Replay.open(without) as replay:
        assert replay.world_snapshots() == [] and replay.header.snapshot_every == 0


def test_a_snapshot_leaves_the_input_log_to_the_replay(runs):
    state = snap.read(check_blob(_payload(runs[0], 240)))
    assert state["input_log"] == [] and state["input_log_base"] > 0


def _payload(path, tick: int) -> bytes:
    with Replay.open(path) as replay:
        ref = next(r for r in replay.world_snapshots() if r.t0 == tick)
        return replay.chunk_payload(ref)


def test_the_snapshot_interval_must_be_a_multiple_of_the_hash_interval(tmp_path):
    from asiworld.replay.header import ReplayHeader

    with pytest.raises(ReplayError) as err:
        Recorder(tmp_path / "x.asirep", ReplayHeader(seed=1), hash_every=20, snapshot_every=50)
    assert err.value.code == "bad_argument"
    with pytest.raises(ReplayError):
        Recorder(tmp_path / "y.asirep", ReplayHeader(seed=1), snapshot_every=-60)


def test_a_world_with_actions_waiting_for_the_next_step_is_not_snapshotted():
    world = engine.World.create(seed=3, content=engine.load_content(), size=48)
    cid = world.add_character(name="a", label="test")
    world.step()
    assert world_blob(world) is not None
    world.submit(cid, {"type": "move", "dir": "n"})
    assert world_blob(world) is None  # a re-simulation applies it from the log


def test_a_recording_hashes_every_minute_and_snapshots_every_ten_at_zlib_level_1(tmp_path):
    from asiworld.replay.session import RunRecording

    world = engine.World.create(seed=4, content=engine.load_content(), size=48)
    world.add_character(name="a", label="test")
    with RunRecording.start(tmp_path / "d.asirep", world, FrameBuilder(world)) as recording:
        for _ in range(600):
            recording.after_step(world.step())
    with Replay.open(tmp_path / "d.asirep") as replay:
        assert replay.header.hash_every == 60 and replay.header.snapshot_every == 600
        assert sorted(replay.hashes()) == list(range(60, 601, 60))
        assert [r.t0 for r in replay.world_snapshots()] == [600]
        assert replay.chunk_payload(replay.world_snapshots()[0])[:2] == b"\x78\x01"  # level 1
        assert verify_replay(replay).ok


def test_a_replay_written_with_level_6_snapshots_still_serves_them(tmp_path):
    # The sample replay was recorded with its snapshots at zlib level 6: a world at a tick
    # starts from its snapshot and meets the recorded hashes.
    from pathlib import Path

    sample = Path(__file__).resolve().parents[2] / "replays" / "three-configurations-30min.asirep"
    with Replay.open(sample) as replay:
        # zlib's header names the level: 0x9c the default (6), 0x01 the fastest (1)
        assert replay.chunk_payload(replay.world_snapshots()[0])[:2] == b"\x78\x9c"
    world, start = world_and_start(sample, 1260)
    assert start["from"] == "replay" and start["from_tick"] == 1200
    with Replay.open(sample) as replay:
        assert world.state_hash() == replay.hashes()[1260]


# --- the world at a tick ---------------------------------------------------------------------


@pytest.mark.parametrize("tick", [61, 139, 200, 240])
def test_the_world_from_a_snapshot_is_the_world_from_the_seed(runs, tick):
    with_snaps, without, chars = runs
    fast, start = world_and_start(with_snaps, tick)
    slow, seed_start = world_and_start(without, tick)
    assert start["from"] == "replay" and start["from_tick"] == tick // EVERY * EVERY
    assert seed_start["from"] == "seed"
    assert fast.tick == slow.tick == tick
    assert fast.state_hash() == slow.state_hash()
    assert fast.input_log == slow.input_log  # a fork keeps the whole log either way
    joined = [c for c in chars if c in slow.entities]
    assert len(joined) == (3 if tick > 70 else 2)
    for char in joined:  # memory and events are not in the hash: compare what the viewer shows
        assert point_of_view(fast, char) == point_of_view(slow, char)


def test_a_tick_with_a_recorded_hash_matches_it(runs):
    with Replay.open(runs[0]) as replay:
        hashes = replay.hashes()
        worlds = ReplayWorlds()
        for tick in (80, 180, 220):
            assert worlds.world_at(replay, tick).state_hash() == hashes[tick]


def test_a_later_request_starts_from_what_this_process_kept(runs):
    worlds = ReplayWorlds(snapshot_every=30)
    world_and_start(runs[0], 160, worlds)  # keeps 120 (from the replay) and 150
    world, start = world_and_start(runs[0], 175, worlds)
    assert start["from"] == "kept" and start["from_tick"] == 150
    assert world.state_hash() == world_and_start(runs[1], 175)[0].state_hash()


def test_a_replay_without_snapshots_is_re_simulated_from_the_seed(runs):
    world, start = world_and_start(runs[1], 100)
    with Replay.open(runs[1]) as replay:
        assert world.state_hash() == replay.hashes()[100]
    assert start == {"from": "seed", "from_tick": 0, "skipped": []}


def test_a_replay_cut_off_after_a_snapshot_uses_only_snapshots_of_ticks_it_has(runs, tmp_path):
    ref = snapshot_ref(runs[0], 180)
    cut = tmp_path / "cut.asirep"
    cut.write_bytes(runs[0].read_bytes()[: ref.offset + ref.size])  # its frames never came
    with Replay.open(cut) as replay:
        assert not replay.complete and replay.last_tick == 179
        world = ReplayWorlds().world_at(replay, 179, report=(start := {}))
        with pytest.raises(ReplayError) as err:
            ReplayWorlds().world_at(replay, 180)
    assert err.value.code == "tick_out_of_range"
    assert start["from_tick"] == 120
    assert world.state_hash() == world_and_start(runs[1], 179)[0].state_hash()


# --- snapshots that must not be used -----------------------------------------------------------


def forged(runs, tmp_path, tick: int, chunk: bytes):
    """A copy of the replay whose W chunk at `tick` is replaced by `chunk`."""
    out = tmp_path / f"forged-{tick}.asirep"
    rewrite(runs[0], out, {snapshot_ref(runs[0], tick).offset: chunk})
    return out


def expect_fallback(runs, path, tick: int, code: str, from_tick: int) -> None:
    world, start = world_and_start(path, tick)
    assert world.state_hash() == world_and_start(runs[1], tick)[0].state_hash()
    assert start["from_tick"] == from_tick
    assert [(s["tick"], s["code"]) for s in start["skipped"]] == [(from_tick + EVERY, code)]


def test_a_snapshot_chunk_with_a_flipped_byte_is_skipped_for_an_earlier_start(runs, tmp_path):
    ref = snapshot_ref(runs[0], 120)
    data = bytearray(runs[0].read_bytes())
    data[ref.offset + ref.size - 10] ^= 0xFF  # in place: the file keeps its index
    path = tmp_path / "flipped.asirep"
    path.write_bytes(bytes(data))
    expect_fallback(runs, path, 150, "corrupt_chunk", 60)
    with Replay.open(path) as replay:
        assert [e.code for e in replay.check()] == ["corrupt_chunk"]


def test_a_snapshot_under_another_tick_is_refused(runs, tmp_path):
    chunk = fmt.pack_chunk(fmt.WORLD, 120, 120, _payload(runs[0], 60))
    expect_fallback(runs, forged(runs, tmp_path, 120, chunk), 130, "bad_snapshot", 60)


def test_a_snapshot_of_a_changed_world_with_a_valid_crc_is_refused(runs, tmp_path):
    world = engine.World.restore(check_blob(_payload(runs[0], 120)), engine.load_content())
    next(iter(world.characters())).health -= 1
    chunk = fmt.pack_chunk(fmt.WORLD, 120, 120, world_blob(world))
    expect_fallback(runs, forged(runs, tmp_path, 120, chunk), 121, "bad_snapshot", 60)


def test_a_snapshot_whose_input_log_does_not_line_up_is_refused(runs, tmp_path):
    state = snap.read(check_blob(_payload(runs[0], 120)))
    state["input_log_base"] -= 1  # as if an input of tick 120 were already in the world
    chunk = fmt.pack_chunk(fmt.WORLD, 120, 120, zlib.compress(snap.write(state)))
    expect_fallback(runs, forged(runs, tmp_path, 120, chunk), 150, "bad_snapshot", 60)


def test_a_replay_with_a_pickled_snapshot_runs_nothing_and_comes_from_the_seed(runs, tmp_path):
    # What an older replay holds, crafted to call a function when unpickled.
    payload = zlib.compress(hostile_pickle(tick=120, seed=21))
    with pytest.raises(ReplayError) as err:
        check_blob(payload)
    assert err.value.code == "snapshot_pickled" and "pickle" in err.value.message
    chunk = fmt.pack_chunk(fmt.WORLD, 120, 120, payload)
    expect_fallback(runs, forged(runs, tmp_path, 120, chunk), 150, "snapshot_pickled", 60)
    assert CALLS == []


def test_a_snapshot_of_another_schema_version_or_not_zlib_is_refused():
    blob = zlib.decompress(_payload_of_ok())
    other = snap.HEAD.pack(snap.MAGIC, snap.VERSION + 1) + blob[snap.HEAD.size:]
    with pytest.raises(ReplayError) as err:
        check_blob(zlib.compress(other))
    assert err.value.code == "snapshot_version"
    with pytest.raises(ReplayError) as err:
        check_blob(b"not zlib at all")
    assert err.value.code == "bad_snapshot"
    assert check_blob(_payload_of_ok()) == blob


def _payload_of_ok() -> bytes:
    world = engine.World.create(seed=3, content=engine.load_content(), size=48)
    world.add_character(name="a", label="test")
    world.step()
    return world_blob(world)


def test_when_every_snapshot_is_unusable_the_world_comes_from_the_seed(runs, tmp_path):
    with Replay.open(runs[0]) as replay:
        refs = replay.world_snapshots()
    out = tmp_path / "all-bad.asirep"
    bad = {r.offset: fmt.pack_chunk(fmt.WORLD, r.t0, r.t0, b"junk") for r in refs}
    rewrite(runs[0], out, bad)
    worlds = ReplayWorlds()
    world, start = world_and_start(out, 200, worlds)
    assert start["from"] == "seed" and [s["tick"] for s in start["skipped"]] == [180, 120, 60]
    assert world.state_hash() == world_and_start(runs[1], 200)[0].state_hash()
    # Remembered as unusable (not read again), and still said.
    world, start = world_and_start(out, 230, worlds)
    assert start["from"] == "kept" and [s["code"] for s in start["skipped"]] == ["bad_snapshot"] * 3


# --- older replays and the server ------------------------------------------------------------


def test_a_replay_without_snapshots_is_warmed_once_in_the_background(runs):
    worlds = ReplayWorlds(snapshot_every=60)
    with Replay.open(runs[1]) as replay:
        thread = worlds.warm_in_background(replay)
        assert thread is not None
        thread.join()
        assert worlds.warm_in_background(replay) is None  # once per replay
        start: dict = {}
        world = worlds.world_at(replay, 235, report=start)
        assert start["from"] == "kept" and start["from_tick"] == 180
        assert world.state_hash() == world_and_start(runs[0], 235)[0].state_hash()
    with Replay.open(runs[0]) as replay:
        assert worlds.warm_in_background(replay) is None  # it has its own snapshots


@pytest.fixture
def client(apps, runs):

    app = apps.create({"SEED": 7, "SPEED": 10, "REPLAY_DIRS": [str(runs[0].parent)]})
    yield app.test_client()
    close_replays(app)


def close_replays(app) -> None:
    """The files the app's replay library kept open, closed (unclosed, they are reported as
    ResourceWarnings whenever the collector meets them, in whichever test runs then)."""
    kept = app.extensions.get("asiworld_replays")
    if kept is not None:
        kept[0].close()


def test_the_point_of_view_route_says_where_the_world_came_from(client, runs):
    char = runs[2][0]
    body = client.get(f"/api/replays/with/pov?tick=140&char={char}").get_json()
    assert body["ok"] and body["verified"] is True and body["note"] is None
    assert body["start"] == {"from": "replay", "from_tick": 120, "skipped": []}
    body = client.get(f"/api/replays/without/pov?tick=140&char={char}").get_json()
    assert body["verified"] is True and body["start"]["from"] == "seed"


def test_the_point_of_view_route_notes_a_snapshot_it_could_not_use(apps, runs, tmp_path):

    ref = snapshot_ref(runs[0], 120)
    data = bytearray(runs[0].read_bytes())
    data[ref.offset + ref.size - 10] ^= 0xFF
    (tmp_path / "flipped.asirep").write_bytes(bytes(data))
    app = apps.create({"SEED": 7, "REPLAY_DIRS": [str(tmp_path)]})
    client = app.test_client()
    try:
        body = client.get(f"/api/replays/flipped/pov?tick=140&char={runs[2][0]}").get_json()
        assert body["ok"] and body["verified"] is True
        assert body["start"]["from_tick"] == 60
        assert "tick 120" in body["note"] and "corrupt_chunk" in body["note"]
        fork = client.post("/api/replays/flipped/fork", json={"tick": 150}).get_json()
        assert fork["ok"] and fork["tick"] == 150
    finally:
        close_replays(app)


def _flip_points(sample) -> dict[str, int]:
    """Byte offsets inside each part of a replay file: one in the middle of a chunk's payload."""
    with Replay.open(sample) as replay:
        size = replay.size_bytes
        refs = list(replay.index)
        assert replay.complete
    with open(sample, "rb") as f:
        f.seek(size - fmt.FOOTER.size)
        _, index_at = fmt.FOOTER.unpack(f.read())

    def middle(kind: str) -> int:
        ref = next(r for r in refs if r.kind == kind)
        return ref.offset + fmt.CHUNK_HEAD.size + (ref.size - fmt.CHUNK_HEAD.size) // 2

    header_at = fmt.PREAMBLE.size
    return {
        "preamble": 2,
        "header": header_at + fmt.CHUNK_HEAD.size + 5,
        "frames": middle(fmt.FRAMES),
        "world": middle(fmt.WORLD),
        "inputs": middle(fmt.INPUTS),
        "hashes": middle(fmt.HASHES),
        "index": index_at + fmt.CHUNK_HEAD.size + 3,
        "the end": size - 1,
    }


def test_an_untouched_recording_passes_the_integrity_walk(runs):
    with Replay.open(runs[0]) as replay:
        assert replay.integrity() == []


@pytest.mark.parametrize(
    "part", ["preamble", "header", "frames", "world", "inputs", "hashes", "index", "the end"]
)
def test_verify_refuses_a_copy_with_one_flipped_byte(runs, tmp_path, capsys, part):
    """Issue 19: verify said "ok" on such a copy; now every chunk's CRC is checked first."""
    data = bytearray(runs[0].read_bytes())
    at = _flip_points(runs[0])[part]
    data[at] ^= 0x01
    copy = tmp_path / "flipped.asirep"
    copy.write_bytes(bytes(data))
    assert main(["replay", "verify", str(copy)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.split(": ")[0] == "error", err
    assert err.split(": ")[1] in {"corrupt_chunk", "bad_footer", "not_a_replay"}, err
    assert "ok" not in capsys.readouterr().out
