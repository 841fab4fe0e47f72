"""The server's /evaluation page and /api/evaluation: the live world's assessment (fed by every
tick's events), a finished run's results.json by name, and the refusals for bad run names."""

from __future__ import annotations

import json

import pytest
from asiworld.server import services


@pytest.fixture
def app(apps, tmp_path):
    runs = tmp_path / "runs"
    (runs / "exp" / "E1").mkdir(parents=True)
    (runs / "exp" / "E1" / "results.json").write_text(
        json.dumps({"schema": "asiworld-evaluation/1", "tick": 5, "configurations": []})
    )
    (runs / "broken").mkdir()
    (runs / "broken" / "results.json").write_text("{not json")
    return apps.create(
        {"AGENTS": ["rusher", "builder"], "WORLD_SIZE": 64, "RUNS_DIR": str(runs), "TESTING": True}
    )


def test_the_evaluation_page_draws_from_the_live_endpoint_and_links_characters_to_live(app):
    page = app.test_client().get("/evaluation")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'data-results-url="/api/evaluation"' in html
    assert 'data-character-url="/live?follow={id}"' in html
    assert 'data-live="1"' in html and "evaluation.js" in html


def test_the_live_assessment_follows_every_tick_of_the_world(app):
    services(app).runner.step(90)
    body = app.test_client().get("/api/evaluation").get_json()
    assert body["schema"] == "asiworld-evaluation/1"
    assert body["meta"]["live"] is True and body["meta"]["ticks"] == 90
    assert 0 < body["tick"] <= 90  # the tick of the last event it saw
    labels = sorted(c["label"] for c in body["configurations"])
    assert labels == ["builder", "rusher"]
    accepted = sum(sum(c["actions"].values()) for c in body["configurations"])
    assert accepted > 0  # the agents' actions reached the assessment through the on_tick hook


def test_a_finished_run_is_shown_by_name_without_live_refresh(app):
    client = app.test_client()
    page = client.get("/evaluation?run=exp/E1").get_data(as_text=True)
    assert "/api/evaluation?run=exp" in page and 'data-live="0"' in page
    body = client.get("/api/evaluation?run=exp/E1").get_json()
    assert body["tick"] == 5


@pytest.mark.parametrize(
    ("name", "status", "code"),
    [
        ("../secrets", 400, "bad_run_name"),
        ("exp/E1/..", 400, "bad_run_name"),
        ("/etc", 400, "bad_run_name"),
        ("missing", 404, "run_not_found"),
        ("broken", 500, "bad_results_json"),
    ],
)
def test_bad_or_missing_run_names_are_refused_with_a_code(app, name, status, code):
    reply = app.test_client().get("/api/evaluation", query_string={"run": name})
    assert reply.status_code == status
    assert reply.get_json()["error"]["code"] == code


def test_without_a_runs_folder_a_run_name_is_a_clear_404(apps):
    app = apps.create({"WORLD_SIZE": 64, "TESTING": True})
    reply = app.test_client().get("/api/evaluation?run=exp")
    assert reply.status_code == 404
    assert reply.get_json()["error"]["code"] == "no_runs_folder"


def test_the_live_assessment_needs_the_spectator_token_when_one_is_set(apps):
    app = apps.create({"WORLD_SIZE": 64, "TESTING": True, "SPECTATOR_TOKEN": "s3cret"})
    client = app.test_client()
    assert client.get("/api/evaluation").status_code == 403
    assert client.get("/api/evaluation", headers={"X-Spectator-Token": "s3cret"}).status_code == 200


def test_the_page_hands_the_script_the_evaluations_own_lists(app, monkeypatch):
    """Stages, categories and levels come from achievements.py and measures.py: a stage added
    there is on the page (the script has no copy)."""
    import html as markup
    import json
    import re

    from asiworld.evaluation import achievements, measures

    STAGE_NAMES_BEFORE = achievements.STAGE_NAMES
    monkeypatch.setattr(achievements, "STAGE_NAMES", (*achievements.STAGE_NAMES, "Legend"))
    page = app.test_client().get("/evaluation").get_data(as_text=True)
    raw = re.search(r"data-definitions='([^']*)'", page).group(1)
    lists = json.loads(markup.unescape(raw))
    assert lists["stages"][-1] == "Legend" and lists["stages"][:-1] == list(STAGE_NAMES_BEFORE)
    assert lists["categories"] == list(measures.CATEGORIES)
    assert [level["level"] for level in lists["levels"]] == list(measures.LEVELS)


def test_the_evaluations_categories_are_the_engines():
    from asiworld.engine.actions import CATEGORIES as ENGINE
    from asiworld.evaluation.measures import CATEGORIES

    assert CATEGORIES == ENGINE
