"""E2E: the replay viewer in Debian Chromium against an in-process server reading the sample
replays in replays/: open, scrub, play at speed, jump to the next knockdown, switch point of
view (the pixels change), deep links, and fork into the live world."""

from __future__ import annotations

import json
import time
import urllib.request

from playwright.sync_api import expect

from e2e.conftest import RID


def api(server, path: str) -> dict:
    with urllib.request.urlopen(server["url"] + path) as resp:
        return json.loads(resp.read())


def open_viewer(page, server, query: str = ""):
    page.goto(f"{server['url']}/replay/{RID}{query}")
    page.wait_for_function("window.__replay && window.__replay.ready", timeout=20_000)


def wait_tick(page, tick: int) -> None:
    page.wait_for_function(
        f"window.__replay.ready && window.__replay.state.tick === {tick}", timeout=15_000
    )


def test_the_list_opens_a_replay_and_its_first_frame_shows(page, replay_server, shot):
    """It opens on the first frame with characters on the map, not on an empty tick 0."""
    first_join = min(c["tick"] for c in api(replay_server, f"/api/replays/{RID}")["characters"])
    page.goto(replay_server["url"] + "/replays")
    page.click(f"a[data-replay='{RID}']")
    page.wait_for_function("window.__replay && window.__replay.ready", timeout=20_000)
    assert page.evaluate("window.__replay.state.tick") == first_join + 1
    assert page.evaluate("window.__replay.state.characters().length") > 0
    assert page.locator("#loading").is_hidden()
    shot(page, "replay-opened")


def test_scrubbing_the_timeline_moves_the_clock(page, replay_server):
    open_viewer(page, replay_server)
    box = page.locator("#timeline").bounding_box()
    label_w = 120
    x = box["x"] + label_w + (box["width"] - label_w - 8) / 2
    page.mouse.click(x, box["y"] + 30)
    tick = page.evaluate("window.__replay.ui.tick")
    assert 800 <= tick <= 1000  # half of 1800 ticks
    wait_tick(page, tick)


def test_playing_at_high_speed_advances_many_ticks(page, replay_server):
    open_viewer(page, replay_server, "?t=100")
    page.select_option("#speed", "32")
    page.keyboard.press("Space")
    # 32x is 320 ticks a second: 150 ticks take half a second; at 1x they would take 2.5 min
    page.wait_for_function("window.__replay.state.tick > 250", timeout=15_000)
    page.keyboard.press("Space")
    assert page.evaluate("window.__replay.ui.speed") == 32


def test_jumping_to_the_next_knockdown_lands_on_it_and_focuses_the_character(page, replay_server):
    downs = [
        m
        for m in api(replay_server, f"/api/replays/{RID}/overview")["markers"]
        if m["kind"] == "knockdown"
    ]
    assert downs, "the sample has a knockdown"
    open_viewer(page, replay_server)
    page.wait_for_function("window.__replay.ui.overview !== null")
    page.keyboard.press("k")
    wait_tick(page, downs[0]["tick"] + 1)  # the frame after the step that knocked it down
    assert page.evaluate("window.__replay.ui.focus") == downs[0]["char"]
    assert page.evaluate(f"window.__replay.state.entities[{downs[0]['char']}].down") is True


def test_switching_to_a_characters_point_of_view_changes_the_pixels(page, replay_server, shot):
    open_viewer(page, replay_server, "?t=600&focus=56")
    # data-tick and data-pov are set by the draw loop right after it drew the map
    page.wait_for_function("document.getElementById('map').dataset.tick === '600'")
    before = page.locator("#map").screenshot()
    page.select_option("#pov", "56")
    page.wait_for_function(
        "document.getElementById('map').dataset.pov === '56@600'", timeout=30_000
    )
    after = page.locator("#map").screenshot()
    assert before != after
    page.wait_for_function(  # the panels follow within 200 ms
        "document.getElementById('pov-badge').textContent.includes('point of view')"
    )
    shot(page, "replay-pov")


def test_a_deep_link_restores_tick_focus_point_of_view_and_speed(page, replay_server):
    open_viewer(page, replay_server, "?t=700&focus=57&pov=57&speed=4&compare=55")
    wait_tick(page, 700)
    ui = page.evaluate(
        "({f: window.__replay.ui.focus, p: window.__replay.ui.pov,"
        " s: window.__replay.ui.speed, c: window.__replay.ui.compare})"
    )
    assert ui == {"f": 57, "p": 57, "s": 4, "c": 55}
    assert page.locator("#speed").input_value() == "4"
    page.keyboard.press("ArrowRight")
    wait_tick(page, 701)
    page.wait_for_function("location.search.includes('t=701')")
    link = page.evaluate("location.href")
    page.goto(link)
    page.wait_for_function("window.__replay && window.__replay.ready", timeout=20_000)
    assert page.evaluate("window.__replay.state.tick") == 701
    assert page.evaluate("window.__replay.ui.focus") == 57


