"""E2E (issue 34, phones and 4K): /play and /live at 390×844 (a phone: touch), 1440×900 and
3840×2160 (a 4K screen at a device scale of 1). The named panels never overlap, nothing but the
map's own overlays covers the map (the on-screen controls and the HUD get rows of their own),
the bars and the clock are always in view, and at 4K the text is drawn twice as large."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from e2e.conftest import browser_page, served

pytestmark = pytest.mark.e2e

SIZES = {"phone": (390, 844), "laptop": (1440, 900), "4k": (3840, 2160)}


def box(page, selector: str) -> dict | None:
    """The element's box on screen, None when it is not shown."""
    return page.evaluate("""(sel) => {
      const el = document.querySelector(sel);
      if (!el) return null;
      const r = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      if (r.width === 0 || r.height === 0 || style.visibility === 'hidden' || style.display === 'none') return null;
      return {x: r.left, y: r.top, w: r.width, h: r.height};
    }""", selector)


def overlap(a: dict, b: dict) -> bool:
    return a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"] and \
        a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"]


def inside_viewport(page, b: dict) -> bool:
    w, h = page.viewport_size["width"], page.viewport_size["height"]
    return b["x"] >= 0 and b["y"] >= 0 and b["x"] + b["w"] <= w + 1 and b["y"] + b["h"] <= h + 1


def none_overlap(page, named: dict[str, dict]) -> None:
    names = sorted(named)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not overlap(named[a], named[b]), f"{a} {named[a]} overlaps {b} {named[b]}"


@pytest.fixture(scope="module")
def world():
    with served({"SEED": 7, "SPEED": 5, "AGENTS": ["forager"]}) as server:
        yield server


@pytest.fixture(params=list(SIZES))
def sized(request, browser):
    width, height = SIZES[request.param]
    phone = request.param == "phone"
    with browser_page(browser, width, height, device_scale_factor=2 if phone else 1,
                      has_touch=phone, is_mobile=phone) as page:
        yield request.param, page


def test_play_keeps_the_map_free_and_the_bars_and_clock_in_view(world, sized, shot):
    size, page = sized
    page.goto(world["url"] + "/play")
    page.fill("#name", f"layout-{size}")
    page.click("#join-form button[type=submit]")
    page.wait_for_function("window.__asiworld && window.__asiworld.view.ready", timeout=15000)
    clock = "#hud-clock" if size == "phone" else "#clock"
    expect(page.locator(clock)).to_contain_text("Day 1")
    bars = "#hud-measures .bar-health" if size == "phone" else "#me-measures .bar-health"
    named = {name: box(page, sel) for name, sel in {
        "area bar": "#area-bar", "legend": ".legend-toggle", "clock": clock, "bars": bars,
        "controls": "#touch-pad", "hud": "#hud"}.items()}
    for name in ("area bar", "legend", "clock", "bars"):
        assert named[name] is not None and inside_viewport(page, named[name]), (name, named)
    if size == "phone":
        assert named["controls"] is not None and named["hud"] is not None
        # the controls and the HUD sit below the map, not on it
        map_box = box(page, "#map")
        assert not overlap(map_box, named["controls"]) and not overlap(map_box, named["hud"])
        assert named["controls"]["y"] >= named["hud"]["y"] + named["hud"]["h"] - 1
        del named["bars"], named["clock"]  # inside the HUD
    else:
        assert named["controls"] is None and named["hud"] is None  # keys, and the side panel
        del named["controls"], named["hud"]
    none_overlap(page, named)
    if size == "4k":  # twice the 1440 px page's text (the name's line is about 17 px there)
        assert box(page, "#me-name")["h"] >= 30 and box(page, ".topbar")["h"] >= 90
    shot(page, f"play-layout-{size}")


def test_live_keeps_the_clock_in_view_and_the_follow_badge_off_the_area_bar(world, sized, shot):
    size, page = sized
    forager = world["runner"].call(
        lambda: next(c.id for c in world["runner"].world.characters() if c.name == "forager-1"))
    page.goto(world["url"] + f"/live?follow={forager}")
    expect(page.locator("#follow-badge")).to_be_visible(timeout=15000)
    expect(page.locator("#clock")).to_contain_text("Day 1")
    named = {name: box(page, sel) for name, sel in {
        "follow badge": "#follow-badge", "area bar": "#area-bar", "legend": ".legend-toggle",
        "clock": "#clock"}.items()}
    for name, b in named.items():
        assert b is not None and inside_viewport(page, b), (name, named)
    none_overlap(page, named)
    shot(page, f"live-layout-{size}")
