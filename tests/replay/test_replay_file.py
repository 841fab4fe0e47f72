"""The replay file: round trips, cut-off files, damaged chunks, schema versions and seeking."""

from __future__ import annotations

import random
import struct

import asiworld
import pytest
from asiworld import provenance
from asiworld.engine.frames import FrameBuilder
from asiworld.replay import Recorder, Replay, ReplayError, ReplayHeader
from asiworld.replay import format as fmt
from asiworld.replay.apply import apply_frame
from engine_runs import SIZE, new_world, record_engine_run, walk_inputs


def header() -> ReplayHeader:
    return ReplayHeader(
        seed=3,
        width=SIZE,
        height=SIZE,
        configurations=[{"name": "walker", "characters": [7, 8, 9]}],
        content_hash="abc123",
        horizon=400,
    )


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    path = tmp_path_factory.mktemp("rec") / "run.asirep"
    with Recorder(path, header(), keyframe_every=100, frames_per_chunk=30, hash_every=20) as rec:
        frames, hashes = record_engine_run(rec, ticks=400)
    return path, frames, hashes


def states_by_tick(frames):
    state, out = None, {}
    for frame in frames:
        state = apply_frame(state, frame)
        out[frame["tick"]] = fmt.decode_payload(fmt.encode_payload(_jsonable(state)))
    return out


def _jsonable(state):
    return {
        **state,
        "areas": {a: {**b, "tiles": list(b["tiles"])} for a, b in state["areas"].items()},
    }


def test_round_trip_gives_back_the_same_frames_hashes_inputs_and_header(recorded):
    path, frames, hashes = recorded
    with Replay.open(path) as replay:
        assert replay.complete
        assert list(replay.frames()) == frames
        assert replay.hashes() == hashes
        assert len(hashes) == 400 // 20
        assert replay.header.seed == 3
        assert replay.header.content_hash == "abc123"
        assert replay.header.configurations[0].characters == [7, 8, 9]
        assert replay.header.keyframe_every == 100
        assert replay.header.engine_version == asiworld.__version__
        assert replay.header.git_commit == provenance.git_commit()
        inputs = list(replay.inputs())
        assert inputs[0][1] is None and inputs[0][2]["type"] == "join"
        assert all(isinstance(a, dict) for _, _, a in inputs)
        events = list(replay.events())
        assert events == [e for f in frames for e in f["events"]]
        assert replay.summary["counts"]["frames"] == 401


def test_seeking_to_any_tick_equals_applying_every_frame_from_the_start(recorded):
    path, frames, _ = recorded
    expected = states_by_tick(frames)
    with Replay.open(path) as replay:
        for tick in (0, 1, 99, 100, 101, 250, 333, 400):
            assert _jsonable(replay.state_at(tick)) == expected[tick], tick
        # Seeking backwards after a later seek gives the same answer (cached chunks stay intact).
        assert _jsonable(replay.state_at(101)) == expected[101]


def test_frame_at_is_a_keyframe_a_viewer_can_start_from(recorded):
    path, frames, _ = recorded
    with Replay.open(path) as replay:
        frame = replay.frame_at(257)
        assert frame["tick"] == 257 and "keyframe" in frame
        assert frame["events"] == frames[257]["events"]
        state = apply_frame(None, frame)
        for f in frames[258:300]:
            state = apply_frame(state, f)
        assert _jsonable(state) == states_by_tick(frames)[299]


def test_seeking_outside_the_recorded_ticks_is_refused(recorded):
    with Replay.open(recorded[0]) as replay:
        for tick in (-1, 401, 10**9):
            with pytest.raises(ReplayError) as err:
                replay.state_at(tick)
            assert err.value.code == "tick_out_of_range"


