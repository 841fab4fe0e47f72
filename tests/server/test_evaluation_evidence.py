"""Scores to evidence (issue 38, item 4): /api/evaluation names the replay of the world it
assesses and, once that world has stopped, each configuration's moments in it; /replays shows a
run's scores and tasks on its card. Bad inputs tried: a run whose folder is not among the
replays, a results.json that is not JSON, one without configurations."""

from __future__ import annotations

import json
import shutil

import pytest
from asiworld.server import services

from tests.replay_viewer.demo_study import shared_demo
from tests.server.conftest import SMALL_WORLD


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    shared_demo(tmp_path_factory, folder / "demo")
    return folder


def app_for(apps, runs, **config):
    return apps.create({**SMALL_WORLD, "TESTING": True, "RUNS_DIR": str(runs),
                       "REPLAY_DIRS": [str(runs)], **config})


def events_of(runs, kind: str) -> list[dict]:
    lines = (runs / "demo" / "events.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["kind"] == kind]


def test_a_runs_rows_carry_their_replay_moments(apps, runs):
    body = app_for(apps, runs).test_client().get("/api/evaluation?run=demo").get_json()
    assert body["replay"] == {"id": "demo", "url": "/replay/demo", "settled": True}
    rows = {r["name"]: r for r in body["configurations"]}
    rusher = rows["rusher"]
    defeats = [e["tick"] for e in events_of(runs, "boss_defeated") if e["char"] == rusher["id"]]
    bosses = rusher["evidence"]["bosses"]
    assert [b["defeat"] for b in bosses] == defeats and defeats
    # the link goes to the fight's first blow, before the boss is gone
    assert all(b["fight"] is not None and b["fight"] < b["defeat"] for b in bosses)
    for row in rows.values():
        unmet = row["achievements"]["first_unmet"]
        assert row["evidence"]["goal"]["stage"] == unmet["stage"]
        assert row["evidence"]["goal"]["since"] is not None


def test_a_run_whose_replay_is_not_listed_has_no_replay_links(apps, runs, tmp_path):
    elsewhere = tmp_path / "runs"
    shutil.copytree(runs / "demo", elsewhere / "demo")
    client = apps.create({**SMALL_WORLD, "TESTING": True, "RUNS_DIR": str(elsewhere),
                         "REPLAY_DIRS": [str(tmp_path / "none")]}).test_client()
    body = client.get("/api/evaluation?run=demo").get_json()
    assert "replay" not in body and "evidence" not in body["configurations"][0]


def test_the_live_world_names_its_recording_and_links_once_it_stopped(apps, tmp_path):
    app = apps.create({**SMALL_WORLD, "TESTING": True, "RECORD_DIR": str(tmp_path),
                      "REPLAY_DIRS": [], "AGENTS": ["forager"]})
    runner = services(app).runner
    client = app.test_client()
    runner.step(121)  # two segments on disk
    [listed] = client.get("/api/replays").get_json()["replays"]
    body = client.get("/api/evaluation").get_json()
    assert body["replay"] == {"id": listed["id"], "url": f"/replay/{listed['id']}", "settled": True}
    assert "evidence" in body["configurations"][0]
    runner.start()  # a world that is ticking: the rows keep linking to /live
    try:
        body = client.get("/api/evaluation").get_json()
        assert body["replay"]["settled"] is False
        assert "evidence" not in body["configurations"][0]
    finally:
        runner.stop()
        app.extensions["asiworld_recording"].close()


def test_a_replay_card_shows_each_configurations_score_and_tasks(apps, runs):
    client = app_for(apps, runs).test_client()
    [row] = client.get("/api/replays").get_json()["replays"]
    results = json.loads((runs / "demo" / "results.json").read_text())
    expected = sorted(results["configurations"], key=lambda r: r["rank"])
    assert [(o["name"], o["score"], o["outfit"], o["hero"]) for o in row["outcomes"]] == [
        (r["name"], r["score_shown"], r["measures"]["outfit"], r["measures"]["hero"])
        for r in expected]
    page = client.get("/replays").get_data(as_text=True)
    assert 'class="outcomes small"' in page
    assert f'<tr data-config="{expected[0]["name"]}">' in page


@pytest.mark.parametrize("bad", ["{not json", '{"configurations": "none"}', '[]'])
def test_a_damaged_results_file_leaves_the_card_without_scores(apps, runs, tmp_path, bad):
    folder = tmp_path / "runs"
    shutil.copytree(runs / "demo", folder / "demo")
    (folder / "demo" / "results.json").write_text(bad)
    client = apps.create({**SMALL_WORLD, "TESTING": True, "REPLAY_DIRS": [str(folder)]}).test_client()
    [row] = client.get("/api/replays").get_json()["replays"]
    assert row["outcomes"] is None and row["title"]  # still listed, just without scores
    assert 'class="outcomes small"' not in client.get("/replays").get_data(as_text=True)


def test_a_sample_replay_without_results_has_no_scores():
    from asiworld.replay.library import ReplayLibrary
    from asiworld.server.replay_library import DEFAULT_DIR

    with ReplayLibrary([DEFAULT_DIR]) as library:
        rows = library.listing()
    assert rows and all(r["outcomes"] is None for r in rows)
