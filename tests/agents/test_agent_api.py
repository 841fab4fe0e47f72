"""The agent REST API: join, observe, act, programs, events, incidents; tokens bound to their
own character; malformed bodies refused with a code and no change to the world."""

from __future__ import annotations

import pytest

from tests.agents.conftest import join

WOODCUTTER = """
def main():
    move("n")
    log("moved")
    return position()
"""

FOREVER = """
def main():
    while True:
        wait(5)
"""


def test_join_gives_a_character_and_a_token_that_is_stored_only_as_a_hash(app, http):
    reply = http.post("/api/agents/join", json={"name": "ada", "label": "llm-test"})
    assert reply.status_code == 201
    body = reply.get_json()
    service = app.extensions["asiworld_agents"]
    assert body["token"] not in service.by_token
    assert service.by_token and all(len(key) == 64 for key in service.by_token)
    obs = http.get(
        f"/api/agents/{body['character']}/observe",
        headers={"Authorization": f"Bearer {body['token']}"},
    ).get_json()
    assert obs["self"]["name"] == "ada" and obs["self"]["label"] == "llm-test"


def test_an_accepted_move_moves_the_character_at_the_next_tick(http, runner):
    cid, auth = join(http)
    before = http.get(f"/api/agents/{cid}/observe", headers=auth).get_json()["self"]
    result = http.post(
        f"/api/agents/{cid}/act", json={"action": {"type": "move", "dir": "s"}}, headers=auth
    ).get_json()
    assert result["ok"] and result["code"] == "accepted"
    runner.step(3)
    after = http.get(f"/api/agents/{cid}/observe", headers=auth).get_json()["self"]
    assert (after["x"], after["y"]) == (before["x"], before["y"] + 1)


def test_text_observation_is_for_language_models(http):
    cid, auth = join(http)
    body = http.get(f"/api/agents/{cid}/observe?format=text", headers=auth).get_json()
    assert "ada at (" in body["text"] and "legend:" in body["text"]
    bad = http.get(f"/api/agents/{cid}/observe?format=xml", headers=auth)
    assert bad.status_code == 422 and bad.get_json()["error"]["code"] == "bad_format"


def test_a_refused_action_is_a_game_answer_not_an_http_error(http, runner):
    cid, auth = join(http)
    reply = http.post(
        f"/api/agents/{cid}/act", json={"action": {"type": "eat", "item": "berries"}}, headers=auth
    )
    assert reply.status_code == 200
    assert reply.get_json()["ok"] is False and reply.get_json()["code"] == "not_in_inventory"


def test_program_runs_reports_status_logs_and_outcome(http, runner):
    cid, auth = join(http)
    start = http.get(f"/api/agents/{cid}/observe", headers=auth).get_json()["self"]
    reply = http.post(
        f"/api/agents/{cid}/programs", json={"name": "step", "source": WOODCUTTER}, headers=auth
    )
    assert reply.status_code == 201
    pid = reply.get_json()["id"]
    runner.step(5)
    status = http.get(f"/api/agents/{cid}/programs/{pid}", headers=auth).get_json()
    assert status["status"] == "finished"
    assert status["logs"] == ["moved"]
    assert status["outcome"]["value"] == [start["x"], start["y"] - 1]
    listed = http.get(f"/api/agents/{cid}/programs", headers=auth).get_json()["programs"]
    assert [p["id"] for p in listed] == [pid]
    events = http.get(f"/api/agents/{cid}/events?after=0", headers=auth).get_json()["events"]
    ends = [e for e in events if e["kind"] == "program_outcome"]
    assert ends and ends[0]["status"] == "finished" and ends[0]["program"] == pid
    assert any(e["kind"] == "op_done" for e in events)


def test_cancel_stops_a_running_program_and_a_second_cancel_is_refused(http, runner):
    cid, auth = join(http)
    pid = http.post(
        f"/api/agents/{cid}/programs", json={"name": "idle", "source": FOREVER}, headers=auth
    ).get_json()["id"]
    runner.step(2)
    assert http.get(f"/api/agents/{cid}/programs/{pid}", headers=auth).get_json()["status"] in (
        "running",
        "waiting",
    )
    reply = http.delete(f"/api/agents/{cid}/programs/{pid}", headers=auth)
    assert reply.status_code == 200 and reply.get_json()["status"] == "stopped"
    again = http.delete(f"/api/agents/{cid}/programs/{pid}", headers=auth)
    assert again.status_code == 409 and again.get_json()["error"]["code"] == "not_running"
    missing = http.get(f"/api/agents/{cid}/programs/999", headers=auth)
    assert missing.status_code == 404 and missing.get_json()["error"]["code"] == "unknown_program"


def test_a_program_that_does_not_compile_is_refused_with_its_line(http):
    cid, auth = join(http)
    reply = http.post(
        f"/api/agents/{cid}/programs", json={"name": "bad", "source": "import os\n"}, headers=auth
    )
    assert reply.status_code == 422
    assert reply.get_json()["error"]["code"] in ("forbidden", "syntax_error")


