"""A world with a spectator token keeps its own recordings private. Before, an anonymous client
listed `live-*.asirep` and read its frames (the whole map), any character's point of view, every
program's source and every `said` from the overview, about six seconds behind the live world;
under `serve --study` an external seat read its rivals this way. The answers also gave this
machine's absolute paths.

Tried anonymously and with the spectator token: the listing (JSON and page), the viewer page,
meta, frames, state, overview, series, turns, pov. Replays of other folders stay public."""

from __future__ import annotations

import pytest
from asiworld.resources import shipped
from asiworld.server import services

SPECTATOR = "spectator-secret"


@pytest.fixture
def recorded(apps, tmp_path):
    app = apps.create({"SEED": 3, "WORLD_SIZE": 48, "TESTING": True, "RECORD_DIR": str(tmp_path),
                      "REPLAY_DIRS": [str(shipped("replays"))], "AGENTS": ["forager"],
                      "SPECTATOR_TOKEN": SPECTATOR})
    services(app).runner.step(65)  # the first segment is on disk
    client = app.test_client()
    rows = client.get("/api/replays", headers={"X-Spectator-Token": SPECTATOR}).get_json()
    live = next(r for r in rows["replays"] if r.get("recording"))
    yield app, client, live["id"], str(tmp_path)
    app.extensions["asiworld_recording"].close()


ROUTES = ["/api/replays/{rid}", "/api/replays/{rid}/frames/0", "/api/replays/{rid}/state?tick=10",
          "/api/replays/{rid}/overview", "/api/replays/{rid}/series", "/api/replays/{rid}/turns",
          "/api/replays/{rid}/pov?char=0&tick=10", "/replay/{rid}"]


def test_anonymous_clients_do_not_see_the_live_recording(recorded):
    _, client, rid, _ = recorded
    listed = client.get("/api/replays").get_json()["replays"]
    assert rid not in {r["id"] for r in listed}
    assert listed  # the shipped samples are still listed
    assert rid not in client.get("/replays").get_data(as_text=True)
    for route in ROUTES:
        reply = client.get(route.format(rid=rid))
        assert reply.status_code == 403, route
        if route.startswith("/api/"):
            assert reply.get_json()["error"]["code"] == "not_spectator", route


def test_the_spectator_token_reads_it(recorded):
    _, client, rid, _ = recorded
    token = {"X-Spectator-Token": SPECTATOR}
    assert client.get(f"/api/replays/{rid}", headers=token).status_code == 200
    assert client.get(f"/api/replays/{rid}/frames/0", headers=token).status_code == 200
    assert client.get(f"/api/replays/{rid}/overview", headers=token).status_code == 200
    assert client.get(f"/replay/{rid}?spectator_token={SPECTATOR}").status_code == 200


def test_other_replays_stay_public(recorded):
    _, client, rid, _ = recorded
    sample = next(r for r in client.get("/api/replays").get_json()["replays"] if r["id"] != rid)
    assert client.get(f"/api/replays/{sample['id']}").status_code == 200
    assert client.get(f"/api/replays/{sample['id']}/frames/0").status_code == 200


def test_no_answer_names_a_path_on_this_machine(recorded):
    _, client, _, folder = recorded
    for headers in ({}, {"X-Spectator-Token": SPECTATOR}):
        text = client.get("/api/replays", headers=headers).get_data(as_text=True)
        assert folder not in text and str(shipped("replays")) not in text
        page = client.get("/replays", headers=headers).get_data(as_text=True)
        assert folder not in page and str(shipped("replays")) not in page
