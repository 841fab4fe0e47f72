"""Deeply nested JSON (issue 16, weakness 4): 5,000 levels on any POST route answered HTTP 500
with Flask's HTML page (a RecursionError in json.loads, before authentication). Every route
of the app's url_map, with every method it takes, and every Socket.IO event get bodies nested
from just past the limit up to 100,000 levels: the answer is a 4xx (an `error` event on
Socket.IO) with a stable code, never a 5xx, and the world does not change.

Bad inputs tried: `[` * n + `]` * n, `{"a":` * n + `}` * n, n unclosed `[`, `[` nesting
inside an object's value, deep nesting behind a long string that holds brackets (which do not
count), for n in 33, 1,000, 5,000, 20,000 and 100,000."""

from __future__ import annotations

import re

import pytest
from asiworld.server import close_app, create_app, services, socketio
from asiworld.server.nesting import MAX_DEPTH, BoundedJSON, too_deep
from asiworld.server.validation import SOCKET_SCHEMAS

from tests.hardening.conftest import ADMIN, CONFIG, agent, bearer

DEPTHS = (MAX_DEPTH + 1, 1_000, 5_000, 20_000, 100_000)


def nested(n: int) -> list[str]:
    return [
        "[" * n + "]" * n,
        '{"a":' * n + "1" + "}" * n,
        "[" * n,
        '{"name": ' + "[" * n + "]" * n + "}",
        '{"source": "' + "]" * 500 + '", "name": ' + "[" * n + "]" * n + "}",
    ]


@pytest.fixture(scope="module")
def world():
    app = create_app(
        {**CONFIG, "RATE_LIMITS": {k: (1e9, 1e9) for k in ("act", "join", "program", "other")}}
    )
    http = app.test_client()
    cid, token = agent(http, "ada")
    yield {"app": app, "http": http, "cid": cid, "token": token}
    close_app(app)  # one app for the module: the `apps` fixture closes a test's


def _state(app) -> tuple:
    world = services(app).runner.world
    return world.state_hash(), len(world.characters()), len(world.pending), world.tick


def _urls(app, cid: int) -> list[tuple[str, str]]:
    """(method, url) for every rule of the url_map, its arguments filled with real values (the
    agent's own character, so a missing depth check would reach the handlers)."""
    calls = []
    for rule in app.url_map.iter_rules():
        url = rule.rule
        for converter, name in re.findall(r"<(?:(\w+):)?(\w+)>", rule.rule):
            value = str(cid) if name == "cid" else ("1" if converter == "int" else "x")
            url = re.sub(rf"<(?:\w+:)?{name}>", value, url)
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            calls.append((method, url))
    return calls


def test_the_scan_counts_brackets_outside_strings_only():
    assert not too_deep("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    assert too_deep("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert not too_deep('{"source": "' + "[" * 10_000 + '"}')
    assert not too_deep('{"source": "\\"' + "[" * 10_000 + '"}')  # an escaped quote stays inside
    assert too_deep(b"[" * 100_000)
    assert not too_deep("[1]," * 10_000)  # many, side by side, is not deep


def test_the_socket_json_module_reads_shallow_packets_as_json_does():
    assert BoundedJSON.loads('["act", {"action": {"type": "wait"}}]') == [
        "act",
        {"action": {"type": "wait"}},
    ]
    name, payload = BoundedJSON.loads('["join", ' + "[" * 5000 + "]" * 5000 + "]")
    assert name == "join" and repr(payload) == "<too deep>"


def test_every_route_is_tried(world):
    calls = _urls(world["app"], world["cid"])
    assert ("POST", "/api/agents/join") in calls
    assert ("POST", f"/api/agents/{world['cid']}/programs") in calls
    assert ("POST", "/admin/step") in calls
    assert len(calls) >= 20


@pytest.mark.parametrize("depth", DEPTHS)
def test_deep_bodies_on_every_route_get_a_4xx_json_error_and_change_nothing(world, depth):
    app, http = world["app"], world["http"]
    headers = {**bearer(world["token"]), "X-Admin-Token": ADMIN}
    for method, url in _urls(app, world["cid"]):
        for body in nested(depth):
            before = _state(app)
            reply = http.open(
                url, method=method, data=body, headers=headers, content_type="application/json"
            )
            assert reply.status_code < 500, (method, url, depth, reply.get_data()[:200])
            if reply.status_code >= 400 and url.startswith(("/api", "/admin")):
                answer = reply.get_json()
                assert (answer.get("error") or answer)["code"], (method, url, answer)
            assert _state(app) == before, (method, url, depth)
            services(app).runner.paused = False


def test_a_deep_body_within_the_size_limit_is_refused_as_too_deep(world):
    app, http = world["app"], world["http"]
    before = _state(app)
    for url in ("/api/agents/join", f"/api/agents/{world['cid']}/programs", "/admin/step"):
        reply = http.post(
            url,
            data="[" * 5_000 + "]" * 5_000,
            headers={**bearer(world["token"]), "X-Admin-Token": ADMIN},
            content_type="application/json",
        )
        assert reply.status_code == 400, url
        assert reply.get_json()["error"]["code"] == "too_deep"
    assert _state(app) == before


def _raw_event(client, namespace: str, event: str, payload: str) -> dict | None:
    """Send one EVENT packet with an acknowledgement id as raw text, as a browser would (the
    test client's own emit would have to json.dumps the payload first)."""
    prefix = "" if namespace == "/" else f"{namespace},"
    client.acks = None
    socketio.server._handle_eio_message(client.eio_sid, f'2{prefix}7["{event}",{payload}]')
    return client.acks["args"][0] if client.acks else None


@pytest.mark.parametrize("depth", DEPTHS)
def test_deep_socket_payloads_on_every_event_are_refused_and_change_nothing(world, depth):
    app = world["app"]
    clients = {
        "/": socketio.test_client(app),
        "/agent": socketio.test_client(app, namespace="/agent", auth={"token": world["token"]}),
    }
    try:
        for (namespace, event), _spec in sorted(SOCKET_SCHEMAS.items()):
            if event == "connect":
                continue
            for payload in nested(depth):
                before = _state(app)
                reply = _raw_event(clients[namespace], namespace, event, payload)
                assert reply is not None and reply["ok"] is False, (event, depth)
                assert reply["code"] == "too_deep", (event, depth, reply)
                assert _state(app) == before, (event, depth)
        assert clients["/"].is_connected() and clients["/agent"].is_connected("/agent")
    finally:
        clients["/"].disconnect()
        clients["/agent"].disconnect(namespace="/agent")


def test_a_connect_with_deep_auth_is_refused(world):
    client = socketio.test_client(world["app"])
    eio = client.eio_sid
    before = _state(world["app"])
    socketio.server._handle_eio_message(eio, "0/agent," + '{"token":' * 5000 + "1" + "}" * 5000)
    assert not client.is_connected("/agent")
    assert _state(world["app"]) == before
    client.disconnect()
