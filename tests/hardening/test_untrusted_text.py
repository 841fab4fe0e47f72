"""No text can poison a world. A lone surrogate ("\\ud800": valid JSON, not encodable as UTF-8)
once made a `say` answer 200, then broke the next snapshot, left the store's transaction open,
paused the world while /healthz said it ran, and kept every folder from being resumed.

Vectors tried, each with a lone surrogate: an action over REST, over Socket.IO, from a program
(`say`), a model's text action; a program's name, source, log line and outcome; an incident's
detail. An action's text is refused with `bad_text` and changes nothing; a program's name and
source are refused; what the world only records (logs, outcomes, incidents) is repaired. Then a
snapshot, a kill and a restart on the same data folder. And a tick that fails anyway is an
alarm on /healthz (503, the reason) with the store's transaction rolled back."""

from __future__ import annotations

import signal

import pytest
from asiworld.server import services, socketio

from tests.hardening.conftest import ADMIN, agent, bearer
from tests.hardening.serving import free_port, http, served_again, start_server

BAD = "hi \ud800 there"


def test_a_say_over_rest_with_a_lone_surrogate_is_refused_and_changes_nothing(http, runner):
    cid, token = agent(http)
    before = len(runner.world.pending)
    reply = http.post(f"/api/agents/{cid}/act", headers=bearer(token),
                      json={"action": {"type": "say", "text": BAD}})
    body = reply.get_json()
    assert body["ok"] is False and body["code"] == "bad_text", body
    assert "lone surrogate at position 3" in body["message"]
    assert len(runner.world.pending) == before  # nothing queued


def test_a_say_over_socketio_is_refused_the_same_way(app):
    client = socketio.test_client(app)
    token = client.emit("join", {"name": "ada"}, callback=True)["token"]
    ack = client.emit("act", {"token": token, "action": {"type": "say", "text": BAD}},
                      callback=True)
    assert ack["ok"] is False and ack["code"] == "bad_text"
    assert len(services(app).runner.world.pending) == 0


def test_a_programs_text_is_refused_or_repaired(http, runner):
    cid, token = agent(http)
    named = http.post(f"/api/agents/{cid}/programs", headers=bearer(token),
                      json={"name": "x\udfff", "source": "def main():\n    return 1\n"})
    assert named.get_json()["code"] == "bad_text"
    sourced = http.post(f"/api/agents/{cid}/programs", headers=bearer(token),
                        json={"name": "s", "source": "def main():\n    return '\udfff'\n"})
    assert sourced.get_json()["code"] == "bad_text"
    source = ("def main():\n"
              "    log('x' + chr(0xd800))\n"
              "    try:\n"
              "        say('y' + chr(0xd800))\n"
              "    except GameError as e:\n"
              "        log(e.code)\n"
              "    return {chr(0xdfff): [chr(0xd800)]}\n")
    started = http.post(f"/api/agents/{cid}/programs", headers=bearer(token),
                        json={"name": "poison", "source": source})
    pid = started.get_json()["id"]
    runner.step(5)
    status = http.get(f"/api/agents/{cid}/programs/{pid}", headers=bearer(token)).get_json()
    assert status["status"] == "finished", status
    assert status["logs"][:2] == ["x\ufffd", "bad_text"]
    assert status["outcome"]["value"] == {"\ufffd": ["\ufffd"]}


def test_an_incidents_detail_is_repaired(http, runner):
    cid, token = agent(http)
    seen: list[dict] = []
    runner.pipeline.watch(lambda tick: seen.extend(tick.events))
    reply = http.post(f"/api/agents/{cid}/incidents", headers=bearer(token),
                      json={"cause": "model_error", "detail": BAD})
    assert reply.status_code in (200, 201), reply.get_json()
    runner.step(1)
    (incident,) = [e for e in seen if e["kind"] == "incident"]
    assert incident["detail"] == "hi \ufffd there"


