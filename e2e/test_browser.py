"""The pages in a real browser: the live map draws and changes, following turns on fog, and
playing with the keyboard moves the character and fills the inventory; the event log tells of
hosted programs."""

from __future__ import annotations

import pytest

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
    page.wait_for_function(
        f"Number(document.getElementById('map').dataset.tick) >= {at_least}", timeout=15000
    )


def test_live_page_draws_a_non_blank_map_that_changes_over_time(live_server, page, shot):
    runner = live_server["runner"]
    walker = runner.add_character("walker", label="test")
    page.goto(live_server["url"] + "/live")
    wait_for_ticks(page)
    page.wait_for_timeout(300)
    before = page.evaluate(CANVAS_STATS)
    assert before["colours"] > 20 and before["dark"] < 0.5, before  # a real map, not a blank
    shot(page, "live-before")
    for direction in "eeee":
        runner.submit(walker, {"type": "move", "dir": direction})
        page.wait_for_timeout(150)
    page.wait_for_timeout(400)
    after = page.evaluate(CANVAS_STATS)
    shot(page, "live-after")
    assert after["hash"] != before["hash"]
    assert page.locator("#characters li", has_text="walker").count() == 1


def test_following_a_character_turns_on_fog(live_server, page, shot):
    runner = live_server["runner"]
    runner.add_character("scout", label="test")
    page.goto(live_server["url"] + "/live")
    wait_for_ticks(page)
    page.wait_for_timeout(300)
    open_map = page.evaluate(CANVAS_STATS)
    page.locator("#characters li", has_text="scout").dispatch_event("pointerdown")
    page.wait_for_function("window.__asiworld.fog !== null", timeout=10000)
    page.wait_for_timeout(300)
    fogged = page.evaluate(CANVAS_STATS)
    shot(page, "live-follow-fog")
    assert fogged["hash"] != open_map["hash"]
    assert fogged["dark"] > open_map["dark"] + 0.2, (open_map, fogged)  # unseen is black
    assert page.locator("#follow-badge").is_visible()


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
    page.wait_for_function("window.__asiworld.view.ready", timeout=10000)
    start = page.evaluate("[window.__asiworld.view.self.x, window.__asiworld.view.self.y]")
    page.keyboard.press("s")
    page.wait_for_function(f"window.__asiworld.view.self.y === {start[1] + 1}", timeout=5000)
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


def test_a_dungeon_opening_keeps_the_live_maps_terrain_cache(live_server, page):
    """WorldState (the live pages' frame state): an area that arrives whole under a new id (a
    dungeon instance opening) leaves `version`, the renderers' cache key, alone; one that replaces
    an area already held bumps it."""
    page.goto(live_server["url"] + "/live")
    result = page.evaluate(
        """async () => {
      const { WorldState } = await import("/static/js/frames.js");
      const s = new WorldState();
      const tiles = (n, code) => btoa(String.fromCharCode(...new Array(n).fill(code)));
      s.applyFrame({ tick: 1, keyframe: { width: 2, height: 2, legend: { 1: "grass" },
        areas: { 0: { kind: "surface", w: 2, h: 2, tiles: tiles(4, 1), floor: tiles(4, 1) } } } });
      const before = s.version;
      s.applyFrame({ tick: 2, deltas: { areas: { 7: { kind: "dungeon", w: 3, h: 1,
        tiles: tiles(3, 5), floor: tiles(3, 5) } } } });
      const afterDungeon = s.version;
      s.applyFrame({ tick: 3, deltas: { areas: { 7: { kind: "dungeon", w: 3, h: 1,
        tiles: tiles(3, 6), floor: tiles(3, 6) } } } });
      return { before, afterDungeon, afterReplace: s.version,
               dungeon: Array.from(s.areas["7"].tiles) };
    }"""
    )
    assert result["afterDungeon"] == result["before"]
    assert result["afterReplace"] == result["before"] + 1
    assert result["dungeon"] == [6, 6, 6]
