"""The server on the real engine: scoped player streams and frames that match the world."""

from __future__ import annotations

import pytest
from asiworld.server import close_app, create_app, services, socketio

from tests.server.conftest import received


@pytest.fixture(scope="module")
def engine_app():
    app = create_app({"SEED": 7, "TESTING": True})
    yield app
    close_app(app)  # one app for the module: the `apps` fixture closes a test's


def test_player_stream_never_holds_anything_outside_the_characters_view(engine_app):
    runner = services(engine_app).runner
    client = socketio.test_client(engine_app)
    reply = client.emit("join", {"name": "ada"}, callback=True)
    for direction in "nnwwss":
        client.emit("act", {"token": reply["token"], "action": {"type": "move", "dir": direction}})
        runner.step(2)
    observations = received(client, "observation")
    assert len(observations) >= 6
    first = observations[0]
    for obs in observations:
        me, view = obs["self"], obs["view"]
        assert me["id"] == reply["char"]
        box = (view["x0"], view["y0"], view["x0"] + view["w"], view["y0"] + view["h"])
        inside = lambda x, y, b=box: b[0] <= x < b[2] and b[1] <= y < b[3]  # noqa: E731
        assert all(inside(e["x"], e["y"]) for e in obs["entities"])
        assert all(inside(s["x"], s["y"]) for s in obs["structures"])
        assert all(inside(b["x"], b["y"]) for b in obs["loot"])
        assert "keyframe" not in obs and "areas" not in obs
    # the joining observation's full memory holds only what was in view at that moment
    view = first["view"]
    for y, row in enumerate(first["memory"]["tiles"]):
        for x, code in enumerate(row):
            if code != " ":
                assert view["x0"] <= x < view["x0"] + view["w"]
                assert view["y0"] <= y < view["y0"] + view["h"]
    client.disconnect()


def test_spectator_frames_rebuild_the_world_entities(engine_app):
    runner = services(engine_app).runner
    client = socketio.test_client(engine_app)
    client.emit("spectate", {})
    runner.add_character("latecomer", label="test")  # joins between two frames
    runner.step(5)
    frames = received(client, "frame")
    entities = dict(frames[0]["keyframe"]["entities"])
    for frame in frames[1:]:
        assert frame["tick"] == frames[0]["tick"] + frames.index(frame)
        entities.update(frame["deltas"].get("entities", {}))
        for ent_id, patch in frame.get("entity_patches", {}).items():  # changed fields only
            entities[ent_id] = {**entities[ent_id], **patch}
            assert "-" not in patch  # no field of an entity ever goes away
        for gone in frame["deltas"].get("removed", []):
            entities.pop(str(gone), None)
    live = {str(k): v for k, v in runner.keyframe()["keyframe"]["entities"].items()}
    assert entities == live
    assert any(e.get("name") == "latecomer" for e in entities.values())
    client.disconnect()
