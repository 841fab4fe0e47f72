"""E2E (issue 21): "Link to this moment" carries the camera and the zoom as well as the tick,
focus, point of view and speed, and copies itself with feedback; opened, the link shows the
same part of the map at the same zoom."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from e2e.conftest import RID, browser_page

pytestmark = pytest.mark.e2e


def test_the_link_copies_itself_with_camera_and_zoom_and_opens_on_them(replay_server, browser):
    with browser_page(browser, permissions=["clipboard-read", "clipboard-write"]) as page:
        page.goto(f"{replay_server['url']}/replay/{RID}?t=700&speed=4")
        page.wait_for_function("window.__replay && window.__replay.ready", timeout=20_000)
        # Pan and zoom as a user would: drag the map, then the wheel.
        box = page.locator("#map").bounding_box()
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(cx, cy)
        page.mouse.down()
        page.mouse.move(cx - 160, cy - 90, steps=8)
        page.mouse.up()
        page.mouse.wheel(0, -240)
        page.wait_for_function("window.__replay.ui.tick === 700")
        page.click("#share")
        expect(page.locator("#flash")).to_contain_text("Link copied")
        expect(page.locator("#share")).to_have_text("Copied ✓")
        link = page.evaluate("navigator.clipboard.readText()")
        assert link.startswith(replay_server["url"] + f"/replay/{RID}?")
        for key in ("t=700", "speed=4", "x=", "y=", "z="):
            assert key in link, (key, link)
        shown = page.evaluate("({x: window.__replay.camera.x, y: window.__replay.camera.y, z: window.__replay.camera.zoom})")
        assert shown["z"] != 1.25  # the wheel zoomed in

        page.goto(link)
        page.wait_for_function("window.__replay && window.__replay.ready", timeout=20_000)
        opened = page.evaluate("({x: window.__replay.camera.x, y: window.__replay.camera.y, z: window.__replay.camera.zoom})")
        assert abs(opened["x"] - shown["x"]) <= 0.05 and abs(opened["y"] - shown["y"]) <= 0.05
        assert abs(opened["z"] - shown["z"]) <= 0.01
        assert page.evaluate("window.__replay.state.tick") == 700


def test_the_jump_list_counts_each_kind_and_offers_no_empty_one(replay_server, page):
    import json
    import urllib.request

    with urllib.request.urlopen(f"{replay_server['url']}/api/replays/{RID}/overview") as resp:
        markers = json.loads(resp.read())["markers"]
    counts: dict[str, int] = {}
    for m in markers:
        counts[m["kind"]] = counts.get(m["kind"], 0) + 1
    page.goto(f"{replay_server['url']}/replay/{RID}")
    page.wait_for_function("window.__replay && window.__replay.ui.overview", timeout=20_000)
    options = page.eval_on_selector_all(
        "#jump-kind option", "os => os.map((o) => ({kind: o.value, text: o.textContent, off: o.disabled}))"
    )
    assert any(o["off"] for o in options), "the sample lacks some kinds (no dungeon entry yet)"
    for o in options:
        n = counts.get(o["kind"], 0)
        assert o["text"].endswith(f"({n})"), o
        assert o["off"] == (n == 0), o
