"""E2E: /compare puts two studies of one seed on one clock (tests/replay_viewer/two_studies.py
records them: three simulated minutes each). In Chromium at 1280×800 and 1920×1080: both maps
draw; the scrubber, the keys, a timeline and play move both maps to the same tick; the score
table shows player's difference signed and coloured and the configurations of one side only;
the followed configuration's model turns of both sit side by side at the clock's tick; a
different seed and size is a banner; bad ids and a missing side answer 404 and 400 (page and
JSON); an axe-core scan finds no serious violation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from e2e.conftest import browser_page, served
from tests.replay_viewer.two_studies import record

pytestmark = pytest.mark.e2e

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
SIZES = [(1280, 800), (1920, 1080)]

# How many distinct colours a map canvas holds: a drawn map has grass, water, trees, characters;
# an undrawn one is one background colour.
COLOURS = """(id) => {
  const c = document.getElementById(id);
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  const seen = new Set();
  for (let i = 0; i < d.length; i += 4 * 97) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
  return seen.size;
}"""
BOTH_AT = """(t) => window.__compare && window.__compare.tick === t && window.__compare.ready &&
  document.getElementById('map-a').dataset.tick === String(t) &&
  document.getElementById('map-b').dataset.tick === String(t)"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = record(tmp_path_factory.mktemp("compare"))
    with served({"SEED": 7, "SPEED": 20, "REPLAY_DIRS": [str(folder)]}) as s:
        yield {**s, "folder": folder}


