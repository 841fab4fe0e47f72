"""A frame is encoded once, however many spectators watch, its JSON is the json module's, and an
entity seen before travels as a patch of its changed fields.

Bad inputs tried for the encoder: a whole number past 64 bits (orjson cannot write it), an
option orjson does not have (indent), non-string keys.
"""

from __future__ import annotations

import json
import os
import sys

import pytest
from asiworld.server import nesting, services, socketio
from asiworld.server.nesting import BoundedJSON

from tests.server.conftest import received


def by_test_client() -> bool:
    """Flask-SocketIO's test client encodes each packet again as it hands it to its client: that
    is the test double's work, not the server's."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename.endswith(os.path.join("flask_socketio", "test_client.py")):
            return True
        frame = frame.f_back
    return False


@pytest.fixture
def frame_encodes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Ticks of the frame events the Socket.IO server encoded, one entry per encoding."""
    seen: list[int] = []
    dumps = BoundedJSON.dumps

    def counting(obj, *args, **kwargs):
        if isinstance(obj, list) and obj[:1] == ["frame"] and not by_test_client():
            seen.append(obj[1]["tick"])
        return dumps(obj, *args, **kwargs)

    monkeypatch.setattr(nesting.BoundedJSON, "dumps", staticmethod(counting))
    return seen


@pytest.mark.parametrize("viewers", [1, 5])
def test_each_frame_is_encoded_once_whatever_the_number_of_spectators(
    app, runner, frame_encodes: list[int], viewers: int
) -> None:
    clients = [socketio.test_client(app) for _ in range(viewers)]
    try:
        for client in clients:
            client.emit("spectate", {})
        frame_encodes.clear()  # the keyframes: one per spectator, each its own message
        runner.step(3)
        assert sorted(frame_encodes) == [runner.world.tick - 2, runner.world.tick - 1,
                                         runner.world.tick]
        for client in clients:  # and every spectator got all three
            assert len(received(client, "frame")) == 4
    finally:
        for client in clients:
            client.disconnect()


def test_the_encoder_writes_what_the_json_module_reads() -> None:
    frame = {"tick": 4, "deltas": {"entities": {"3": {"x": 1, "y": 2.5, "name": "Zoë",
                                                      "action": None, "down": False}}},
             "events": [{"kind": "said", "text": 'a "quote" \\ and\nnewline'}]}
    text = BoundedJSON.dumps(["frame", frame], separators=(",", ":"))
    assert json.loads(text) == ["frame", frame]
    assert json.loads(BoundedJSON.dumps({1: "one"}, separators=(",", ":"))) == {"1": "one"}


def test_what_orjson_cannot_write_goes_through_the_json_module() -> None:
    big = 10**30
    assert BoundedJSON.dumps([big], separators=(",", ":")) == f"[{big}]"
    assert BoundedJSON.dumps({"a": 1}, indent=1) == json.dumps({"a": 1}, indent=1)


def rebuild(frames: list[dict]) -> dict:
    """The entities a page holds after these frames (frames.js applyFrame, in Python)."""
    assert "keyframe" in frames[0]
    entities = dict(frames[0]["keyframe"]["entities"])
    for frame in frames[1:]:
        entities.update(frame["deltas"].get("entities", {}))
        for ent_id, patch in frame.get("entity_patches", {}).items():
            entities[ent_id] = {**entities[ent_id], **patch}
        for gone in frame["deltas"].get("removed", []):
            entities.pop(str(gone), None)
    return entities


@pytest.fixture
def crowd_app(apps):
    return apps.create({"SEED": 3, "WORLD_SIZE": 48, "TESTING": True, "AGENTS": ["forager"] * 4})


def test_a_walking_crowd_sends_the_fields_that_changed(crowd_app) -> None:
    runner = services(crowd_app).runner
    early, late = socketio.test_client(crowd_app), socketio.test_client(crowd_app)
    early.emit("spectate", {})
    runner.step(6)
    late.emit("spectate", {})  # joins mid-way: its keyframe is the patches' baseline too
    runner.step(6)
    live = {str(k): v for k, v in runner.keyframe()["keyframe"]["entities"].items()}
    frames = received(early, "frame")
    patched = [p for f in frames[1:] for p in f.get("entity_patches", {}).values()]
    assert patched, "characters that walk are sent as patches"
    assert all(len(p) < len(live[next(iter(live))]) for p in patched)
    assert rebuild(frames) == live
    assert rebuild(received(late, "frame")) == live
    early.disconnect()
    late.disconnect()


def test_ticks_nobody_watched_do_not_break_the_next_spectator_s_patches(crowd_app) -> None:
    runner = services(crowd_app).runner
    first = socketio.test_client(crowd_app)
    first.emit("spectate", {})
    runner.step(4)
    first.disconnect()
    runner.step(4)  # nobody watches
    second = socketio.test_client(crowd_app)
    second.emit("spectate", {})
    runner.step(4)
    live = {str(k): v for k, v in runner.keyframe()["keyframe"]["entities"].items()}
    assert rebuild(received(second, "frame")) == live
    second.disconnect()
