"""E2E (issue 21): /play speaks to a person. A refusal is in the second person with item names
as people read them, and it stays in the event log; a name in use or a built-in agent's is
refused at the join form; joining at night warns; waiting says so; one log line per hit; name
tags of characters standing together do not overlap."""

from __future__ import annotations

import urllib.request

import pytest
from playwright.sync_api import expect

from e2e.conftest import ServeProcess, browser_page

pytestmark = pytest.mark.e2e


def join(page, url: str, name: str) -> None:
    page.goto(url + "/play")
    page.fill("#name", name)
    page.click("#join-form button[type=submit]")


def test_a_refusal_is_said_to_you_and_kept_in_the_log(replay_server, page, shot):
    join(page, replay_server["url"], "ux tester")
    page.wait_for_function("window.__asiworld && window.__asiworld.view.ready", timeout=15000)
    page.evaluate("window.__asiworld.act({type: 'craft', recipe: 'wooden_pickaxe'})")
    message = page.locator("#message")
    expect(message).to_contain_text("You cannot craft a wooden pickaxe: you need ")
    expect(message).not_to_contain_text("_")
    expect(message).not_to_contain_text("ux tester")
    logged = page.locator("#me-events li[data-kind=refused]").first
    expect(logged).to_contain_text("You cannot craft a wooden pickaxe: you need ")
    page.evaluate("window.__asiworld.act({type: 'sleep'})")
    expect(message).to_contain_text("You can sleep only next to a bed of your own")
    page.keyboard.press("Space")
    expect(message).to_contain_text("You wait 5 ticks")
    shot(page, "play-refusal")


def test_a_taken_or_built_in_name_is_refused_at_the_join_form(replay_server, page):
    replay_server["runner"].add_character("grace", label="test")
    for name, says in (("grace", "already called grace"), ("planner-1", "built-in planner agents")):
        join(page, replay_server["url"], name)
        expect(page.locator("#join-error")).to_contain_text(says)
        expect(page.locator("#join-error")).to_contain_text("choose another name")
        expect(page.locator("#join")).to_be_visible()


NIGHT_TICK = 1260  # minute 21 of the first day: night (world.toml: night_starts_minute = 20)


def test_joining_at_night_warns(tmp_path, page):
    server = ServeProcess(tmp_path / "data", args=["--speed", "1", "--admin-token", "owl-token"])
    server.start()
    try:
        for n in (1000, NIGHT_TICK - 1000):  # the admin steps at most 1000 ticks at a time
            stepped = urllib.request.Request(f"{server.url}/admin/step?n={n}", method="POST",
                                             headers={"X-Admin-Token": "owl-token"})
            urllib.request.urlopen(stepped, timeout=60).close()
        join(page, server.url, "owl")
        page.wait_for_function("window.__asiworld && window.__asiworld.view.ready", timeout=15000)
        assert page.evaluate("window.__asiworld.view.time.phase") == "night"
        expect(page.locator("#message")).to_contain_text("It is night: shades come for anyone")
    finally:
        server.stop()


def test_one_log_line_per_hit(replay_server, page):
    """The engine tells a hit twice (`attacked`, then `damaged` after armour): shapes as
    app/engine/rules/combat.py and creatures.py emit them."""
    page.goto(replay_server["url"] + "/play")
    kept = page.evaluate("""async () => {
      const { oneLinePerHit } = await import('/static/js/panels.js');
      const events = [
        {tick: 5, kind: 'attacked', char: 1, target: 9, target_kind: 'boar', damage: 6},
        {tick: 5, kind: 'damaged', entity: 9, entity_kind: 'boar', amount: 4, source: 'character', source_id: 1},
        {tick: 5, kind: 'attacked', char: null, attacker: 9, attacker_kind: 'boar', target: 1, target_kind: 'character', damage: 3},
        {tick: 5, kind: 'damaged', char: 1, amount: 3, source: 'boar', source_id: 9},
        {tick: 5, kind: 'damaged', char: 1, amount: 1, source: 'hunger', source_id: null},
      ];
      return oneLinePerHit(events).map((e) => `${e.kind}:${e.source || ''}`);
    }""")
    assert kept == ["damaged:character", "damaged:boar", "damaged:hunger"]


