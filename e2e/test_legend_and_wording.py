"""E2E (issue 21): one map legend on /live, /play and the replay viewer, every entry a sprite
of the map's atlas; the evaluation page's wording (one clock, stages named as stages, round
axis steps, human players not counted as configurations); the fork dialog on the admin token;
a dungeon named in the replay inspector as the content names it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from e2e.conftest import RID

pytestmark = pytest.mark.e2e

LEGEND = """() => {
  const body = document.querySelector('.map-legend .legend-body');
  const items = [...body.querySelectorAll('li')];
  return {
    text: body.textContent,
    count: items.length,
    unsprited: items.filter((li) => { const i = li.querySelector('.sprite-icon');
      return i && !i.style.background.includes('atlas.png'); }).map((li) => li.textContent),
  };
}"""


def open_legend(page) -> dict:
    button = page.locator(".map-legend .legend-toggle")
    expect(button).to_have_attribute("aria-expanded", "false")
    expect(page.locator(".map-legend .legend-body")).to_be_hidden()  # closed until asked for
    page.wait_for_function("Number(document.querySelector('.map-legend').dataset.entries) > 30")
    button.click()
    expect(button).to_have_attribute("aria-expanded", "true")
    expect(page.locator(".map-legend .legend-body")).to_be_visible()
    return page.evaluate(LEGEND)


@pytest.mark.parametrize("path", ["/live", "/play", f"/replay/{RID}"])
def test_the_map_legend_names_what_the_map_draws(replay_server, page, path, shot):
    url = replay_server["url"]
    page.goto(url + path)
    legend = open_legend(page)
    for name in ("tree", "water", "iron", "gate 1", "workbench", "bed", "sheep", "boar",
                 "shadow king (boss)", "loot bag", "never seen", "in sight now"):
        assert name in legend["text"], (name, legend["text"][:400])
    assert legend["unsprited"] == []  # every picture is the map's own sprite
    if path == "/play":
        assert "the tile you face" in legend["text"]
    shot(page, f"legend{path.replace('/', '-')}")


def test_the_evaluation_page_says_one_clock_stages_and_configurations(replay_server, page):
    replay_server["runner"].add_character("visitor", label="human")
    page.goto(replay_server["url"] + "/evaluation")
    meta = page.locator("#eval-meta")
    expect(meta).to_contain_text("assessed over ")
    expect(meta).to_contain_text("human player")
    clocks = re.findall(r"\btick \d+|\d+ ticks\b", meta.inner_text())
    assert len(clocks) == 1, meta.inner_text()  # one clock, never "tick 229 … 230 ticks run"
    assert "configurations" in meta.inner_text() or "configuration " in meta.inner_text()
    tops = page.evaluate("""async () => {
      const { niceCeiling } = await import('/static/evaluation.js');
      return [0.5, 3, 10, 11, 37, 250].map((v) => niceCeiling(v));
    }""")
    for value, top in zip([0.5, 3, 10, 11, 37, 250], tops, strict=True):
        assert top >= value
        steps = [top * i / 4 for i in range(5)]
        assert all(abs(s * 10 - round(s * 10)) < 1e-9 for s in steps), steps  # 0, 5, 10, ...
    assert tops[2] == 20 and tops[4] == 40


def test_the_fork_dialog_says_where_the_admin_token_comes_from(replay_server, page):
    page.goto(f"{replay_server['url']}/replay/{RID}")
    page.wait_for_function("window.__replay && window.__replay.ready", timeout=20_000)
    page.keyboard.press("f")
    field = page.locator("#fork-admin")
    expect(field).to_be_visible()
    assert "printed by asiworld serve" in field.get_attribute("placeholder")
    assert "only when" not in field.get_attribute("placeholder")


def test_the_inspector_names_a_dungeon_as_the_content_does(replay_server, page):
    page.goto(f"{replay_server['url']}/replay/{RID}?t=300&focus=56")
    page.wait_for_function("window.__replay && window.__replay.ready", timeout=20_000)
    page.wait_for_function("document.querySelector('#inspect .action')")
    # The sample replays hold no dungeon entry yet: the focused character is put in an
    # instance of tier 1 as a frame would (its area arrives with `tier`), the clock paused.
    page.evaluate("""() => {
      const s = window.__replay.state;
      s.applyDeltas({ areas: { 14: { kind: 'dungeon', tier: 1, w: 2, h: 1, tiles: btoa('\\x01\\x01'),
        floor: btoa('\\x01\\x01') } }, entities: { 56: { ...s.entities[56], area: 14, x: 0, y: 0 } } });
    }""")
    action = page.locator("#inspect .action")
    expect(action).to_contain_text("in the Outer Court")
    expect(action).not_to_contain_text("area 14")
