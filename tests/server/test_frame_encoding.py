"""A frame is encoded once, however many spectators watch, and its JSON is the json module's.

Bad inputs tried for the encoder: a whole number past 64 bits (orjson cannot write it), an
option orjson does not have (indent), non-string keys.
"""

from __future__ import annotations

import json
import os
import sys

import pytest
from asiworld.server import nesting, socketio
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
