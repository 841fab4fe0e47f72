"""Who may call what. Every HTTP route and every Socket.IO event is listed in a table with its
access rule; a route or event missing from the table fails the suite, so nothing new slips in
unchecked. Bad inputs tried: no credentials, a wrong token, another character's token, a
player token on the agent API and the other way round, a kicked character's token."""

from __future__ import annotations

import pytest
from asiworld.server.validation import REST_SCHEMAS, SOCKET_SCHEMAS, UNCHECKED_EVENTS

from tests.hardening.conftest import ADMIN, SPECTATOR, agent, bearer

PUBLIC, SPECTATE, ADMIN_ONLY, CHARACTER = "public", "spectator", "admin", "character"

# endpoint -> (rule, method, url, body). {cid} is the caller's character, {pid} its program.
ROUTES = {
    "static": (PUBLIC, "get", "/static/js/live.js", None),
    "pages.home": (PUBLIC, "get", "/", None),
    "pages.live": (PUBLIC, "get", "/live", None),
    "pages.play": (PUBLIC, "get", "/play", None),
    "api.healthz": (PUBLIC, "get", "/healthz", None),
    "api.content": (PUBLIC, "get", "/api/content", None),
    "api.world": (SPECTATE, "get", "/api/world", None),
    "api.evaluation": (SPECTATE, "get", "/api/evaluation", None),  # the live world's
    "pages.evaluation": (PUBLIC, "get", "/evaluation", None),  # the page; its data is gated
    "admin.pause": (ADMIN_ONLY, "post", "/admin/pause", None),
    "admin.resume": (ADMIN_ONLY, "post", "/admin/resume", None),
    "admin.step": (ADMIN_ONLY, "post", "/admin/step", {"n": 1}),
    "admin.speed": (ADMIN_ONLY, "post", "/admin/speed", {"speed": 5}),
    "admin.kick": (ADMIN_ONLY, "post", "/admin/kick", {"char": 999}),
    "admin.snapshot": (ADMIN_ONLY, "post", "/admin/snapshot", None),
    # Recorded runs (not the live world): readable by anyone who can reach the server.
    "replays.list_page": (PUBLIC, "get", "/replays", None),
    "replays.viewer_page": (PUBLIC, "get", "/replay/none", None),
    "replays.list_json": (PUBLIC, "get", "/api/replays", None),
    "replays.meta": (PUBLIC, "get", "/api/replays/none", None),
    "replays.frame_chunk": (PUBLIC, "get", "/api/replays/none/frames/0", None),
    "replays.state": (PUBLIC, "get", "/api/replays/none/state", None),
    "replays.overview": (PUBLIC, "get", "/api/replays/none/overview", None),
    "replays.series": (PUBLIC, "get", "/api/replays/none/series", None),
    "replays.pov": (PUBLIC, "get", "/api/replays/none/pov", None),
    "replays.turns": (PUBLIC, "get", "/api/replays/none/turns", None),
    "replays.turn": (PUBLIC, "get", "/api/replays/none/turns/1/1", None),
    "replays.transcript": (PUBLIC, "get", "/api/replays/none/transcript", None),
    "replays.why": (PUBLIC, "get", "/api/replays/none/why", None),
    "replays.fork": (ADMIN_ONLY, "post", "/api/replays/none/fork", {"tick": 0}),
    "compare.page": (PUBLIC, "get", "/compare?a=none&b=none", None),
    "compare.api": (PUBLIC, "get", "/api/compare?a=none&b=none", None),
    "agent_api.openapi_spec": (PUBLIC, "get", "/api/openapi.json", None),
    "agent_api.join": (PUBLIC, "post", "/api/agents/join", {"name": "eve"}),
    "agent_api.observe": (CHARACTER, "get", "/api/agents/{cid}/observe", None),
    "agent_api.act": (CHARACTER, "post", "/api/agents/{cid}/act", {"action": {"type": "wait"}}),
    "agent_api.submit_program": (
        CHARACTER,
        "post",
        "/api/agents/{cid}/programs",
        {"name": "p", "source": "wait(1)"},
    ),
    "agent_api.list_programs": (CHARACTER, "get", "/api/agents/{cid}/programs", None),
    "agent_api.program_status": (CHARACTER, "get", "/api/agents/{cid}/programs/{pid}", None),
    "agent_api.cancel_program": (CHARACTER, "delete", "/api/agents/{cid}/programs/{pid}", None),
    "agent_api.events": (CHARACTER, "get", "/api/agents/{cid}/events", None),
    "agent_api.next_turn": (CHARACTER, "get", "/api/agents/{cid}/next_turn", None),
    # the seat a token plays; the join link's character is checked (403 wrong_seat)
    "seat_api.seat": (CHARACTER, "get", "/api/agents/seat?character={cid}", None),
    "agent_api.incident": (
        CHARACTER,
        "post",
        "/api/agents/{cid}/incidents",
        {"cause": "model_error"},
    ),
}