def test_chunks_for_a_tick_range_start_with_the_keyframe_before_it(recorded):
    with Replay.open(recorded[0]) as replay:
        refs = replay.chunks_for(250, 270)
        assert refs[0].kind == "K" and refs[0].t0 == 200
        kinds = {r.kind for r in refs}
        assert kinds == {"K", "F", "E"}
        assert all(r.t1 >= 200 and r.t0 <= 270 for r in refs)
        payload = replay.chunk_payload(refs[0])
        assert fmt.decode_payload(payload)["frame"]["tick"] == 200


def test_a_file_cut_off_anywhere_reads_up_to_its_last_complete_chunk(recorded, tmp_path):
    path, frames, hashes = recorded
    data = path.read_bytes()
    with Replay.open(path) as whole:
        frame_chunks = [r for r in whole.index if r.kind == "F"]
    # Cut inside the footer, inside the index, mid-file inside chunks, and right after a chunk.
    cuts = [len(data) - 3, len(data) - 40, len(data) // 2, len(data) // 3 + 7]
    cuts.append(frame_chunks[4].offset + frame_chunks[4].size)
    for cut in cuts:
        cut_path = tmp_path / f"cut{cut}.asirep"
        cut_path.write_bytes(data[:cut])
        with Replay.open(cut_path) as replay:
            assert not replay.complete
            complete = [r for r in frame_chunks if r.offset + r.size <= cut]
            last = complete[-1].t1
            assert replay.last_tick == last
            got = list(replay.frames())
            assert got == frames[: last + 1]
            assert replay.state_at(last)["tick"] == last
            got_hashes = replay.hashes()
            assert {t: h for t, h in hashes.items() if t <= last}.items() <= got_hashes.items()
            assert got_hashes.items() <= hashes.items()
            assert replay.check() == []


def test_a_file_cut_inside_its_header_says_so(recorded, tmp_path):
    data = recorded[0].read_bytes()
    for cut, code in ((3, "not_a_replay"), (fmt.PREAMBLE.size + 10, "no_header")):
        p = tmp_path / "short.asirep"
        p.write_bytes(data[:cut])
        with pytest.raises(ReplayError) as err:
            Replay.open(p)
        assert err.value.code == code


def test_a_flipped_byte_in_a_chunk_is_reported_as_corrupt_chunk(recorded, tmp_path):
    path = recorded[0]
    data = bytearray(path.read_bytes())
    with Replay.open(path) as replay:
        target = [r for r in replay.index if r.kind == "F"][3]
    data[target.offset + target.size - 5] ^= 0x40
    bad = tmp_path / "bad.asirep"
    bad.write_bytes(bytes(data))
    with Replay.open(bad) as replay:  # the index still opens the file...
        with pytest.raises(ReplayError) as err:
            list(replay.frames())
        assert err.value.code == "corrupt_chunk"  # ...but reading the damaged chunk says why
        assert [p.code for p in replay.check()] == ["corrupt_chunk"]
    # Without the index, the scan meets the damaged chunk on open.
    cut = tmp_path / "bad_cut.asirep"
    cut.write_bytes(bytes(data[: len(data) - fmt.FOOTER.size]))
    with pytest.raises(ReplayError) as err:
        Replay.open(cut)
    assert err.value.code == "corrupt_chunk"


def test_a_damaged_index_falls_back_to_scanning(recorded, tmp_path):
    path, frames, _ = recorded
    data = bytearray(path.read_bytes())
    data[-fmt.FOOTER.size - 3] ^= 0xFF  # inside the index chunk's payload
    p = tmp_path / "badindex.asirep"
    p.write_bytes(bytes(data))
    with Replay.open(p) as replay:
        assert not replay.complete
        assert list(replay.frames()) == frames


def test_a_newer_schema_is_refused_with_a_clear_code(recorded, tmp_path):
    data = bytearray(recorded[0].read_bytes())
    for version, code in ((fmt.SCHEMA_VERSION + 1, "unsupported_schema"), (0, "unknown_schema")):
        data[: fmt.PREAMBLE.size] = struct.pack(">6sH", b"ASIREP", version)
        p = tmp_path / f"v{version}.asirep"
        p.write_bytes(bytes(data))
        with pytest.raises(ReplayError) as err:
            Replay.open(p)
        assert err.value.code == code
        assert str(version) in err.value.message


def test_a_file_that_is_not_a_replay_is_refused(tmp_path):
    p = tmp_path / "notes.asirep"
    p.write_bytes(b"hello, this is text and not a replay at all")
    with pytest.raises(ReplayError) as err:
        Replay.open(p)
    assert err.value.code == "not_a_replay"
    with pytest.raises(ReplayError) as err:
        Replay.open(tmp_path / "missing.asirep")
    assert err.value.code == "not_found"


def test_unknown_chunk_kinds_are_skipped_by_readers(recorded, tmp_path):
    path, frames, _ = recorded
    data = path.read_bytes()
    with Replay.open(path) as replay:
        cut_at = [r for r in replay.index if r.kind == "F"][2].offset
    extra = fmt.pack_chunk("Z", 5, 6, fmt.encode_payload({"future": True}))
    p = tmp_path / "future.asirep"
    p.write_bytes(data[:cut_at] + extra + data[cut_at : len(data) - 2])  # no index: scanned
    with Replay.open(p) as replay:
        assert list(replay.frames()) == frames[: replay.last_tick + 1]


def test_the_recorder_refuses_frames_out_of_order_and_a_first_frame_without_keyframe(tmp_path):
    world, _ = new_world(1, characters=0)
    fb = FrameBuilder(world)
    rec = Recorder(tmp_path / "a.asirep", header())
    with pytest.raises(ReplayError) as err:
        rec.record({"tick": 0, "deltas": {}, "events": []})
    assert err.value.code == "no_keyframe"
    rec.record(fb.keyframe())
    world.step()
    rec.record(fb.frame([]))
    with pytest.raises(ReplayError) as err:
        rec.record(fb.frame([]))  # same tick again
    assert err.value.code == "tick_out_of_order"
    rec.close()
    with pytest.raises(ReplayError) as err:
        rec.record(fb.frame([]))
    assert err.value.code == "recorder_closed"
    with Replay.open(tmp_path / "a.asirep") as replay:
        assert replay.last_tick == 1


def test_keyframes_are_written_every_k_ticks_even_from_delta_frames(recorded):
    with Replay.open(recorded[0]) as replay:
        ticks = [r.t0 for r in replay.index if r.kind == "K"]
        assert ticks == [0, 100, 200, 300, 400]


def test_the_recorder_buffers_at_most_one_segment(tmp_path):
    path = tmp_path / "b.asirep"
    rec = Recorder(path, header(), frames_per_chunk=30)
    record_engine_run(rec, ticks=95)
    assert len(rec._frames) <= 30
    # Everything before the open segment is already on disk, readable while recording goes on.
    with Replay.open(path) as replay:
        assert replay.last_tick == 89
    rec.close()


def test_a_frame_is_stored_as_it_was_when_recorded(tmp_path):
    # The recorder packs and writes each frame when it is given (not when its segment closes):
    # a frame its caller changes afterwards, as a live server may, is stored as it was.
    from asiworld.replay.compact import pack_frames

    world, chars = new_world(3)
    builder = FrameBuilder(world)
    rng = random.Random(3)
    path = tmp_path / "c.asirep"
    given = []
    with Recorder(path, header(), frames_per_chunk=10) as rec:
        rec.record(builder.keyframe())
        for _ in range(14):
            for cid, action in walk_inputs(rng, world, chars):
                world.submit(cid, action)
            world.step()
            frame = builder.frame([])
            rec.record(frame)
            given.append(fmt.decode_payload(fmt.encode_payload(frame)))
            frame["deltas"]["entities"] = {"1": {"id": 1, "x": -5}}  # changed after recording
            frame["tick"] = -1
    with Replay.open(path) as replay:
        chunks = [r for r in replay.index if r.kind == fmt.FRAMES]
        stored = [fmt.decode_payload(replay.chunk_payload(r))["frames"] for r in chunks]
        read = list(replay.frames(1, 14))
    assert [(r.t0, r.t1) for r in chunks] == [(0, 9), (10, 14)]
    # each chunk is its own frames packed afresh (every chunk decodes on its own)
    assert stored[1] == [{k: v for k, v in f.items() if k != "events"}
                         for f in pack_frames(given[9:])]
    assert read == given


def test_compact_frame_chunks_decode_to_exactly_the_recorded_entities():
    from asiworld.replay.compact import pack_frames, unpack_frames

    frames = [
        {"tick": 1, "deltas": {"entities": {"3": {"id": 3, "x": 1, "inventory": [1, 2]}}}},
        {"tick": 2, "deltas": {"entities": {"3": {"id": 3, "x": 2, "inventory": [1, 2]}}}},
        {"tick": 3, "deltas": {}},  # nothing changed
        {
            "tick": 4,
            "deltas": {"entities": {"3": {"id": 3, "x": 2}}, "removed": [3]},
        },  # a field gone
        {
            "tick": 5,
            "deltas": {"entities": {"3": {"id": 3, "x": 2, "-": "odd"}}},
        },  # a field named "-"
        {"tick": 6, "deltas": {"entities": {"3": {"id": 3, "x": 9}, "4": {"id": 4}}}},
        # as many fields as before, one of them another: the old one is listed as gone
        {"tick": 7, "deltas": {"entities": {"3": {"id": 3, "y": 9}}}},
    ]
    packed = fmt.decode_payload(fmt.encode_payload(pack_frames(frames)))
    assert "entity_patches" in packed[1] and packed[1]["entity_patches"]["3"] == {"x": 2}
    assert packed[6]["entity_patches"]["3"] == {"y": 9, "-": ["x"]}
    assert unpack_frames(packed) == frames


def test_one_open_replay_serves_seeks_from_several_threads_alike(recorded):
    from concurrent.futures import ThreadPoolExecutor

    path, frames, _ = recorded
    expected = states_by_tick(frames)
    ticks = [7, 390, 123, 256, 61, 300, 199, 333] * 3
    with Replay.open(path) as replay, ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda t: _jsonable(replay.state_at(t)), ticks))
    assert got == [expected[t] for t in ticks]


