"""E2E (issue 38, item 4): scores lead to evidence. /evaluation?run=demo (the demo study's run,
its replay among the server's) links each configuration to its replay, a boss count to the start
of the fight that won it and the first unmet stage to the Why tab at the moment it became the
goal; following a link opens the viewer there. The replay's card on /replays shows each
configuration's score and the two tasks."""

from __future__ import annotations

import json
import urllib.request

import pytest
from playwright.sync_api import expect

from e2e.conftest import served
from tests.replay_viewer.demo_study import shared_demo

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def run_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("evidence")
    shared_demo(tmp_path_factory, folder / "demo")
    with served({"SEED": 3, "WORLD_SIZE": 48, "SPEED": 5, "REPLAY_DIRS": [str(folder)],
                 "RUNS_DIR": str(folder)}, clock=False) as server:
        yield server


def results(server) -> dict:
    with urllib.request.urlopen(server["url"] + "/api/evaluation?run=demo") as resp:
        return json.loads(resp.read())


def test_a_boss_count_opens_the_replay_at_the_fight_that_won_it(page, run_server, shot):
    rusher = next(r for r in results(run_server)["configurations"] if r["name"] == "rusher")
    fight = rusher["evidence"]["bosses"][0]["fight"]
    page.goto(run_server["url"] + "/evaluation?run=demo")
    link = page.locator(f"#eval-main a.evidence[href='/replay/demo?t={fight + 1}&focus={rusher['id']}']")
    expect(link).to_have_count(1, timeout=20_000)
    expect(page.locator("#eval-main a[href*='/live?follow']")).to_have_count(0)  # a stopped world
    shot(page, "evaluation-evidence")
    link.click()
    page.wait_for_url(f"**/replay/demo?t={fight + 1}&focus={rusher['id']}")
    page.wait_for_function(f"window.__replay && window.__replay.ready && window.__replay.tick === {fight + 1}",
                           timeout=30_000)
    assert page.evaluate("window.__replay.ui.focus") == rusher["id"]


def test_the_first_unmet_stage_opens_the_why_tab(page, run_server):
    rusher = next(r for r in results(run_server)["configurations"] if r["name"] == "rusher")
    page.goto(run_server["url"] + "/evaluation?run=demo")
    link = page.locator(f"#eval-curriculum a.evidence[href$='focus={rusher['id']}&tab=why']")
    expect(link).to_have_count(1, timeout=20_000)
    link.click()
    page.wait_for_function("window.__replay && window.__replay.ready", timeout=30_000)
    expect(page.locator("#tab-why")).to_be_visible()
    expect(page.locator(".why-title")).to_contain_text("rusher", timeout=20_000)
    expect(page.locator(".why-finding.repeated_entries")).to_have_count(1)


def test_the_replay_card_shows_scores_and_tasks(page, run_server, shot):
    body = results(run_server)
    best = min(body["configurations"], key=lambda r: r["rank"])
    page.goto(run_server["url"] + "/replays")
    card = page.locator(".replay-card[data-replay='demo']")
    expect(card.locator(".outcomes tbody tr")).to_have_count(len(body["configurations"]))
    first = card.locator(".outcomes tbody tr").first
    expect(first).to_have_attribute("data-config", best["name"])
    expect(first).to_contain_text(best["score_shown"])
    expect(card.locator(".outcomes thead")).to_contain_text("outfit")
    expect(card.locator(".outcomes thead")).to_contain_text("hero")
    shot(page, "replay-card-outcomes")