# (namespace, event) -> rule. `join` makes a new character: anyone may.
EVENTS = {
    ("/", "connect"): PUBLIC,
    ("/", "disconnect"): PUBLIC,
    ("/", "spectate"): SPECTATE,
    ("/", "resync"): SPECTATE,
    ("/", "follow"): SPECTATE,
    ("/", "join"): PUBLIC,
    ("/", "act"): CHARACTER,
    ("/", "observe"): CHARACTER,
    ("/agent", "connect"): CHARACTER,
    ("/agent", "disconnect"): PUBLIC,
    ("/agent", "observe"): CHARACTER,
    ("/agent", "act"): CHARACTER,
    ("/agent", "next_turn"): CHARACTER,
}


def test_every_route_has_an_access_rule_and_every_body_route_a_schema(app):
    endpoints = {rule.endpoint for rule in app.url_map.iter_rules()}
    assert endpoints == set(ROUTES), "add new routes to ROUTES (and REST_SCHEMAS)"
    for rule in app.url_map.iter_rules():
        if rule.methods & {"POST", "PUT", "PATCH"}:
            assert rule.endpoint in REST_SCHEMAS, f"{rule.endpoint} takes a body: give it a schema"


def test_every_socket_event_has_an_access_rule_and_a_schema(app):
    handlers = app.extensions["socketio"].server.handlers
    events = {(ns, event) for ns, table in handlers.items() for event in table}
    assert events == set(EVENTS), "add new Socket.IO events to EVENTS (and SOCKET_SCHEMAS)"
    for key in events:
        assert key[1] in UNCHECKED_EVENTS or key in SOCKET_SCHEMAS, f"{key} has no schema"


@pytest.fixture
def callers(http, runner):
    """Two agents, ada (with a program) and bob."""
    ada, ada_token = agent(http, "ada")
    bob, bob_token = agent(http, "bob")
    reply = http.post(
        f"/api/agents/{ada}/programs",
        json={"name": "idle", "source": "while True:\n    wait(5)"},
        headers=bearer(ada_token),
    )
    assert reply.status_code == 201, reply.get_json()
    return {"ada": (ada, ada_token), "bob": (bob, bob_token), "pid": reply.get_json()["id"]}


def _call(http, endpoint, callers, headers=None):
    _, method, url, body = ROUTES[endpoint]
    url = url.format(cid=callers["ada"][0], pid=callers["pid"])
    return getattr(http, method)(url, json=body, headers=headers or {})


@pytest.mark.parametrize("endpoint", sorted(e for e, r in ROUTES.items() if r[0] == PUBLIC))
def test_public_routes_answer_without_credentials(http, callers, endpoint):
    assert _call(http, endpoint, callers).status_code not in (401, 403)


