"""E2E: a study's replay carries its model turns. In Chromium, the timeline marks them for each
language-model configuration (and for no built-in one); clicking a mark shows what the model was
shown, what it answered and what the world did; the page's link opens that turn again; compare
mode puts two configurations' turns side by side."""

from __future__ import annotations

import json
import urllib.request

from asiworld.study.demo import BUILTINS, MODEL_SEATS
from playwright.sync_api import expect


def api(server, path: str) -> dict:
    with urllib.request.urlopen(server["url"] + path) as resp:
        return json.loads(resp.read())


def open_viewer(page, server, query: str = ""):
    page.goto(f"{server['url']}/replay/demo{query}")
    page.wait_for_function("window.__replay && window.__replay.ready", timeout=20_000)
    page.wait_for_function("Object.keys(window.__replay.timeline.turns).length > 0",
                           timeout=20_000)


def click_turn(page, char: int, turn: int) -> None:
    point = page.evaluate(f"window.__replay.timeline.turnPoint({char}, {turn})")
    page.locator("#timeline").click(position={"x": point["x"], "y": point["y"]})


def test_model_turns_are_marked_shown_linked_and_compared(page, study_server, shot):
    meta = api(study_server, "/api/replays/demo")
    ids = {c["name"]: c["id"] for c in meta["characters"]}
    marked = api(study_server, "/api/replays/demo/turns")["configurations"]
    assert sorted(c["config"] for c in marked) == sorted(MODEL_SEATS)

    open_viewer(page, study_server)
    on_timeline = page.evaluate("Object.keys(window.__replay.timeline.turns).map(Number)")
    assert sorted(on_timeline) == sorted(ids[name] for name in MODEL_SEATS)
    assert not set(on_timeline) & {ids[name] for name in BUILTINS}

    char = ids["forager-a"]
    click_turn(page, char, 2)
    detail = page.locator("#tab-turns .turn-detail").first
    expect(detail).to_have_attribute("data-turn", f"{char}.2")
    expect(detail).to_contain_text("What it was shown")
    expect(detail.locator(".turn-prompt")).to_contain_text("## Now")
    expect(detail.locator(".turn-call").first).to_be_visible()
    expect(detail.locator(".turn-answer").first).to_contain_text("→")
    full = api(study_server, f"/api/replays/demo/turns/{char}/2")
    assert full["tool_calls"], full
    expect(detail.locator(".turn-call").first).to_contain_text(full["tool_calls"][0]["name"])
    assert page.evaluate("window.__replay.ui.focus") == char
    page.wait_for_function(f"window.__replay.ui.tick === {full['tick_sent']}")
    shot(page, "model-turn")

    page.wait_for_function("location.search.includes('turn=')")
    link = page.evaluate("location.pathname + location.search")
    assert f"turn={char}.2" in link
    again = page.context.new_page()
    again.goto(study_server["url"] + link)
    expect(again.locator("#tab-turns .turn-detail").first).to_have_attribute(
        "data-turn", f"{char}.2", timeout=20_000)
    again.close()

    other = ids["programmer"]
    page.select_option("#compare", str(other))
    panes = page.locator("#tab-turns .turn-panes.side-by-side .turn-detail")
    expect(panes).to_have_count(2)
    theirs = next(c["markers"] for c in marked if c["char"] == other)
    same_clock = [m["turn"] for m in theirs if m["tick_sent"] <= full["tick_sent"]][-1]
    expect(panes.nth(1)).to_have_attribute("data-turn", f"{other}.{same_clock}")
    shot(page, "model-turns-compared")
