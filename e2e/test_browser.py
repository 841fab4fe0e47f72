"""The pages in a real browser: the live map draws and changes, following turns on fog, and
playing with the keyboard moves the character and fills the inventory; the event log tells of
hosted programs."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

# Reads the map canvas back: a digest to compare frames, and how much of it is near-black.
CANVAS_STATS = """() => {
  const c = document.getElementById('map');
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let dark = 0, hash = 0, colours = new Set();
  for (let i = 0; i < d.length; i += 4 * 7) {
    if (d[i] + d[i + 1] + d[i + 2] < 30) dark++;
    hash = (hash * 31 + d[i] * 3 + d[i + 1] * 5 + d[i + 2]) >>> 0;
    if (colours.size < 200) colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
  }
  return {dark: dark / (d.length / (4 * 7)), hash, colours: colours.size};
}"""


def wait_for_ticks(page, at_least: int = 1) -> None:
    """Until the map has been drawn for tick `at_least` or later (the draw loop sets
    data-tick right after drawing a frame)."""
    page.wait_for_function(
        f"Number(document.getElementById('map').dataset.tick) >= {at_least}", timeout=15000
    )


def drawn(page) -> None:
    """Returns once the page's draw loop has run again: the canvas shows what the page holds
    now (a fog or a frame that arrived after the last draw included)."""
    page.evaluate(
        "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )


def shows(page, cid: int, x: int, y: int, timeout: int = 15000) -> None:
    """Until the page's state has character `cid` at (x, y)."""
    page.wait_for_function(
        f"(() => {{ const e = window.__asiworld.state.entities[{cid}];"
        f" return !!e && e.x === {x} && e.y === {y}; }})()",
        timeout=timeout,
    )


def test_live_page_draws_a_non_blank_map_that_changes_over_time(live_server, page, shot):
    runner = live_server["runner"]
    walker = runner.add_character("walker", label="test")
    page.goto(live_server["url"] + "/live")
    wait_for_ticks(page)
    before = page.evaluate(CANVAS_STATS)
    assert before["colours"] > 20 and before["dark"] < 0.5, before  # a real map, not a blank
    shot(page, "live-before")
    for direction in "eeee":
        runner.submit(walker, {"type": "move", "dir": direction})
        tick = runner.step()  # applied now, on the world thread, before the next one is queued
    x, y = runner.call(lambda: (runner.world.entities[walker].x, runner.world.entities[walker].y))
    shows(page, walker, x, y)
    wait_for_ticks(page, tick)
    after = page.evaluate(CANVAS_STATS)
    shot(page, "live-after")
    assert after["hash"] != before["hash"]
    assert page.locator("#characters li", has_text="walker").count() == 1


def test_following_a_character_turns_on_fog(live_server, page, shot):
    runner = live_server["runner"]
    runner.add_character("scout", label="test")
    page.goto(live_server["url"] + "/live")
    wait_for_ticks(page)
    open_map = page.evaluate(CANVAS_STATS)
    page.locator("#characters li", has_text="scout").dispatch_event("pointerdown")
    page.wait_for_function("window.__asiworld && window.__asiworld.fog !== null", timeout=10000)
    drawn(page)
    fogged = page.evaluate(CANVAS_STATS)
    shot(page, "live-follow-fog")
    assert fogged["hash"] != open_map["hash"]
    assert fogged["dark"] > open_map["dark"] + 0.2, (open_map, fogged)  # unseen is black
    # The badge follows the fog by a frame or two: wait for it (Playwright retries), do not race it.
    expect(page.locator("#follow-badge")).to_be_visible()


def tree_stand(runner, near: tuple[int, int]) -> tuple[int, int]:
    """The free tile west of the tree nearest to `near` (read from the world by the test)."""
    free = {"grass", "sand", "ground"}

    def find():
        world = runner.world
        area = world.areas[0]
        best = None
        for y in range(near[1] - 20, near[1] + 21):
            for x in range(near[0] - 20, near[0] + 21):
                if world.tile_name(area, x, y) != "tree":
                    continue
                if world.tile_name(area, x - 1, y) not in free:
                    continue
                d = abs(x - 1 - near[0]) + abs(y - near[1])
                if best is None or d < best[0]:
                    best = (d, x - 1, y)
        return best[1], best[2]

    return runner.call(find)