@pytest.mark.parametrize("endpoint", sorted(e for e, r in ROUTES.items() if r[0] == SPECTATE))
def test_whole_world_routes_need_the_spectator_token(http, callers, endpoint):
    assert _call(http, endpoint, callers).status_code == 403
    assert _call(http, endpoint, callers, {"X-Spectator-Token": "guess"}).status_code == 403
    assert _call(http, endpoint, callers, {"X-Spectator-Token": SPECTATOR}).status_code == 200


@pytest.mark.parametrize("endpoint", sorted(e for e, r in ROUTES.items() if r[0] == ADMIN_ONLY))
def test_admin_routes_need_the_admin_token(http, runner, callers, endpoint):
    before = (runner.world.tick, runner.paused, runner.speed, runner.world.state_hash())
    ada_token = callers["ada"][1]
    for headers in ({}, {"X-Admin-Token": "guess"}, bearer(ada_token), bearer(SPECTATOR)):
        reply = _call(http, endpoint, callers, headers)
        assert reply.status_code == 403, (headers, reply.get_json())
    assert (runner.world.tick, runner.paused, runner.speed, runner.world.state_hash()) == before
    reply = _call(http, endpoint, callers, {"X-Admin-Token": ADMIN})
    assert reply.status_code not in (401, 403), reply.get_json()


@pytest.mark.parametrize("endpoint", sorted(e for e, r in ROUTES.items() if r[0] == CHARACTER))
def test_character_routes_need_that_characters_own_token(http, runner, sock, callers, endpoint):
    player = sock().emit("join", {"name": "pat"}, callback=True)["token"]
    before = runner.world.state_hash()
    assert _call(http, endpoint, callers).status_code == 401
    assert _call(http, endpoint, callers, bearer("not-a-token")).status_code == 401
    assert _call(http, endpoint, callers, bearer(callers["bob"][1])).status_code == 403
    assert _call(http, endpoint, callers, {"X-Admin-Token": ADMIN}).status_code == 401
    assert _call(http, endpoint, callers, bearer(player)).status_code == 401
    assert runner.world.state_hash() == before
    reply = _call(http, endpoint, callers, bearer(callers["ada"][1]))
    if endpoint == "agent_api.next_turn":  # this world's clock takes no turns: past the gate
        assert reply.get_json()["error"]["code"] == "no_turns"
        return
    assert reply.status_code < 400, reply.get_json()


def _frames(client) -> list:
    return [m for m in client.get_received() if m["name"] == "frame"]


@pytest.mark.parametrize("event", ["spectate", "resync", "follow"])
def test_spectator_events_need_the_spectator_token(http, sock, callers, event):
    payload = {"char": callers["ada"][0]} if event == "follow" else {}
    client = sock()
    client.get_received()
    ack = client.emit(event, payload, callback=True)
    assert ack["ok"] is False and ack["code"] == "not_spectator"
    assert ack["error"]["code"] == "not_spectator"
    assert not [m for m in client.get_received() if m["name"] in ("frame", "follow")]
    wrong = client.emit(event, {**payload, "spectator_token": "guess"}, callback=True)
    assert wrong["code"] == "not_spectator"
    ok = client.emit(event, {**payload, "spectator_token": SPECTATOR}, callback=True)
    assert ok["ok"] is True


def test_spectator_token_in_the_connect_auth_or_the_page_cookie_admits_a_connection(app, sock):
    assert sock(auth={"spectator_token": SPECTATOR}).emit("spectate", {}, callback=True)["ok"]
    http = app.test_client()
    http.get(f"/live?spectator_token={SPECTATOR}")  # the page sets the cookie
    from asiworld.server import socketio

    client = socketio.test_client(app, flask_test_client=http)
    assert client.emit("spectate", {}, callback=True)["ok"]
    client.disconnect()


