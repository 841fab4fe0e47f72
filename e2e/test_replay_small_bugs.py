"""E2E (issue 38): the replay viewer's small bugs that cost trust, each in Chromium on the demo
study's replay: no literal "null" in the inspector, one clock while playing, m:ss with the tick
everywhere, a minimap as blind as the point of view it goes with, "sent …, answered" without a
stray space, "between phases" (not "not joined") for a character that joined, and an HTML page
for a browser at an unknown address."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from playwright.sync_api import expect

from e2e.test_pages_accessibility import AXE, SCAN

pytestmark = pytest.mark.e2e

MMSS_TICK = re.compile(r"^\d+:\d\d · tick \d+$")


def api(server, path: str) -> dict:
    with urllib.request.urlopen(server["url"] + path) as resp:
        return json.loads(resp.read())


def ids(server) -> dict[str, int]:
    return {c["name"]: c["id"] for c in api(server, "/api/replays/demo")["characters"]}


def open_viewer(page, server, query: str = "") -> None:
    page.goto(f"{server['url']}/replay/demo{query}")
    page.wait_for_function("window.__replay && window.__replay.ready && window.__replay.ui.overview",
                           timeout=30_000)


def test_the_inspector_prints_no_null_when_nothing_was_used_up(page, study_server):
    rusher = ids(study_server)["rusher"]
    open_viewer(page, study_server, f"?t=170&focus={rusher}")
    expect(page.locator("#inspect .changes-since")).to_contain_text("changes since tick")
    expect(page.locator("#inspect .gone-line")).to_have_count(0)  # nothing used up: no line
    assert "null" not in page.locator("#inspect").inner_text()


RECORD_CLOCKS = """() => {
  window.__clocks = [];
  const read = () => window.__clocks.push([document.getElementById('clock').textContent,
    document.getElementById('tick-readout').textContent]);
  new MutationObserver(read).observe(document.getElementById('tick-readout'), { childList: true, characterData: true, subtree: true });
}"""


def test_the_two_clocks_say_the_same_tick_while_playing(page, study_server):
    open_viewer(page, study_server, "?t=1")
    page.evaluate(RECORD_CLOCKS)
    page.evaluate("window.__replay.setSpeed(4); window.__replay.play(true)")
    page.wait_for_function("window.__clocks.length >= 10", timeout=20_000)
    pairs = page.evaluate("window.__clocks")
    for clock, readout in pairs:
        top = re.search(r"tick (\d+)$", clock).group(1)
        bottom = re.match(r"tick (\d+) /", readout).group(1)
        assert top == bottom, pairs


def test_time_reads_mm_ss_with_the_tick_on_the_timeline_and_in_the_events(page, study_server):
    open_viewer(page, study_server, "?t=125")
    expect(page.locator("#time-readout")).to_have_text("2:05")
    ruler = page.evaluate("window.__replay.timeline.ruler.map((r) => r[1])")
    assert ruler and all(re.fullmatch(r"\d+:\d\d", label) for label in ruler), ruler
    box = page.locator("#timeline").bounding_box()
    x = page.evaluate("window.__replay.timeline.xOf(90)")
    page.mouse.move(box["x"] + x, box["y"] + 5)  # the ruler: no row
    expect(page.locator("#timeline-tip")).to_have_text(re.compile(r"^1:30 · tick 90$"))
    page.click("[data-panel='tab-events']")
    first = page.locator("#log li .tick").first
    expect(first).to_have_text(MMSS_TICK)


def test_the_minimap_is_blind_where_the_point_of_view_is(page, study_server):
    rusher = ids(study_server)["rusher"]
    open_viewer(page, study_server, f"?t=60&focus={rusher}")
    black = """() => { const c = document.getElementById('minimap');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] + d[i + 1] + d[i + 2] === 0) n++; return n; }"""
    expect(page.locator("#minimap")).to_have_attribute("data-shows", "truth")
    truth = page.evaluate(black)
    page.evaluate(f"window.__replay.setPov({rusher})")
    expect(page.locator("#minimap")).to_have_attribute("data-shows", f"pov:{rusher}", timeout=20_000)
    seen = page.evaluate(black)
    # The rusher has seen a small part of the world in its first minute: the rest is black.
    assert seen > truth + 0.25 * page.evaluate("minimap.width * minimap.height"), (truth, seen)


def test_a_turn_says_when_it_was_sent_and_answered_without_a_stray_space(page, study_server):
    char = ids(study_server)["forager-a"]
    open_viewer(page, study_server)
    page.wait_for_function("Object.keys(window.__replay.turns.byChar).length > 0", timeout=20_000)
    page.evaluate(f"window.__replay.selectTurn({char}, 2)")
    full = api(study_server, f"/api/replays/demo/turns/{char}/2")
    sent = full["tick_sent"]
    when = page.locator("#tab-turns .turn-detail .turn-when").first
    expect(when).to_have_text(
        f"sent {sent // 60}:{sent % 60:02d} · tick {sent}, answered tick {full['tick_answered']}")
    head = page.locator("#tab-turns .turn-detail .turn-head").first.inner_text()
    assert not re.search(r"\s,", head), head


def test_the_timeline_tooltip_names_turns_and_phases_of_a_joined_character(page, study_server):
    char = ids(study_server)["short-memory"]  # a model seat that joined at tick 0
    open_viewer(page, study_server)
    page.wait_for_function("Object.keys(window.__replay.timeline.turns).length > 0", timeout=20_000)
    box = page.locator("#timeline").bounding_box()
    tip = page.locator("#timeline-tip")
    point = page.evaluate(f"window.__replay.timeline.turnPoint({char}, 2)")
    page.mouse.move(box["x"] + point["x"], box["y"] + point["y"])
    expect(tip).to_contain_text("short-memory · model turn 2: sent ")
    # A moment no phase rule covers, away from every turn mark: one phase band taken out.
    gap = page.evaluate(f"""(() => {{ const tl = window.__replay.timeline;
      const phases = structuredClone(tl.phases); const segs = phases[{char}];
      const far = (t) => tl.turns[{char}].every((m) => Math.abs(tl.xOf(m.tick_sent) - tl.xOf(t)) > 6);
      const i = segs.findIndex(([a, b]) => far(Math.floor((a + b) / 2)));
      const [a, b] = segs.splice(i, 1)[0]; tl.setOverview({{ phases, markers: tl.markers }});
      return Math.floor((a + b) / 2); }})()""")
    row = page.evaluate(f"window.__replay.timeline.characters.findIndex((c) => c.id === {char})")
    x = page.evaluate(f"window.__replay.timeline.xOf({gap})")
    page.mouse.move(box["x"] + x, box["y"] + 18 + row * 15 + 7)
    expect(tip).to_contain_text(f"short-memory · between phases · {gap // 60}:{gap % 60:02d} · tick {gap}")


def test_a_browser_at_an_unknown_address_gets_an_accessible_page(page, study_server):
    reply = page.goto(study_server["url"] + "/no-such-page")
    assert reply.status == 404 and reply.headers["content-type"].startswith("text/html")
    expect(page.locator("h1")).to_have_text("Nothing here")
    expect(page.locator(".error-page")).to_contain_text("not_found")
    page.add_script_tag(path=str(AXE))
    assert page.evaluate(SCAN) == []
