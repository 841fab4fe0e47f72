"""The tests' Socket.IO clients list a server's messages in the order they arrive
(tests/socket_order.py), even when handling one is slow: python-engineio's own client handles
each message on a thread of its own, and a delta overtook its keyframe on a loaded machine."""

from __future__ import annotations

import time

import socketio

from tests.served import served
from tests.socket_order import OrderedClient


def frames_seen(client: socketio.Client, url: str, count: int = 3) -> list[dict]:
    """The first `count` frames a spectator lists when the first one takes a second to handle
    (a keyframe's thread slowed by its decoding, on a loaded machine)."""
    seen: list[dict] = []

    def keep(frame: dict) -> None:
        if not seen and "keyframe" in frame:
            time.sleep(1.0)
        seen.append(frame)

    client.on("frame", keep)
    client.connect(url, transports=["websocket"], wait_timeout=10)
    try:
        client.call("spectate", {}, timeout=30)
        deadline = time.monotonic() + 60
        while len(seen) < count:
            assert time.monotonic() < deadline, f"{len(seen)} frames in 60 s"
            time.sleep(0.02)
    finally:
        client.disconnect()
    return seen[:count]


def test_a_slow_keyframe_is_still_listed_before_the_deltas_after_it():
    with served({"SEED": 3, "WORLD_SIZE": 48, "SPEED": 20}) as server:
        frames = frames_seen(OrderedClient(reconnection=False), server["url"])
    assert "keyframe" in frames[0]
    assert [f["tick"] for f in frames] == [frames[0]["tick"] + i for i in range(3)]
    assert all("deltas" in f and "keyframe" not in f for f in frames[1:])
