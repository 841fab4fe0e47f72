"""E2E (issue 38, items 2 and 3): the Why tab and the timeline that scales. On the demo study's
replay (25 minutes: the rusher enters the Inner Temple three times and is knocked down each
time), in Chromium at 1280×800: the Why tab of the focused rusher names that stall, and its
button seeks the viewer to the stall's first entry; with nobody focused it lists everyone to
pick; the timeline's rows grow with the window and the focused row stays in view; boss fights
have start and end markers to jump to; an axe-core scan finds no serious violation."""

from __future__ import annotations

import json
import urllib.request

import pytest
from playwright.sync_api import expect

from e2e.conftest import browser_page, served
from e2e.test_pages_accessibility import AXE, SCAN
from tests.replay_viewer.demo_study import shared_demo

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory):
    """The demo study's replay (long enough for the rusher's stall) served as `demo`."""
    folder = tmp_path_factory.mktemp("why")
    shared_demo(tmp_path_factory, folder / "demo")
    with served({"SEED": 3, "WORLD_SIZE": 48, "SPEED": 5, "REPLAY_DIRS": [str(folder)]},
                clock=False) as server:
        yield server


def api(server, path: str) -> dict:
    with urllib.request.urlopen(server["url"] + path) as resp:
        return json.loads(resp.read())


def rusher_of(server) -> dict:
    return next(c for c in api(server, "/api/replays/demo/why")["characters"] if c["name"] == "rusher")


def open_viewer(page, server, query: str = "") -> None:
    page.goto(f"{server['url']}/replay/demo{query}")
    page.wait_for_function("window.__replay && window.__replay.ready && window.__replay.ui.overview",
                           timeout=30_000)


def test_the_why_tab_names_the_rushers_stall_and_seeks_to_it(page, demo_server, shot):
    rusher = rusher_of(demo_server)
    stall = next(f for f in rusher["findings"] if f["kind"] == "repeated_entries")
    open_viewer(page, demo_server, f"?focus={rusher['char']}")
    page.click("#tab-why-button")
    finding = page.locator(".why-finding.repeated_entries")
    expect(finding).to_have_count(1, timeout=20_000)
    expect(finding).to_contain_text("entered Tier 2 (Inner Temple)")
    expect(finding).to_contain_text("without a clear")
    expect(page.locator(".why-tiers th[data-tier='2']")).to_have_text("Inner Temple")
    shot(page, "why-tab-rusher")
    assert page.evaluate("window.__replay.tick") != stall["tick"] + 1
    finding.locator(".why-seek").click()
    # the frame after the entry's tick: the rusher is inside the Inner Temple there
    page.wait_for_function(f"window.__replay.ready && window.__replay.tick === {stall['tick'] + 1}",
                           timeout=20_000)
    assert page.evaluate("window.__replay.ui.focus") == rusher["char"]
    expect(page.locator("#tick-readout")).to_contain_text(f"tick {stall['tick'] + 1}")
    shot(page, "why-tab-after-seek")


def test_with_nobody_focused_the_why_tab_lists_everyone_to_pick(page, demo_server):
    rusher = rusher_of(demo_server)
    open_viewer(page, demo_server)
    page.keyboard.press("w")  # the Why tab's key
    picks = page.locator(".why-pick")
    expect(picks).to_have_count(9, timeout=20_000)
    page.click(f".why-pick[data-char='{rusher['char']}']")
    page.wait_for_function(f"window.__replay.ui.focus === {rusher['char']}")
    expect(page.locator(".why-title")).to_contain_text("rusher")


ROW = """() => {
  const t = window.__replay.timeline, box = document.querySelector('.timeline-box');
  const row = t.rowBox(window.__replay.ui.focus);
  const top = t.canvas.offsetTop + row.top;
  // below the ruler, which stays at the top of what shows
  return {rowH: t.rowH, scroll: box.scrollHeight > box.clientHeight, ruler: t.rulerTop(),
          overflow: getComputedStyle(box).overflowY, scrollTop: box.scrollTop,
          inView: top >= box.scrollTop + 18 && top + row.height <= box.scrollTop + box.clientHeight};
}"""


def test_at_1280x800_the_timeline_scrolls_and_keeps_the_focused_row_in_view(page, demo_server):
    open_viewer(page, demo_server)
    chars = page.evaluate("window.__replay.timeline.characters.map((c) => c.id)")
    for char in (chars[-1], chars[0], chars[-1]):  # down, up and down again
        page.evaluate(f"window.__replay.focus({char})")
        page.wait_for_function(f"(() => {{ const f = {ROW}; return f().inView; }})()", timeout=10_000)
    m = page.evaluate(ROW)
    # every row shows, or the box scrolls to it, the ruler kept at the top of what shows
    assert m["overflow"] == "auto" and m["rowH"] >= 15
    assert not m["scroll"] or m["ruler"] == m["scrollTop"] > 0


@pytest.mark.parametrize("size", [(1920, 1080), (3840, 2160)], ids=["1920x1080", "3840x2160"])
def test_the_rows_grow_with_the_window(browser, demo_server, size):
    width, height = size
    with browser_page(browser, width, height, device_scale_factor=2 if width > 2000 else 1) as page:
        open_viewer(page, demo_server)
        row = page.evaluate("window.__replay.timeline.rowH")
        assert row >= height / 60, f"rows of {row} px at {width}x{height}"
        box = page.evaluate("(() => { const b = document.querySelector('.timeline-box');"
                            " return b.scrollHeight <= b.clientHeight + 1; })()")
        assert box, "at this height every row shows without scrolling"


def test_boss_fights_have_start_and_end_markers_to_jump_to(page, demo_server):
    open_viewer(page, demo_server)
    marks = page.evaluate("window.__replay.ui.overview.markers")
    starts = [m for m in marks if m["kind"] == "boss_fight"]
    defeat = next(m for m in marks if m["kind"] == "boss_defeat")
    start = max(m["tick"] for m in starts if m["char"] == defeat["char"] and m["tick"] < defeat["tick"])
    expect(page.locator("#jump-kind option[value='boss_fight']")).not_to_be_disabled()
    page.evaluate(f"window.__replay.seek({start - 30})")
    page.wait_for_function(f"window.__replay.ready && window.__replay.tick === {start - 30}")
    page.select_option("#jump-kind", "boss_fight")
    page.click("#jump-next")
    # the fight's first blow, before the boss is gone
    page.wait_for_function(f"window.__replay.ready && window.__replay.tick === {start + 1}", timeout=20_000)
    assert start + 1 <= defeat["tick"]


def test_the_why_tab_has_no_serious_accessibility_violation(page, demo_server):
    rusher = rusher_of(demo_server)
    open_viewer(page, demo_server, f"?focus={rusher['char']}&tab=why")
    expect(page.locator(".why-finding").first).to_be_visible(timeout=20_000)
    page.add_script_tag(path=str(AXE))
    assert page.evaluate(SCAN) == []