@pytest.fixture(params=SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def sized(browser, request):
    width, height = request.param
    with browser_page(browser, width, height) as page:
        yield page


def open_compare(page, server, query: str = "a=a&b=b"):
    page.goto(f"{server['url']}/compare?{query}")
    page.wait_for_function("window.__compare && window.__compare.ready", timeout=30_000)


def both_at(page, tick: int) -> None:
    page.wait_for_function(BOTH_AT, arg=tick, timeout=20_000)


def test_both_maps_draw_and_one_clock_moves_both(sized, server, shot):
    page = sized
    open_compare(page, server)
    page.wait_for_function(f"({COLOURS})('map-a') > 8 && ({COLOURS})('map-b') > 8", timeout=20_000)
    layout = page.evaluate("""() => ({ scroll: document.scrollingElement.scrollWidth, width: innerWidth,
      map: document.getElementById('map-a').getBoundingClientRect().width,
      mapH: document.getElementById('map-a').getBoundingClientRect().height })""")
    assert layout["scroll"] <= layout["width"], layout  # no sideways scroll
    assert layout["map"] >= 0.45 * layout["width"] and layout["mapH"] >= 0.4 * page.viewport_size["height"]
    # The scrubber: both maps at its tick, and the readout says it as mm:ss and as a tick.
    page.locator("#scrubber").fill("120")
    both_at(page, 120)
    expect(page.locator("#time-readout")).to_have_text("2:00")
    expect(page.locator("#tick-readout")).to_have_text("tick 120 / 180")
    expect(page.locator("#label-a")).to_contain_text("tick 120")
    expect(page.locator("#label-b")).to_contain_text("tick 120")
    # The keys step both: a tick, then a minute back.
    page.locator("#tables-heading").click()  # the page, not the scrubber, has the keys
    page.keyboard.press("ArrowRight")
    both_at(page, 121)
    page.keyboard.press("Shift+ArrowLeft")
    both_at(page, 61)
    # A click on either timeline moves both maps.
    box = page.locator("#timeline-b").bounding_box()
    page.locator("#timeline-b").click(position={"x": box["width"] - 9, "y": 8})
    page.wait_for_function("window.__compare.tick > 170 && window.__compare.ready", timeout=20_000)
    tick = page.evaluate("window.__compare.tick")
    both_at(page, tick)
    # Play runs both on one clock; paused, both show the same tick.
    page.keyboard.press("Home")
    both_at(page, 0)
    page.keyboard.press("]")
    page.keyboard.press("]")  # 4×: 40 ticks a second
    page.keyboard.press("Space")
    page.wait_for_function("window.__compare.tick > 20", timeout=20_000)
    page.keyboard.press("Space")
    page.wait_for_function("!window.__compare.ui.playing && window.__compare.ready")
    both_at(page, page.evaluate("window.__compare.tick"))
    assert "t=" in page.evaluate("location.search")
    shot(page, f"compare-{page.viewport_size['width']}")


def test_a_4k_screen_at_device_scale_2_shows_both_maps_and_the_tables(browser, server, shot):
    with browser_page(browser, 3840, 2160, device_scale_factor=2) as page:
        open_compare(page, server)
        page.wait_for_function(f"({COLOURS})('map-a') > 8 && ({COLOURS})('map-b') > 8",
                               timeout=30_000)
        layout = page.evaluate("""() => ({ scroll: document.scrollingElement.scrollWidth,
          width: innerWidth, map: document.getElementById('map-a').getBoundingClientRect().width })""")
        assert layout["scroll"] <= layout["width"] and layout["map"] >= 0.45 * layout["width"], layout
        page.locator("#scrubber").fill("90")
        both_at(page, 90)
        shot(page, "compare-3840")


def test_the_table_shows_each_difference_signed_and_coloured(sized, server):
    page = sized
    open_compare(page, server)
    results = {s: json.loads((server["folder"] / s / "results.json").read_text()) for s in "ab"}
    score = {s: next(r["score"] for r in results[s]["configurations"] if r["name"] == "player")
             for s in "ab"}
    diff = score["b"] - score["a"]
    assert diff > 0  # the built-in planner beats the forager over three minutes on this seed
    cell = page.locator("#table-score tr[data-config='player'] td[data-key='score']")
    expect(cell).to_have_attribute("data-favours", "b")
    expect(cell.locator(".diff")).to_have_text(f"+{diff:.1f}")
    expect(cell.locator(".pair")).to_have_text(f"{score['a']:.1f} → {score['b']:.0f}")
    green = cell.locator(".diff").evaluate("(n) => getComputedStyle(n).color")
    level = page.locator("#table-score tr[data-config='llm'] td[data-key='kills'] .diff")
    expect(level).to_have_text("±0")
    assert green != level.evaluate("(n) => getComputedStyle(n).color")
    # Configurations of one side only are listed as such, with no difference.
    expect(page.locator("#table-score tr[data-config='planner'] [data-only='a']")).to_have_text("only in a")
    expect(page.locator("#table-score tr[data-config='rusher'] [data-only='b']")).to_have_text("only in b")
    expect(page.locator("#table-score tr[data-config='rusher'] .diff")).to_have_count(0)
    # What differs in how the configurations were set up.
    expect(page.locator("#table-score tr[data-config='llm'] .settings")).to_contain_text(
        "model: fake-forager → fake-programmer")
    expect(page.locator("#table-behaviour")).to_be_visible()
    # The model's costs: only the configuration that asks a model, turns from each results.json
    expect(page.locator("#table-model tbody tr")).to_have_count(1)
    turns = page.locator("#table-model tr[data-config='llm'] td[data-key='model_turns']")
    expect(turns).to_have_attribute("data-favours", "")  # more turns is neither better nor worse


def test_the_followed_configurations_turns_sit_side_by_side(sized, server):
    page = sized
    open_compare(page, server, "a=a&b=b&t=60&follow=llm")
    both_at(page, 60)
    for side in "ab":
        turns = page.evaluate(f"fetch('/api/replays/{side}/transcript').then((r) => r.json())")
        (llm,) = [c for c in turns["configurations"] if c["config"] == "llm"]
        latest = [t for t in llm["turns"] if t["tick_sent"] <= 60][-1]
        pane = page.locator(f"#turn-{side}")
        expect(pane).to_have_attribute("data-turn", f"{llm['char']}.{latest['turn']}")
        expect(pane.locator(".reader-call").first).to_contain_text(latest["tool_calls"][0]["name"])
    # What the model was shown opens on demand, in each pane.
    page.locator("#turn-b summary").click()
    expect(page.locator("#turn-b .reader-prompt")).to_contain_text("## Now")
    a, b = (page.locator(f"#turn-{s}").bounding_box() for s in "ab")
    assert a["x"] + a["width"] <= b["x"] and abs(a["y"] - b["y"]) < 2  # side by side
    assert a["width"] > 400  # a turn is read at half the page, not in a sidebar
    # A built-in configuration asks no model: said so, on both sides.
    page.locator("#follow").select_option("player")
    expect(page.locator("#turn-a")).to_contain_text("asks no model")
    expect(page.locator("#turn-b")).to_contain_text("asks no model")


def test_a_different_seed_and_size_is_a_banner_not_an_error(page, server):
    open_compare(page, server, "a=a&b=other")
    banner = page.locator("#banner")
    expect(banner).to_be_visible()
    expect(banner.locator("[data-kind='seed']")).to_contain_text("a is seed 3, b is seed 4")
    expect(banner.locator("[data-kind='size']")).to_contain_text("48×48")
    page.wait_for_function(f"({COLOURS})('map-b') > 8", timeout=20_000)
    # Past the shorter replay's end its map holds its last frame, and says so.
    page.locator("#scrubber").fill("150")
    page.wait_for_function("window.__compare.tick === 150 && window.__compare.ready")
    expect(page.locator("#ended-b")).to_contain_text("b ended at")
    assert page.evaluate("document.getElementById('map-b').dataset.tick") == "60"
    expect(page.locator("#banner")).to_be_visible()
    open_compare(page, server)
    expect(page.locator("#banner")).to_be_hidden()


@pytest.mark.parametrize("query, status, code", [
    ("a=nope&b=b", 404, "unknown_replay"), ("a=a&b=nope", 404, "unknown_replay"),
    ("a=a", 400, "bad_argument"), ("", 400, "bad_argument")])
def test_bad_ids_and_a_missing_side_answer_as_the_viewer_does(page, server, query, status, code):
    resp = page.goto(f"{server['url']}/compare?{query}")
    assert resp.status == status
    expect(page.locator(".error-card")).to_contain_text(code)
    expect(page.locator(".replay-cards")).to_be_visible()  # the list, to pick two others
    api = page.request.get(f"{server['url']}/api/compare?{query}")
    assert api.status == status and api.json()["code"] == code


def test_no_serious_accessibility_violation(page, server):
    open_compare(page, server, "a=a&b=other&follow=llm")
    expect(page.locator("#turn-a .reader-call").first).to_be_visible()
    page.add_script_tag(path=str(AXE))
    violations = page.evaluate("""async () => {
      const result = await axe.run(document, { resultTypes: ['violations'] });
      return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.slice(0, 4).map((n) => n.target.join(' ')) }));
    }""")
    assert violations == [], violations


def test_the_replay_list_opens_a_comparison_of_two_chosen_replays(page, server):
    page.goto(f"{server['url']}/replays")
    form = page.locator("#compare-form")
    # b starts as another replay of a's seed
    expect(form.locator("#compare-a")).to_have_value("a")
    expect(form.locator("#compare-b")).to_have_value("b")
    form.locator("#compare-b").select_option("other")
    form.get_by_role("button", name="Compare").click()
    page.wait_for_url("**/compare?a=a&b=other**")
    page.wait_for_function("window.__compare && window.__compare.ready", timeout=30_000)
    expect(page.locator("#banner [data-kind='seed']")).to_be_visible()


def test_a_tick_the_server_did_not_give_is_said_and_fetched_again(page, server):
    open_compare(page, server)
    page.locator("#scrubber").fill("170")
    both_at(page, 170)
    # b's keyframes do not arrive (a server gone for a moment): going back needs one; the page
    # says so and raises nothing
    page.route("**/api/replays/b/state*", lambda route: route.abort())
    page.locator("#scrubber").fill("30")
    expect(page.locator("#flash")).to_contain_text("could not load tick 30")
    page.unroute("**/api/replays/b/state*")
    # once the server answers again the tick is asked for again, and both maps reach it
    both_at(page, 30)


def test_model_turns_that_did_not_load_are_said_and_loaded_again(page, server):
    page.route("**/api/replays/b/transcript", lambda route: route.abort())
    open_compare(page, server, "a=a&b=b&t=60&follow=llm")
    expect(page.locator("#turn-b")).to_contain_text("Could not load the model turns of b")
    expect(page.locator("#turn-a .reader-call").first).to_be_visible()
    page.unroute("**/api/replays/b/transcript")
    expect(page.locator("#turn-b .reader-call").first).to_be_visible(timeout=20_000)


def test_two_names_of_one_configuration_are_compared_as_one_row(page, server):
    open_compare(page, server)
    form = page.locator("#pair-form")
    form.locator("#pair-a").select_option("planner")
    form.locator("#pair-b").select_option("rusher")
    form.get_by_role("button", name="Compare as one").click()
    page.wait_for_url("**match=planner%3Arusher**")
    page.wait_for_function("window.__compare && window.__compare.ready", timeout=30_000)
    row = page.locator("#table-score tr[data-config='planner']")
    expect(row.locator(".cmp-name")).to_contain_text("planner ↔ rusher")
    expect(row).to_have_attribute("data-in", "both")
    expect(row.locator("td[data-key='score'] .diff")).to_have_count(1)
    expect(page.locator("#pair-form")).to_have_count(0)  # nothing left to pair
