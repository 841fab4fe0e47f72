"""The Socket.IO /agent namespace: token on connect, observe and act as acknowledgements, and
events pushed to the character's own room only."""

from __future__ import annotations

from asiworld.server import socketio

from tests.agents.conftest import join


def _connect(app, auth):
    return socketio.test_client(app, namespace="/agent", auth=auth)


def test_connect_without_a_known_token_is_refused(app):
    assert not _connect(app, {"token": "nope"}).is_connected("/agent")
    assert not _connect(app, None).is_connected("/agent")


def test_agent_observes_acts_and_receives_its_own_events(app, http, runner):
    ada, ada_auth = join(http, "ada")
    bob, bob_auth = join(http, "bob")
    ada_sock = _connect(app, {"token": ada_auth["Authorization"].split()[1]})
    bob_sock = _connect(app, {"token": bob_auth["Authorization"].split()[1]})
    obs = ada_sock.emit("observe", {"format": "json"}, namespace="/agent", callback=True)
    assert obs["ok"] and obs["observation"]["self"]["id"] == ada
    text = ada_sock.emit("observe", {"format": "text"}, namespace="/agent", callback=True)
    assert "ada at" in text["observation"]["text"]
    bad = ada_sock.emit("act", {"action": "n"}, namespace="/agent", callback=True)
    assert bad["ok"] is False and bad["error"]["code"] == "bad_action"
    reply = ada_sock.emit(
        "act", {"action": {"type": "wait", "ticks": 2}}, namespace="/agent", callback=True
    )
    assert reply["ok"] and reply["code"] == "accepted"
    ada_sock.get_received("/agent")
    bob_sock.get_received("/agent")
    runner.step(4)
    pushed = [m["args"][0] for m in ada_sock.get_received("/agent") if m["name"] == "event"]
    assert any(e["kind"] == "op_done" and e["op"] == reply["op"] for e in pushed)
    assert all(e["char"] == ada for e in pushed)
    others = [m["args"][0] for m in bob_sock.get_received("/agent") if m["name"] == "event"]
    assert all(e["char"] == bob for e in others)
