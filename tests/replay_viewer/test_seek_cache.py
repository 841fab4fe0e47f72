"""What the server keeps so that seeking in a long replay stays quick: seek states at each frame
chunk's start (pickled, outside the garbage collector's walk) and frame chunks encoded once.
The answers must not change: a seek from the cache equals a seek read straight from the file,
however often it is asked. Bad inputs tried: chunk indexes before and after the replay, a tick
past its end."""

from __future__ import annotations

import gc
import gzip
import json

import pytest
from asiworld.replay import Replay, ReplayError
from asiworld.replay.library import ReplayLibrary

RID = "demo"


@pytest.fixture
def library(replay_dir):
    with ReplayLibrary([replay_dir]) as library:
        yield library


def test_a_seek_from_the_cache_is_the_keyframe_read_from_the_file(library, replay_dir):
    library.warm(RID)
    with Replay.open(replay_dir / "demo" / "replay.asirep") as replay:
        starts = [r.t0 for r in replay._frame_chunks]
        ticks = sorted({0, 1, 59, 95, 179, 180, *starts, *(s - 1 for s in starts[1:])})
        for tick in ticks:
            assert library.frame_at(RID, tick) == replay.frame_at(tick), tick


def test_asking_for_the_same_tick_again_gives_the_same_keyframe(library):
    # The caller of a cached state applies frames to it: the cache itself must not move.
    first = json.dumps(library.frame_at(RID, 95), sort_keys=True)
    library.frame_at(RID, 119)
    library.frame_at(RID, 61)
    assert json.dumps(library.frame_at(RID, 95), sort_keys=True) == first


def test_seek_states_are_kept_as_bytes_the_garbage_collector_does_not_walk(library):
    library.warm(RID)
    assert library._states, "the warm-up reaches every frame-chunk start"
    for state in library._states.values():
        assert isinstance(state, bytes) and not gc.is_tracked(state)


def test_a_frame_chunk_is_encoded_once_and_is_the_chunk_of_the_file(library, replay_dir):
    packed, size = library.frame_chunk(RID, 1)
    assert library.frame_chunk(RID, 1)[0] is packed  # the second ask is the kept bytes
    body = json.loads(gzip.decompress(packed))
    assert len(gzip.decompress(packed)) == size
    with Replay.open(replay_dir / "demo" / "replay.asirep") as replay:
        ref = replay._frame_chunks[1]
        assert body == {
            "index": 1,
            "t0": ref.t0,
            "t1": ref.t1,
            "frames": list(replay.frames(ref.t0, ref.t1)),
        }


def test_chunks_and_ticks_outside_the_replay_are_refused_with_a_code(library):
    for n in (-1, 999):
        with pytest.raises(ReplayError) as err:
            library.frame_chunk(RID, n)
        assert err.value.code == "unknown_chunk"
    with pytest.raises(ReplayError) as err:
        library.frame_at(RID, 181)
    assert err.value.code == "tick_out_of_range"
    assert not library._chunk_bodies


def test_a_browser_without_gzip_gets_the_same_chunk_as_plain_json(client):
    plain = client.get(f"/api/replays/{RID}/frames/0", headers={"Accept-Encoding": "identity"})
    zipped = client.get(f"/api/replays/{RID}/frames/0", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in plain.headers
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(zipped.data)) == plain.get_json()


def test_the_library_says_it_is_seeking_only_while_a_seek_is_answered(library, monkeypatch):
    seen = []
    real = library._state_at_start

    def spy(*args, **kwargs):
        seen.append(library.seeking())
        return real(*args, **kwargs)

    monkeypatch.setattr(library, "_state_at_start", spy)
    assert not library.seeking()
    library.frame_at(RID, 95)
    assert seen == [True] and not library.seeking()
    with pytest.raises(ReplayError):
        library.frame_at(RID, 999)  # a refused seek leaves nothing counted
    assert not library.seeking()


def test_a_re_simulation_asked_to_pause_waits_then_reaches_the_same_world(library):
    from asiworld.replay.worlds import ReplayWorlds

    replay = library.get(RID)
    asked = []

    def pause() -> bool:  # a seek is in flight for the first three asks
        asked.append(1)
        return len(asked) <= 3

    paused = ReplayWorlds()._world_at(replay, 40, None, 300, pause)
    plain = ReplayWorlds().world_at(replay, 40)
    assert len(asked) > 3  # asked again after each wait, and before the later steps
    assert paused.tick == 40 and paused.state_hash() == plain.state_hash()


def test_building_the_timeline_steps_aside_for_a_seek_and_misses_nothing():
    from asiworld.replay.library import step_aside

    asked = []

    def busy() -> bool:  # a seek is being answered for the first two asks
        asked.append(1)
        return len(asked) <= 2

    assert list(step_aside(range(450), busy, every=200)) == list(range(450))
    assert len(asked) == 2 + 3  # waited twice, then asked before items 0, 200 and 400