def test_another_characters_token_is_refused_on_every_route(http, runner):
    ada, ada_auth = join(http, "ada")
    bob, bob_auth = join(http, "bob")
    pid = http.post(
        f"/api/agents/{ada}/programs", json={"name": "idle", "source": FOREVER}, headers=ada_auth
    ).get_json()["id"]
    runner.step(1)
    before = runner.world.state_hash()
    calls = [
        ("get", f"/api/agents/{ada}/observe", None),
        ("post", f"/api/agents/{ada}/act", {"action": {"type": "move", "dir": "n"}}),
        ("post", f"/api/agents/{ada}/programs", {"name": "x", "source": "pass"}),
        ("get", f"/api/agents/{ada}/programs", None),
        ("get", f"/api/agents/{ada}/programs/{pid}", None),
        ("delete", f"/api/agents/{ada}/programs/{pid}", None),
        ("get", f"/api/agents/{ada}/events", None),
        ("post", f"/api/agents/{ada}/incidents", {"cause": "model_error"}),
    ]
    for method, url, body in calls:
        reply = getattr(http, method)(url, json=body, headers=bob_auth)
        assert reply.status_code == 403, url
        assert reply.get_json()["error"]["code"] == "not_your_character", url
        assert getattr(http, method)(url, json=body).status_code == 401, url
        wrong = {"Authorization": "Bearer not-a-token"}
        assert getattr(http, method)(url, json=bob and body, headers=wrong).status_code == 401
    # bob's own path cannot reach ada's program either
    reply = http.delete(f"/api/agents/{bob}/programs/{pid}", headers=bob_auth)
    assert reply.status_code == 404 and reply.get_json()["error"]["code"] == "unknown_program"
    assert runner.world.state_hash() == before
    assert http.get(f"/api/agents/{ada}/programs/{pid}", headers=ada_auth).get_json()["status"] in (
        "running",
        "waiting",
    )


@pytest.mark.parametrize(
    ("url", "body", "status", "code"),
    [
        ("act", "not json", 400, "bad_json"),
        ("act", [1, 2], 400, "bad_json"),
        ("act", {}, 422, "bad_action"),
        ("act", {"action": "move n"}, 422, "bad_action"),
        ("act", {"action": {"dir": "n"}}, 422, "bad_action"),
        ("act", {"action": {"type": "fly"}}, 422, "unknown_action"),
        ("act", {"action": {"type": "move", "dir": "up"}}, 422, "bad_argument"),
        ("act", {"action": {"type": "wait", "ticks": "many"}}, 422, "bad_argument"),
        ("programs", {"name": "x"}, 422, "bad_program"),
        ("programs", {"name": 3, "source": "pass"}, 422, "bad_program"),
        ("programs", {"name": "", "source": "pass"}, 422, "bad_argument"),
        ("incidents", {"cause": "Not Snake"}, 422, "bad_cause"),
        ("incidents", {"cause": "x", "start": -1}, 422, "bad_start"),
        ("incidents", {"cause": "x", "start": 5, "end": 2}, 422, "bad_end"),
        ("incidents", {"cause": "x", "detail": 7}, 422, "bad_detail"),
    ],
)
def test_malformed_bodies_get_a_clear_4xx_and_change_nothing(http, runner, url, body, status, code):
    cid, auth = join(http)
    before = runner.world.state_hash()
    if isinstance(body, str):
        reply = http.post(
            f"/api/agents/{cid}/{url}", data=body, headers=auth, content_type="application/json"
        )
    else:
        reply = http.post(f"/api/agents/{cid}/{url}", json=body, headers=auth)
    assert reply.status_code == status
    error = reply.get_json()["error"]
    assert error["code"] == code and error["message"]
    assert runner.world.state_hash() == before
    runner.step(1)
    events = http.get(f"/api/agents/{cid}/events", headers=auth).get_json()["events"]
    assert not [e for e in events if e["kind"] in ("action", "incident", "program_outcome")]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"name": ""},
        {"name": "x" * 30},
        {"name": "<script>"},
        {"name": "ok", "label": "a b"},
        {"name": 5},
    ],
)
def test_join_refuses_bad_names_and_labels_without_adding_anyone(http, runner, body):
    before = len(runner.world.characters())
    reply = http.post("/api/agents/join", json=body)
    assert reply.status_code == 422
    assert reply.get_json()["error"]["code"] in ("bad_name", "bad_label")
    assert len(runner.world.characters()) == before