def test_a_poisoned_say_then_a_snapshot_a_kill_and_a_restart_on_the_same_folder(tmp_path):
    port = free_port()
    data = str(tmp_path / "data")
    args = ("--data-dir", data, "--admin-token", ADMIN, "--speed", "50")
    proc = start_server(port, *args)
    try:
        status, joined = http("POST", port, "/api/agents/join", {"name": "ada"})
        cid, auth = joined["character"], bearer(joined["token"])
        status, refused = http("POST", port, f"/api/agents/{cid}/act",
                               {"action": {"type": "say", "text": BAD}}, auth)
        assert refused["code"] == "bad_text"
        http("POST", port, f"/api/agents/{cid}/incidents",
             {"cause": "model_error", "detail": BAD}, auth)
        source = "def main():\n    log(chr(0xd800))\n    return chr(0xdfff)\n"
        http("POST", port, f"/api/agents/{cid}/programs", {"name": "p", "source": source}, auth)
        status, snap = http("POST", port, "/admin/snapshot", {}, bearer(ADMIN))
        assert status == 200, snap
        status, health = http("GET", port, "/healthz")
        assert status == 200 and health["running"] is True
        before = health["tick"]
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    health, err = served_again(port, *args)
    assert health["ok"] and health["tick"] >= before
    assert "observer recorder failed" not in err and "Traceback" not in err


def test_a_tick_that_fails_is_an_alarm_and_leaves_no_transaction_open(apps, tmp_path, monkeypatch):
    from asiworld.pipeline import TickNotSaved
    from asiworld.server.settings import ServerSettings

    app, store = apps.build(ServerSettings(data_dir=tmp_path / "data", speed=10.0,
                                           snapshot_every=1))
    runner = services(app).runner
    client = app.test_client()
    runner.step(2)

    def broken(world):
        raise ValueError("cannot encode the snapshot")

    monkeypatch.setattr(store, "_write_snapshot", broken)
    with pytest.raises(TickNotSaved):
        runner.step(1)
    assert not store.db.in_transaction  # rolled back, not left open
    reply = client.get("/healthz")
    assert reply.status_code == 503
    assert reply.get_json()["running"] is False
    assert "cannot encode the snapshot" in reply.get_json()["reason"]
    monkeypatch.undo()
    runner.resume()  # an admin's resume clears the alarm; the next tick saves again
    runner.step(2)
    assert client.get("/healthz").get_json()["ok"] is True
    assert store.newest_snapshot_tick() == runner.world.tick
    store.close()


def test_a_full_disk_is_a_503_not_an_html_500_and_the_world_goes_on_once_it_can_save(apps,
        tmp_path, monkeypatch):
    """Before: 278 acts answered with Flask's HTML 500 page, and the world stayed paused after
    space was freed until an admin resumed it."""
    import sqlite3
    import time

    from asiworld import realtime as runner_module
    from asiworld.server.settings import ServerSettings

    monkeypatch.setattr(runner_module, "RETRY_SECONDS", 0.2)
    app, store = apps.build(ServerSettings(data_dir=tmp_path / "data", speed=50.0))
    runner = services(app).runner
    client = app.test_client()
    cid, token = agent(client)
    runner.start()
    try:
        full = {"on": True}
        flush = store.flush

        def maybe_full() -> None:
            if full["on"]:
                raise sqlite3.OperationalError("database or disk is full")
            flush()

        monkeypatch.setattr(store, "flush", maybe_full)
        runner.pipeline.durable[:] = [maybe_full]
        reply = client.post(f"/api/agents/{cid}/act", headers=bearer(token),
                            json={"action": {"type": "wait", "ticks": 1}})
        assert reply.status_code == 503 and reply.is_json
        assert reply.get_json()["error"]["code"] == "not_saved"
        health = client.get("/healthz")
        assert health.status_code == 503 and "disk is full" in health.get_json()["reason"]
        stuck = health.get_json()["tick"]
        full["on"] = False  # space is freed
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            health = client.get("/healthz")
            if health.status_code == 200 and health.get_json()["tick"] > stuck + 5:
                break
            time.sleep(0.05)
        assert health.status_code == 200 and health.get_json()["running"] is True
    finally:
        runner.stop()
        store.close()