def test_play_keys_move_the_character_and_gathering_fills_the_inventory(live_server, page, shot):
    page.goto(live_server["url"] + "/play")
    page.fill("#name", "tester")
    page.click("#join-form button[type=submit]")
    page.wait_for_function("window.__asiworld && window.__asiworld.view.ready", timeout=10000)
    start = page.evaluate("[window.__asiworld.view.self.x, window.__asiworld.view.self.y]")
    page.keyboard.press("s")
    page.wait_for_function(f"window.__asiworld && window.__asiworld.view.self.y === {start[1] + 1}", timeout=5000)
    shot(page, "play-moved")

    x, y = tree_stand(live_server["runner"], (start[0], start[1] + 1))
    page.evaluate(f"window.__asiworld.act({{type: 'move_to', x: {x}, y: {y}}})")  # a map click
    page.wait_for_function(
        f"window.__asiworld.view.self.x === {x} && window.__asiworld.view.self.y === {y}",
        timeout=15000,
    )
    page.keyboard.press("d")  # face the tree (a tree blocks, so this only turns)
    page.keyboard.press("e")  # gather the faced tile
    page.wait_for_function(
        "document.getElementById('me-inventory').textContent.includes('wood')", timeout=10000
    )
    shot(page, "play-gathered")
    assert "empty" not in page.locator("#me-inventory").inner_text()


def test_the_live_event_log_tells_when_a_program_is_handed_over_and_ends(live_server, page, shot):
    runner = live_server["runner"]
    programs = live_server["app"].extensions["asiworld_agents"].programs
    coder = runner.add_character("coder", label="test")
    page.goto(live_server["url"] + "/live")
    wait_for_ticks(page)
    started = runner.call(lambda: programs.submit(coder, "pause", "wait(3)\n"))
    assert started["ok"], started
    log = page.locator("#events")
    log.get_by_text("coder handed over program “pause”").wait_for(timeout=15000)
    log.get_by_text("coder's program “pause” finished").wait_for(timeout=15000)
    shot(page, "live-program-events")


def test_a_second_keyframe_hands_over_the_tiles_that_changed(live_server, page):
    """WorldState: renderers keep their terrain cache across keyframes (a resync, a replay's far
    seek) and are handed the tiles that differ, including changes they had not drawn yet; only an
    area that changed size (or another legend) makes them redraw. It used to reset `version` to
    the same value on every keyframe, so a cached map kept showing the old tiles."""
    page.goto(live_server["url"] + "/live")
    result = page.evaluate(
        """async () => {
      const { WorldState } = await import("/static/js/frames.js");
      const s = new WorldState();
      const tiles = (codes) => btoa(String.fromCharCode(...codes));
      const key = (codes, w = 2) => ({ width: w, height: 2, legend: { 1: "grass", 2: "stump" },
        areas: { 0: { kind: "surface", w, h: 2, tiles: tiles(codes), floor: tiles(codes) } } });
      s.applyFrame({ tick: 1, keyframe: key([1, 1, 1, 1]) });
      s.takeChangedTiles();  // a renderer drew it
      const v1 = s.version;
      s.applyFrame({ tick: 2, deltas: { tiles: [[0, 0, 0, 2]] } });  // not drawn yet
      s.applyFrame({ tick: 9, keyframe: key([2, 1, 1, 2]) });
      const handed = s.takeChangedTiles();
      const v2 = s.version;
      s.applyFrame({ tick: 20, keyframe: key([1, 1, 1, 1, 1, 1], 3) });
      return { v1, v2, v3: s.version, handed };
    }"""
    )
    assert result["v2"] == result["v1"]  # the cache stays...
    assert [0, 0, 0, 2] in [[int(a), x, y, c] for a, x, y, c in result["handed"]]  # owed delta
    assert [0, 1, 1, 2] in [[int(a), x, y, c] for a, x, y, c in result["handed"]]  # keyframe diff
    assert result["v3"] == result["v2"] + 1  # ...unless the area changed size
