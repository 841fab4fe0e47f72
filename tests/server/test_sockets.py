"""Socket.IO rules: spectators get a keyframe then deltas; players act through their token and
see only their own character's scoped view; malformed events are refused and change nothing."""

from __future__ import annotations

from asiworld.engine.model import SURFACE

from tests.server.conftest import received

STEPS = {"n": (0, -1), "s": (0, 1), "e": (1, 0), "w": (-1, 0)}


def open_step(world, cid: int) -> tuple[str, tuple[int, int]]:
    """A direction the character can walk in from where it stands, and the tile it leads to."""
    me = world.entities[cid]
    for direction, (dx, dy) in STEPS.items():
        x, y = me.x + dx, me.y + dy
        if world.walkable(world.areas[SURFACE], x, y, me):
            return direction, (x, y)
    raise AssertionError(f"character {cid} is walled in at ({me.x}, {me.y})")


def in_view(view: dict, x: int, y: int) -> bool:
    return view["x0"] <= x < view["x0"] + view["w"] and view["y0"] <= y < view["y0"] + view["h"]


def test_spectator_gets_a_keyframe_then_deltas(client, runner):
    ack = client.emit("spectate", {}, callback=True)
    assert ack["ok"]
    runner.step(3)
    frames = received(client, "frame")
    assert "keyframe" in frames[0]
    assert [f["tick"] for f in frames] == [0, 1, 2, 3]
    assert all("keyframe" not in f and "deltas" in f for f in frames[1:])


def test_join_creates_a_character_and_a_token(client, runner):
    reply = client.emit("join", {"name": "ada"}, callback=True)
    assert reply["ok"] and reply["token"] and reply["name"] == "ada"
    assert runner.world.entities[reply["char"]].name == "ada"
    obs = received(client, "observation")[-1]
    assert obs["self"]["id"] == reply["char"]
    assert "tiles" in obs["memory"]  # the first observation carries the full memory


def test_accepted_action_moves_the_character_on_the_next_tick(client, runner):
    reply = client.emit("join", {"name": "ada"}, callback=True)
    direction, target = open_step(runner.world, reply["char"])
    result = client.emit(
        "act",
        {"token": reply["token"], "action": {"type": "move", "dir": direction}},
        callback=True,
    )
    assert result["ok"] and result["code"] == "accepted"
    client.get_received()
    runner.step(1)
    obs = received(client, "observation")[-1]
    assert (obs["self"]["x"], obs["self"]["y"]) == target


def test_refused_action_carries_the_engines_sentence(client, runner):
    reply = client.emit("join", {"name": "ada"}, callback=True)
    far_corner = {"type": "gather", "x": 0, "y": 0}
    before = runner.world.state_hash()
    result = client.emit("act", {"token": reply["token"], "action": far_corner}, callback=True)
    assert not result["ok"]
    assert result["code"] == "not_adjacent"
    me = runner.world.entities[reply["char"]]
    assert result["message"] == f"the source at (0, 0) is not next to ada at ({me.x}, {me.y})"
    assert runner.world.state_hash() == before
    assert received(client, "result")[-1]["code"] == "not_adjacent"


def test_player_never_receives_tiles_or_entities_outside_its_view(client, runner):
    reply = client.emit("join", {"name": "ada"}, callback=True)
    world = runner.world
    for tick in range(4):
        if tick:
            direction, _ = open_step(world, reply["char"])
            client.emit(
                "act", {"token": reply["token"], "action": {"type": "move", "dir": direction}}
            )
            runner.step(1)
        messages = client.get_received()
        assert {m["name"] for m in messages} <= {"hello", "joined", "observation", "result"}
        (obs,) = [m["args"][0] for m in messages if m["name"] == "observation"]
        view = obs["view"]
        # the seeded world has creatures far outside the view at this very tick: none is sent
        outside = {e.id for e in world.entities.values() if not in_view(view, e.x, e.y)}
        assert any(world.entities[i].kind in ("sheep", "boar") for i in outside)
        assert not outside & {e["id"] for e in obs["entities"]}
        assert all(in_view(view, e["x"], e["y"]) for e in obs["entities"])
        assert len(view["tiles"]) == view["h"] <= 2 * view["radius"] + 1
        if tick == 0:  # the joining observation's full memory: only what is in view
            for y, row in enumerate(obs["memory"]["tiles"]):
                assert all(code == " " or in_view(view, x, y) for x, code in enumerate(row))
        assert "keyframe" not in obs and "areas" not in obs


def test_player_does_not_get_spectator_frames(client, runner):
    client.emit("join", {"name": "ada"}, callback=True)
    runner.step(2)
    assert received(client, "frame") == []


def test_malformed_events_get_an_error_and_change_nothing(client, runner):
    token = client.emit("join", {"name": "ada"}, callback=True)["token"]
    before = (runner.world.state_hash(), runner.world.tick)
    client.get_received()
    bad = [
        ("join", "not an object", "bad_request"),
        ("join", {}, "bad_name"),
        ("join", {"name": "x" * 40}, "bad_name"),
        ("join", {"name": "<script>"}, "bad_name"),
        ("join", {"token": "nope"}, "unknown_token"),
        ("act", {"action": {"type": "move", "dir": "n"}}, "bad_token"),
        ("act", {"token": "forged", "action": {"type": "move", "dir": "n"}}, "unknown_token"),
        ("act", {"token": token}, "bad_action"),
        ("act", {"token": token, "action": "move north"}, "bad_action"),
        ("act", {"token": token, "action": {"dir": "n"}}, "bad_action"),
        ("act", [1, 2, 3], "bad_request"),
        ("follow", {"char": "ada"}, "bad_argument"),
        ("follow", {"char": 999}, "unknown_character"),
        ("observe", {"token": 5}, "bad_token"),
    ]
    for event, payload, code in bad:
        ack = client.emit(event, payload, callback=True)
        assert ack["code"] == code, (event, payload, ack)
        errors = received(client, "error")
        assert len(errors) == 1 and errors[0]["code"] == code and errors[0]["event"] == event
    assert (runner.world.state_hash(), runner.world.tick) == before
    assert runner.world.pending == []


def test_token_reattaches_a_new_connection_to_the_same_character(app, client, runner):
    from asiworld.server import socketio

    reply = client.emit("join", {"name": "ada"}, callback=True)
    other = socketio.test_client(app)
    again = other.emit("join", {"token": reply["token"]}, callback=True)
    assert again["char"] == reply["char"]
    other.disconnect()


def test_follow_sends_the_characters_observation_with_full_memory(app, client, runner):
    from asiworld.server import socketio

    player = socketio.test_client(app)
    char = player.emit("join", {"name": "ada"}, callback=True)["char"]
    client.emit("spectate", {})
    assert client.emit("follow", {"char": char}, callback=True)["ok"]
    obs = received(client, "follow")[-1]
    assert obs["self"]["id"] == char and "tiles" in obs["memory"]
    runner.step(2)
    assert received(client, "follow")  # followers keep receiving it as the world runs
    assert client.emit("follow", {"char": None}, callback=True)["ok"]
    player.disconnect()
