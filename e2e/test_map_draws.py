"""E2E: /live and /play draw their map again only when something it shows changed (a frame or an
observation, the camera, the canvas's size, the character followed, the player's facing). A page
left open on a still world draws nothing; one on a running world draws once a tick, not on every
animation frame (sixty a second kept a spectator's browser 40 % of a core busy)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e

# Counts the renderer's draws and the page's animation frames from now on.
COUNT = """() => {
  const r = window.__asiworld.renderer, draw = r.draw.bind(r);
  window.__draws = 0;
  window.__frames = 0;
  r.draw = (...args) => { window.__draws += 1; return draw(...args); };
  const frame = () => { window.__frames += 1; requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
}"""
FRAMES = 30  # animation frames: half a second at sixty a second


def draws_over_frames(page) -> int:
    """The draws made while the page shows FRAMES more animation frames."""
    before, start = page.evaluate("[window.__draws, window.__frames]")
    page.wait_for_function(f"window.__frames >= {start + FRAMES}")
    return page.evaluate("window.__draws") - before


def drawn_while_still(page, runner, shown: str) -> int:
    """The draws over FRAMES animation frames of a page on a paused world (the caller pauses it),
    once it shows the world's tick and any draw already due (the last frame, the captions) is
    made. `shown`: the page's state ("state" on /live, "view" on /play)."""
    tick = runner.call(lambda: runner.world.tick)
    page.wait_for_function(f"window.__asiworld.{shown}.tick === {tick}", timeout=15000)
    page.evaluate(COUNT)
    draws_over_frames(page)
    return draws_over_frames(page)


def test_live_draws_its_map_when_a_tick_or_the_camera_changes_it(live_server, page):
    runner = live_server["runner"]
    page.goto(live_server["url"] + "/live")
    page.wait_for_function("window.__asiworld && window.__asiworld.state.ready", timeout=15000)
    runner.pause()
    try:
        assert drawn_while_still(page, runner, "state") == 0, "a still world is drawn again"

        tick = runner.step()
        page.wait_for_function(f"window.__asiworld.state.tick === {tick} && window.__draws > 0",
                               timeout=15000)
        for change in (lambda: page.evaluate("window.__asiworld.renderer.panBy(40, 0)"),
                       lambda: page.set_viewport_size({"width": 1000, "height": 700})):
            before = page.evaluate("window.__draws")
            change()
            page.wait_for_function(f"window.__draws > {before}", timeout=15000)
    finally:
        runner.resume()
    # Running again: at most a draw per tick applied, and one per change of the captions, which
    # are counted again four times a second (not one per animation frame).
    count = "[window.__draws, window.__frames, window.__asiworld.state.tick, performance.now()]"
    draws, frames, tick, began = page.evaluate(count)
    page.wait_for_function(f"window.__frames >= {frames + 2 * FRAMES} && "
                           f"window.__asiworld.state.tick > {tick}", timeout=15000)
    now_draws, _, now_tick, now = page.evaluate(count)
    seconds = (now - began) / 1000 + 1
    assert 0 < now_draws - draws <= now_tick - tick + 4 * seconds


def test_play_draws_its_map_when_an_observation_or_the_facing_changes_it(live_server, page):
    runner = live_server["runner"]
    page.goto(live_server["url"] + "/play")
    page.fill("#name", "still life")
    page.click("#join-form button[type=submit]")
    page.wait_for_function("window.__asiworld && window.__asiworld.view.ready", timeout=15000)
    runner.pause()
    try:
        assert drawn_while_still(page, runner, "view") == 0, "a still world is drawn again"

        page.focus("#map")
        page.keyboard.press("ArrowUp")  # faces north (the marker moves) before any tick
        page.wait_for_function("window.__draws > 0", timeout=15000)
        before = page.evaluate("window.__draws")
        tick = runner.step()
        page.wait_for_function(
            f"window.__asiworld.view.tick === {tick} && window.__draws > {before}", timeout=15000)
    finally:
        runner.resume()