def test_incidents_enter_the_worlds_event_stream(http, runner):
    cid, auth = join(http)
    seen = []
    runner.pipeline.watch(lambda info: seen.extend(e for e in info.events if e["kind"] == "incident"))
    reply = http.post(
        f"/api/agents/{cid}/incidents",
        json={"cause": "model_error", "start": 0, "end": 0, "detail": "HTTP 500"},
        headers=auth,
    )
    assert reply.status_code == 201
    runner.step(1)
    assert seen == [
        {
            "kind": "incident",
            "char": cid,
            "cause": "model_error",
            "start": 0,
            "end": 0,
            "detail": "HTTP 500",
            "tick": runner.world.tick,
        }
    ]
    events = http.get(f"/api/agents/{cid}/events", headers=auth).get_json()["events"]
    assert [e["cause"] for e in events if e["kind"] == "incident"] == ["model_error"]


def test_events_are_numbered_and_polled_after_a_sequence_number(http, runner):
    cid, auth = join(http)
    http.post(f"/api/agents/{cid}/act", json={"action": {"type": "wait", "ticks": 2}}, headers=auth)
    runner.step(4)
    first = http.get(f"/api/agents/{cid}/events?after=0", headers=auth).get_json()
    assert first["events"] and first["last"] == first["events"][-1]["seq"]
    again = http.get(f"/api/agents/{cid}/events?after={first['last']}", headers=auth).get_json()
    assert again["events"] == [] and again["last"] == first["last"]
    bad = http.get(f"/api/agents/{cid}/events?after=soon", headers=auth)
    assert bad.status_code == 422


def test_the_openapi_spec_validates_and_lists_every_route(http):
    from openapi_spec_validator import validate

    spec = http.get("/api/openapi.json").get_json()
    validate(spec)
    for path in (
        "/api/agents/join",
        "/api/agents/{cid}/act",
        "/api/agents/{cid}/events",
        "/api/agents/{cid}/programs/{pid}",
        "/api/agents/{cid}/incidents",
    ):
        assert path in spec["paths"]
    action_types = {s["title"] for s in spec["components"]["schemas"]["Action"]["oneOf"]}
    assert {"move", "gather", "craft", "wait"} <= action_types
    by_status = spec["x-error-codes"]  # from the table of codes (docs/errors.md)
    assert "unknown_token" in by_status["401"] and "world_full" in by_status["409"]


def test_a_programs_start_and_end_enter_the_worlds_event_stream(http, runner):
    seen: list[dict] = []
    runner.pipeline.watch(lambda info: seen.extend(info.events))
    cid, auth = join(http)
    reply = http.post(
        f"/api/agents/{cid}/programs", json={"name": "step", "source": WOODCUTTER}, headers=auth
    )
    pid = reply.get_json()["id"]
    runner.step(5)
    started = [e for e in seen if e["kind"] == "program_started"]
    assert started and started[0]["program"] == pid and started[0]["char"] == cid
    assert started[0]["source"] == WOODCUTTER  # replays can show the program's source
    ended = [e for e in seen if e["kind"] == "program_finished"]
    assert ended and ended[0]["status"] == "finished"


def test_a_join_into_a_world_with_no_tile_left_is_refused_world_full(apps):
    from asiworld.engine.model import SURFACE
    from asiworld.server import services

    from tests.agents.conftest import CONFIG

    # the smallest map; the tiles run out before the character cap
    app = apps.create({**CONFIG, "WORLD_SIZE": 48, "MAX_CHARACTERS": 10**6})
    http, runner = app.test_client(), services(app).runner
    world, area = runner.world, runner.world.areas[SURFACE]
    while world.find_free_tile(SURFACE, world.landmarks.plaza) is not None:
        world.add_character("crowd")
    before = len(world.characters())
    reply = http.post("/api/agents/join", json={"name": "late", "label": "tester"})
    assert reply.status_code == 409
    error = reply.get_json()["error"]
    assert error["code"] == "world_full" and "no free tile" in error["message"]
    assert len(world.characters()) == before
    assert area.occupant  # nothing was moved to make room


def test_at_a_studys_end_each_seat_is_told_then_every_call_is_410_study_ended(app, http, runner):
    cid, auth = join(http)
    other, other_auth = join(http, "bo")
    runner.step(2)
    app.extensions["asiworld_agents"].end(7)
    # the event comes first: a poll that has not reached it still gets it
    told = http.get(f"/api/agents/{cid}/events?after=0", headers=auth).get_json()["events"][-1]
    assert told["kind"] == "study_ended" and told["tick"] == 7 and told["char"] == cid
    calls = [
        http.get(f"/api/agents/{cid}/events?after={told['seq']}", headers=auth),
        http.get(f"/api/agents/{cid}/observe", headers=auth),
        http.post(f"/api/agents/{cid}/act", json={"action": {"type": "move", "dir": "s"}},
                  headers=auth),
        http.get(f"/api/agents/{other}/programs", headers=other_auth),
        http.post("/api/agents/join", json={"name": "late"}),
    ]
    for reply in calls:
        error = reply.get_json()["error"]
        assert reply.status_code == 410, reply.get_json()
        assert error == {"code": "study_ended", "message": "the study ended at tick 7", "tick": 7}
    service = app.extensions["asiworld_agents"]
    assert service.told == {cid, other}
    assert runner.call(lambda: runner.world.tick) == 2  # nothing acted