def test_name_tags_of_characters_standing_together_do_not_overlap(replay_server, page):
    runner = replay_server["runner"]
    ids = [runner.add_character(name, label="test") for name in ("crowd-a", "crowd-b", "crowd-c")]
    page.goto(replay_server["url"] + "/live")
    # the page module may not have run yet: the predicate must not throw (a load of 22 saw it)
    page.wait_for_function(f"!!(window.__asiworld && window.__asiworld.state.entities[{ids[-1]}])", timeout=15000)
    page.evaluate(f"""() => {{
      const a = window.__asiworld, e = a.state.entities[{ids[0]}];
      a.renderer.camera.zoom = 1.5; a.renderer.centerOn(e.x, e.y);
    }}""")
    page.wait_for_function(
        "(window.__asiworld.renderer.nameTags || []).filter((t) => t.text.startsWith('crowd-')).length >= 2"
    )  # joined at once they stand at the plaza side by side (a crowded plaza spreads them)
    tags = page.evaluate("window.__asiworld.renderer.nameTags.map(({x, y, w, text}) => ({x, y, w, text}))")
    for i, a in enumerate(tags):
        for b in tags[i + 1:]:
            apart = a["x"] + a["w"] <= b["x"] or b["x"] + b["w"] <= a["x"] or abs(a["y"] - b["y"]) >= 14
            assert apart, (a, b)


def test_a_phone_plays_with_the_on_screen_controls(replay_server, browser, shot):
    """A phone has no keys: once seated, /play shows arrows and the E/F/P/Space/Z/Q buttons at the
    map's lower left; a tap walks (or turns to face what blocks the way) and Wait says so. A
    desktop window does not show them."""
    with browser_page(browser, 390, 844, has_touch=True, is_mobile=True) as page:
        join(page, replay_server["url"], "thumbs")
        page.wait_for_function("window.__asiworld && window.__asiworld.view.ready", timeout=15000)
        pad = page.locator("#touch-pad")
        expect(pad).to_be_visible()
        for button in pad.locator("button").all():
            box = button.bounding_box()
            assert box["width"] >= 44 and box["height"] >= 44, button.get_attribute("aria-label")
            assert 0 <= box["x"] and box["x"] + box["width"] <= 390  # inside the screen
        start = page.evaluate("[window.__asiworld.view.self.x, window.__asiworld.view.self.y]")
        # At the plaza at least one way is open: tap each direction until the character walks.
        for direction in ("north", "east", "south", "west"):
            page.tap(f"#touch-pad [aria-label='move {direction}']")
            try:
                page.wait_for_function(
                    f"window.__asiworld.view.self.x !== {start[0]} || window.__asiworld.view.self.y !== {start[1]}",
                    timeout=3000)
                break
            except Exception:
                continue
        else:
            pytest.fail(f"four taps on the arrows never moved the character from {start}")
        page.tap("#touch-pad button[data-key=' ']")
        expect(page.locator("#message")).to_contain_text("You wait 5 ticks")
        shot(page, "play-phone-controls")


def test_a_desktop_window_has_no_on_screen_controls(replay_server, page):
    join(page, replay_server["url"], "keys only")
    page.wait_for_function("window.__asiworld && window.__asiworld.view.ready", timeout=15000)
    expect(page.locator("#touch-pad")).to_be_hidden()


def test_join_waits_for_the_page_to_be_ready(replay_server, page):
    """A Join pressed while the page's script still loads its sprites submitted the form
    natively: the page reloaded as /play?name=... and nobody joined (seen at random in CI). The
    button is enabled once the script handles the form."""
    held = []  # the sprite atlas is held until the test lets it through: no race with a timer
    page.route("**/static/sprites/atlas.json", lambda route: held.append(route))
    page.goto(replay_server["url"] + "/play", wait_until="commit")
    page.wait_for_selector("#join-button")
    assert page.locator("#join-button").is_disabled()
    page.fill("#name", "early bird")
    page.press("#name", "Enter")  # implicit submission: refused while the button is disabled
    assert "name=" not in page.url and page.locator("#join-button").is_visible()
    for _ in range(300):  # the script asks for the atlas once it runs (15 s at most)
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the page never asked for the sprite atlas"
    held[0].continue_()
    page.click("#join-button")  # waits until it is enabled
    page.wait_for_function("window.__asiworld && window.__asiworld.view.ready", timeout=15000)
    assert "name=" not in page.url