def test_a_header_written_before_the_commit_field_reads_as_no_commit():
    # not the reader's own commit: the file never said which code wrote it
    old = ReplayHeader(seed=3).to_dict()
    del old["git_commit"]
    assert ReplayHeader.from_dict(old).git_commit is None
    assert ReplayHeader.from_dict({**old, "git_commit": "a" * 40}).git_commit == "a" * 40


def test_a_payload_reads_back_as_written_whoever_of_orjson_and_the_json_module_wrote_it():
    # A chunk's JSON is written by orjson where it can and by the json module where it cannot
    # (a whole number past 64 bits). Both write compact UTF-8 with whole-number keys as strings:
    # the same bytes, but for a float's exponent (orjson 1e-7, the json module 1e-07).
    import json
    import zlib

    def json_module(obj):
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

    frame = {"tick": 61, "deltas": {"entities": {7: {"name": "Åsa ✓", "x": 3, "hp": 2.5,
                                                     "equipment": {"weapon": None}}}},
             "events": [{"kind": "said", "text": "\u00e9\n\"quoted\"", "ok": True}]}
    for obj in (frame, {"big": 10**30, "small": -(10**25)}, [1, -2, 0.1, 1e-7, 2.5e300, []]):
        text = zlib.decompress(fmt.encode_payload(obj))
        assert fmt.decode_payload(fmt.encode_payload(obj)) == json.loads(json_module(obj))
        if 1e-7 not in obj:
            assert text == json_module(obj)
