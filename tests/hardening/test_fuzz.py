"""Fuzzing every Socket.IO event and every REST body with hypothesis: arbitrary JSON, and
near-misses built from the real keys (valid tokens, real action types, wrong value types).

The rules: the server never fails (no exception, no 5xx), and a refused message changes nothing
(same state hash, same characters, same queued actions)."""

from __future__ import annotations

import pytest
from asiworld.server import close_app, create_app, services, socketio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hardening.conftest import ADMIN

FUZZ = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
NO_LIMITS = {kind: (1e9, 1e9) for kind in ("act", "join", "program", "other")}

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=20,
)
ACTION_TYPES = ["move", "move_to", "gather", "attack", "craft", "place", "eat", "equip", "say",
                "wait", "enter", "give", "buy", "drop", "sleep", "fly", ""]  # fmt: skip
ARG_KEYS = ["dir", "x", "y", "target", "recipe", "count", "item", "text", "ticks", "party", "slot"]
actions = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {"type": st.sampled_from(ACTION_TYPES)},
        optional={key: json_values for key in ARG_KEYS},
    ),
)


@pytest.fixture(scope="module")
def world_app():
    app = create_app(
        {
            "SEED": 7,
            "WORLD_SIZE": 64,
            "TESTING": True,
            "PROGRAMS_IN_PROCESS": True,
            "ADMIN_TOKEN": ADMIN,
            "RATE_LIMITS": NO_LIMITS,
        }
    )
    http = app.test_client()
    player = socketio.test_client(app)
    seat = player.emit("join", {"name": "ada"}, callback=True)
    joined = http.post("/api/agents/join", json={"name": "bot", "label": "fuzz"}).get_json()
    agent_sock = socketio.test_client(app, namespace="/agent", auth={"token": joined["token"]})
    yield {
        "app": app,
        "http": http,
        "player": player,
        "token": seat["token"],
        "agent": joined["character"],
        "agent_token": joined["token"],
        "agent_sock": agent_sock,
    }
    for client, namespace in ((player, "/"), (agent_sock, "/agent")):
        if client.is_connected(namespace):
            client.disconnect(namespace)
    close_app(app)  # one app for the module: the `apps` fixture closes a test's


def _state(app) -> tuple:
    world = services(app).runner.world
    return world.state_hash(), len(world.characters()), len(world.pending), world.tick


def _refused(reply) -> bool:
    return isinstance(reply, dict) and reply.get("ok") is False


def _payloads(keys: dict) -> st.SearchStrategy:
    """Arbitrary JSON, or an object made of the event's real keys with fuzzed values."""
    return st.one_of(json_values, st.fixed_dictionaries({}, optional=keys))


@pytest.mark.parametrize(
    "event",
    ["spectate", "resync", "follow", "join", "act", "observe"],
)
@FUZZ
@given(data=st.data())
def test_fuzzed_socket_events_never_fail_and_refusals_change_nothing(world_app, event, data):
    token = st.sampled_from([world_app["token"], "forged"]) | json_values
    keys = {
        "spectate": {"spectator_token": json_values},
        "resync": {"spectator_token": json_values},
        "follow": {"char": st.integers(-5, 200) | json_values},
        "join": {"name": st.text(max_size=30) | json_values, "token": token},
        "act": {"token": token, "action": actions},
        "observe": {"token": token, "full_memory": json_values},
    }[event]
    payload = data.draw(_payloads(keys))
    app, client = world_app["app"], world_app["player"]
    before = _state(app)
    reply = client.emit(event, payload, callback=True)
    assert isinstance(reply, dict), reply
    if _refused(reply):
        assert reply["code"] and reply["message"]
        assert _state(app) == before, (event, payload, reply)


@pytest.mark.parametrize("event", ["observe", "act"])
@FUZZ
@given(data=st.data())
def test_fuzzed_agent_socket_events_never_fail_and_refusals_change_nothing(world_app, event, data):
    keys = {"observe": {"format": json_values}, "act": {"action": actions}}[event]
    payload = data.draw(_payloads(keys))
    app = world_app["app"]
    before = _state(app)
    reply = world_app["agent_sock"].emit(event, payload, namespace="/agent", callback=True)
    assert isinstance(reply, dict), reply
    if _refused(reply):  # an edge refusal ({"error": ...}) or the engine's ({"code": ...})
        assert reply.get("code") or reply["error"]["code"]
        assert _state(app) == before, (event, payload, reply)


def _routes(world_app) -> dict:
    cid = world_app["agent"]
    return {
        "join": "/api/agents/join",
        "act": f"/api/agents/{cid}/act",
        "programs": f"/api/agents/{cid}/programs",
        "incidents": f"/api/agents/{cid}/incidents",
        "step": "/admin/step",
        "speed": "/admin/speed",
        "pause": "/admin/pause",
        "resume": "/admin/resume",
        "snapshot": "/admin/snapshot",
        "fork": "/api/replays/none/fork",
    }


ROUTE_KEYS = {
    "join": {"name": st.text(max_size=30) | json_values, "label": json_values},
    "act": {"action": actions},
    "programs": {"name": json_values, "source": st.text(max_size=200) | json_values},
    "incidents": {
        "cause": st.text(max_size=45) | json_values,
        "start": json_values,
        "end": json_values,
        "detail": json_values,
    },
    "step": {"n": json_values},
    "speed": {"speed": json_values},
    "pause": {},
    "resume": {},
    "snapshot": {},
    "fork": {"tick": json_values, "char": json_values, "seed": json_values},
}


@pytest.mark.parametrize("route", sorted(ROUTE_KEYS))
@FUZZ
@given(data=st.data(), raw=st.booleans())
def test_fuzzed_rest_bodies_never_5xx_and_refusals_change_nothing(world_app, route, data, raw):
    app, http = world_app["app"], world_app["http"]
    headers = {"Authorization": f"Bearer {world_app['agent_token']}", "X-Admin-Token": ADMIN}
    url = _routes(world_app)[route]
    before = _state(app)
    if raw:
        body = data.draw(st.binary(max_size=300) | st.text(max_size=300))
        reply = http.post(url, data=body, headers=headers, content_type="application/json")
    else:
        body = data.draw(_payloads(ROUTE_KEYS[route]))
        reply = http.post(url, json=body, headers=headers)
    assert reply.status_code < 500, (route, body, reply.get_data()[:300])
    if reply.status_code >= 400:
        answer = reply.get_json()  # {"error": {code, message}}; replay routes say {code, message}
        assert (answer.get("error") or answer)["code"], answer
        assert _state(app) == before, (route, body, answer)
    services(app).runner.paused = False  # pause/step are fine to accept; keep the world usable