@pytest.mark.parametrize("event", ["act", "observe"])
def test_player_events_need_the_players_own_token(http, runner, sock, callers, event):
    client = sock()
    before = runner.world.state_hash()
    payload = {"action": {"type": "wait"}} if event == "act" else {}
    assert client.emit(event, payload, callback=True)["code"] == "bad_token"
    forged = client.emit(event, {**payload, "token": "forged"}, callback=True)
    assert forged["code"] == "unknown_token"
    agent_token = callers["ada"][1]  # an agent API token is not a player token
    assert client.emit(event, {**payload, "token": agent_token}, callback=True)["code"] == (
        "unknown_token"
    )
    assert runner.world.state_hash() == before
    token = client.emit("join", {"name": "pat"}, callback=True)["token"]
    assert client.emit(event, {**payload, "token": token}, callback=True)["ok"]


def test_join_is_open_and_gives_a_new_character_its_own_token(sock):
    one = sock().emit("join", {"name": "pat"}, callback=True)
    two = sock().emit("join", {"name": "pam"}, callback=True)  # names are unique (issue 21)
    assert one["ok"] and two["ok"] and one["char"] != two["char"] and one["token"] != two["token"]


def test_agent_namespace_admits_only_a_known_agent_token(sock, callers):
    assert not sock("/agent").is_connected("/agent")
    assert not sock("/agent", {"token": "forged"}).is_connected("/agent")
    player = sock().emit("join", {"name": "pat"}, callback=True)["token"]
    assert not sock("/agent", {"token": player}).is_connected("/agent")
    bob, bob_token = callers["bob"]
    client = sock("/agent", {"token": bob_token})
    obs = client.emit("observe", {}, namespace="/agent", callback=True)
    assert obs["ok"] and obs["observation"]["self"]["id"] == bob
    reply = client.emit("act", {"action": {"type": "wait"}}, namespace="/agent", callback=True)
    assert reply["ok"]


def test_players_only_ever_receive_their_own_observations(runner, sock):
    ada, bob = sock(), sock()
    ada_char = ada.emit("join", {"name": "ada"}, callback=True)["char"]
    bob_char = bob.emit("join", {"name": "bob"}, callback=True)["char"]
    runner.step(5)
    for client, own in ((ada, ada_char), (bob, bob_char)):
        observations = [m["args"][0] for m in client.get_received() if m["name"] == "observation"]
        assert observations and {obs["self"]["id"] for obs in observations} == {own}
        frames = [m for m in client.get_received() if m["name"] in ("frame", "follow")]
        assert frames == []  # no whole-world view without the spectator token


def test_kick_revokes_every_token_of_a_character(http, sock, runner, callers):
    ada, ada_token = callers["ada"]
    player = sock()
    seat = player.emit("join", {"name": "pat"}, callback=True)
    listener = sock("/agent", {"token": ada_token})
    for char in (ada, seat["char"]):
        reply = http.post("/admin/kick", json={"char": char}, headers={"X-Admin-Token": ADMIN})
        assert reply.status_code == 200 and reply.get_json()["tokens_revoked"] == 1
    assert http.get(f"/api/agents/{ada}/observe", headers=bearer(ada_token)).status_code == 401
    assert not listener.is_connected("/agent")
    again = sock().emit("act", {"token": seat["token"], "action": {"type": "wait"}}, callback=True)
    assert again["code"] == "unknown_token"


def test_a_token_never_begins_with_a_dash(monkeypatch):
    """Tokens are printed in commands to copy (`asiworld mcp --token T`): one beginning with "-"
    was read as an option (`argument --token: expected one argument`), one draw in 64."""
    import secrets

    from asiworld.server import auth

    draws = iter(["-Ab3", "-x", "Q-z_"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda nbytes: next(draws))
    assert auth.new_token() == "Q-z_"


def test_every_token_is_made_by_new_token():
    """Seats, agents, spectators and admins all get theirs from auth.new_token."""
    from pathlib import Path

    import asiworld

    root = Path(asiworld.__file__).parent
    makers = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                    if "token_urlsafe(" in p.read_text())
    assert makers == ["server/auth.py"], makers