def test_forking_takes_over_a_character_in_a_live_world(page, replay_server, shot):
    open_viewer(page, replay_server, "?t=900&focus=56")
    page.keyboard.press("f")
    page.select_option("#fork-char", "56")
    page.click("#fork-go")
    page.wait_for_url("**/play", timeout=30_000)
    page.wait_for_function(
        "document.getElementById('join').classList.contains('hidden')", timeout=15_000
    )
    world = replay_server["runner"].world
    assert world.tick >= 900
    recorded = {c["id"]: c["name"] for c in api(replay_server, f"/api/replays/{RID}")["characters"]}
    assert world.entities[56].name == recorded[56]
    live = replay_server["app"].extensions["asiworld"].live
    token = page.evaluate("localStorage.getItem('asiworld.token')")
    assert live.seats[token].char == 56
    shot(page, "replay-fork-play")


def test_a_new_dungeon_area_keeps_the_surfaces_terrain_cache(page, replay_server):
    """WorldState with the viewer's renderers' cache test: an area that arrives whole (a dungeon instance opening, or brought in by a
    seek's keyframe) only resets the terrain cache of a renderer showing that area; replacing
    the area a renderer shows does reset it, and the new area's tiles are there either way."""
    open_viewer(page, replay_server)
    result = page.evaluate(
        """async () => {
      const { WorldState } = await import("/static/js/frames.js");
      const s = new WorldState((id) => id === "0");
      const tiles = (n, code) => btoa(String.fromCharCode(...new Array(n).fill(code)));
      s.applyFrame({ tick: 1, keyframe: { width: 2, height: 2, legend: { 1: "grass" },
        areas: { 0: { kind: "surface", w: 2, h: 2, tiles: tiles(4, 1), floor: tiles(4, 1) } } } });
      const before = s.version;
      s.applyFrame({ tick: 2, deltas: { areas: { 7: { kind: "dungeon", w: 3, h: 1,
        tiles: tiles(3, 5), floor: tiles(3, 5) } } } });
      const afterDungeon = s.version;
      const dungeon = Array.from(s.areas["7"].tiles);
      s.applyFrame({ tick: 3, deltas: { areas_removed: ["7"] } });
      const afterRemoval = s.version;
      s.applyFrame({ tick: 4, deltas: { areas: { 0: { kind: "surface", w: 2, h: 2,
        tiles: tiles(4, 2), floor: tiles(4, 2) } } } });
      return { before, afterDungeon, afterRemoval, afterSurface: s.version,
        dungeon, surface: Array.from(s.areas["0"].tiles), dungeonGone: !("7" in s.areas), tick: s.tick };
    }"""
    )
    assert result["afterDungeon"] == result["before"]  # the surface's cache stays
    assert result["dungeon"] == [5, 5, 5]
    assert result["afterRemoval"] == result["before"] and result["dungeonGone"]
    assert result["afterSurface"] == result["before"] + 1  # the cached area was replaced
    assert result["surface"] == [2, 2, 2, 2] and result["tick"] == 4



def test_a_rate_limited_request_is_waited_out_and_the_replay_still_opens(page, replay_server):
    """The server's per-address limit (429, Retry-After: 1) reached by a busy tab: the viewer
    waits as it is told and asks again. Here, as with an empty token bucket, a request sooner
    than that after a refusal is refused again: a viewer that retried at once (it did) never
    got its overview (seen in the layout tests: 30 s without it)."""
    refused: list[float] = []

    def bucket(route):
        now = time.monotonic()
        if not refused or now - refused[-1] < 0.9:
            refused.append(now)
            route.fulfill(status=429, headers={"Retry-After": "1"}, content_type="application/json",
                          body=json.dumps({"error": {"code": "rate_limited", "message": "too many requests"}}))
        else:
            route.continue_()

    page.route("**/overview", bucket)
    page.goto(f"{replay_server['url']}/replay/{RID}")
    page.wait_for_function("window.__replay && window.__replay.ready && window.__replay.ui.overview",
                           timeout=20_000)
    assert 1 <= len(refused) <= 3, f"{len(refused)} refusals: the viewer did not wait as told"


def test_the_map_stays_where_it_is_when_the_timelines_legend_arrives(page, replay_server):
    """The timeline's legend is shown once the overview has come; until then its place is kept,
    so the map does not move under a click. It used to appear below the timeline and shrink the
    map by a row (32 px), and a click on the map's Legend button as the overview came landed on
    the map instead (seen in a fresh-clone CI at load 8)."""
    held = []
    page.route("**/overview", lambda route: held.append(route))  # let through below
    with page.expect_request("**/overview"):
        open_viewer(page, replay_server)
    legend_button = page.locator(".map-legend .legend-toggle")
    before = (page.locator("#map").bounding_box(), legend_button.bounding_box())
    assert page.locator("#legend-phases").is_hidden()
    assert held, "the viewer asks for its overview"
    for route in held:
        route.continue_()
    expect(page.locator("#legend-phases")).to_be_visible()
    page.wait_for_function("window.__replay.ui.overview")
    assert (page.locator("#map").bounding_box(), legend_button.bounding_box()) == before
