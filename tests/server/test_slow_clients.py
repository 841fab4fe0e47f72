"""A slow spectator never slows the world or grows a queue: past the high-water mark it stops
receiving deltas, and once drained it gets a fresh keyframe and rejoins."""

from __future__ import annotations

from asiworld.server import services
from asiworld.server.live import HIGH_WATER

from tests.server.conftest import received


def test_slow_spectator_drops_to_a_keyframe_and_catches_up(app, client, runner):
    live = services(app).live
    backlog = {"queued": 0}
    live._backlog = lambda sid: backlog["queued"]
    client.emit("spectate", {})
    runner.step(1)
    assert [("keyframe" in f) for f in received(client, "frame")] == [True, False]

    backlog["queued"] = HIGH_WATER + 1  # the client stops reading
    runner.step(1)  # this frame is still sent, then the client leaves the room
    client.get_received()
    runner.step(5)
    assert received(client, "frame") == []  # nothing more is queued for it
    assert live.dropped_to_keyframe == 1

    backlog["queued"] = 0  # drained
    runner.step(1)
    runner.step(1)
    frames = received(client, "frame")
    assert "keyframe" in frames[0] and frames[0]["tick"] == runner.world.tick - 1
    assert frames[1]["tick"] == runner.world.tick and "keyframe" not in frames[1]


def test_slow_player_skips_observations_instead_of_queueing(app, client, runner):
    live = services(app).live
    backlog = {"queued": 0}
    live._backlog = lambda sid: backlog["queued"]
    client.emit("join", {"name": "ada"}, callback=True)
    client.get_received()
    backlog["queued"] = HIGH_WATER + 1
    runner.step(3)
    assert received(client, "observation") == []
    backlog["queued"] = 0
    runner.step(1)
    assert len(received(client, "observation")) == 1  # the latest one, complete
