"""E2E (issue 34, item 4): /live tells the story, at 1440×900. The followed character's panel
comes first, above the roster, with its inventory and events above the fold; an intent line
says what it does, where and why (the goal its action event carries); highlights (stages,
bosses, knockdowns, dungeons cleared) sit above the raw log, where a run of hits is one line;
every event kind reads as an English sentence; a study on the server has a banner with its
minute, right on a resumed study too; remembered shades are not drawn by day."""

from __future__ import annotations

import json
import re

import pytest
from asiworld.agents.bots.goals import GOALS
from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer
from asiworld.engine.events import KINDS
from asiworld.engine.rules import combat
from asiworld.study.demo import demo_text
from playwright.sync_api import expect

from e2e.conftest import browser_page, served
from tests.hardening.serving import free_port, start_server, stop_server

pytestmark = pytest.mark.e2e

WIDE = {"width": 1440, "height": 900}
BOTS = {"SEED": 7, "SPEED": 20, "AGENTS": ["planner", "rusher", "builder", "forager"]}
PURPOSES = sorted({goal.purpose for goal in GOALS.values()}, key=len, reverse=True)


@pytest.fixture
def wide(browser):
    with browser_page(browser, WIDE["width"], WIDE["height"]) as page:
        yield page


def open_live(page, url: str, characters: int = 4) -> None:
    page.goto(url + "/live")
    page.wait_for_function(
        f"window.__asiworld && window.__asiworld.state.characters().length >= {characters}",
        timeout=30_000)


def follow_first(page) -> dict:
    first = page.locator("#characters li[data-char]").first
    first.dispatch_event("pointerdown")
    expect(page.locator("#followed")).to_be_visible()
    return page.evaluate("window.__asiworld.state.entities[Number(document.querySelector("
                         "'#characters li[data-char]').dataset.char)]")


def test_the_followed_panel_comes_first_and_says_what_and_why(wide, shot):
    with served(BOTS) as server:
        open_live(wide, server["url"])
        me = follow_first(wide)
        followed, roster = wide.locator("#followed"), wide.locator("#characters")
        assert followed.bounding_box()["y"] < roster.bounding_box()["y"]
        for part in ("#followed-intent", "#followed-inventory", "#followed-events"):
            box = wide.locator(part).bounding_box()
            assert box["y"] + 20 < WIDE["height"], part  # above the fold, not under four cards
        # the planner's goal, from its action events: "walking to the iron vein at (55, 67) to
        # smelt iron ingots"
        intent = wide.locator("#followed-intent")
        why = "|".join(re.escape(p) for p in PURPOSES)
        expect(intent).to_have_text(re.compile(rf"^[a-z].* at \(\d+, \d+\) to ({why})$"), timeout=30_000)
        assert me["label"] == "planner"
        expect(intent).not_to_contain_text("running")
        shot(wide, "live-followed-intent")


def test_an_intent_line_names_the_place_and_a_model_seat_its_tool_call(wide):
    with served({"SEED": 7, "SPEED": 20}) as server:
        open_live(wide, server["url"], characters=0)
        lines = wide.evaluate("""async () => {
          const { intentLine } = await import('/static/js/story.js');
          const tiles = { '70,41': 'iron', '12,9': 'plaza' };
          const world = { tileAt: (x, y) => tiles[`${x},${y}`] || 'grass', structureAt: () => null,
                          entity: (id) => (id === 9 ? { kind: 'shade' } : null) };
          const walking = (x, y) => ({ id: 1, action: { op: 3, type: 'move_to', args: { x, y } } });
          return [
            intentLine(walking(70, 41), 'smelt iron ingots', world),
            intentLine(walking(71, 42), 'smelt iron ingots', world),
            intentLine(walking(12, 9), null, world),
            intentLine(walking(70, 41), 'tool call move_to(x=70, y=41)', world),
            intentLine({ id: 1, action: { op: 4, type: 'attack', args: { target: 9 } } }, 'stay alive', world),
            intentLine({ id: 1, action: null }, 'eat', world),
            intentLine({ id: 1, down: true, action: null }, null, world),
            intentLine({ id: 1, action: { op: 5, type: 'attack', args: { target: 9 } } }, null, world, 'steady_clear'),
          ];
        }""")
    assert lines == [
        "walking to the iron vein at (70, 41) to smelt iron ingots",
        "walking to the iron vein at (70, 41) to smelt iron ingots",  # it walks to stand next to it
        "walking to the plaza at (12, 9)",
        "walking to the iron vein at (70, 41) · last tool call move_to(x=70, y=41)",
        "attacking the shade to stay alive",
        "idle",
        "knocked down",
        "attacking the shade · its program “steady_clear” runs",  # a program's ops name no goal
    ]


def test_highlights_above_the_raw_log_and_a_run_of_hits_is_one_line(wide, shot):
    stage = {"configurations": [{"id": 0, "name": "someone", "achievements": {"stages": [
        {"stage": 1, "name": "Foothold", "met": True, "tick": 40}]}}]}
    with served(BOTS) as server:
        runner = server["runner"]
        wide.route("**/api/evaluation", lambda route: route.fulfill(
            status=200, content_type="application/json", body=json.dumps(stage)))
        open_live(wide, server["url"])
        highlights, log = wide.locator("#highlights"), wide.locator("#events")
        expect(highlights.locator("li[data-kind=stage]")).to_have_text(
            re.compile(r"^40 someone reached stage 1: Foothold$"))
        assert highlights.bounding_box()["y"] < log.bounding_box()["y"]
        assert highlights.bounding_box()["y"] + 40 < WIDE["height"]  # above the fold, over the roster

        cid = wide.evaluate("window.__asiworld.state.characters()[1].id")
        name = wide.evaluate(f"window.__asiworld.state.entities[{cid}].name")
        runner.call(lambda: combat.knock_down(runner.world, runner.world.entities[cid], "shade"))
        expect(highlights.locator("li[data-kind=down]")).to_contain_text(f"{name} was knocked down by a shade")
        expect(log.locator("li[data-kind=down]")).to_contain_text(f"{name} was knocked down")

        # eleven blows on the warden by that character, 4 s apart, and a boss defeated: one line
        wide.evaluate("""([cid]) => {
          const tell = window.__asiworld.tell;
          for (let i = 0; i < 11; i++) {
            tell([{ tick: 100000 + 4 * i, kind: 'damaged', entity: 99999, entity_kind: 'warden', char: cid,
                    amount: 3, source: 'character', source_id: cid, health: 60 - 3 * i }]);
          }
          tell([{ tick: 100045, kind: 'boss_defeated', char: cid, tier: 1, boss: 'warden', instance: 2 }]);
        }""", [cid])
        run = log.locator("li[data-run='e99999']")
        expect(run).to_have_count(1)
        expect(run).to_have_text(f"100040 {name} hit the warden 11 times for 33 damage over 40 s")
        expect(log).not_to_contain_text("warden took")
        expect(highlights.locator("li[data-kind=boss_defeated]")).to_have_text(
            re.compile(rf"^100045 {re.escape(name)} defeated the warden in the [A-Z]"))
        shot(wide, "live-highlights")


SAMPLE = {"name": "ada", "label": "planner", "x": 3, "y": 4, "item": "wood", "count": 2,
          "amount": 3, "source": "shade", "source_id": 9, "entity": None, "target": 9,
          "target_kind": "boar", "attacker": 9, "attacker_kind": "boar", "damage": 3,
          "boss": "warden", "tier": 2, "phase": "dusk", "day": 2, "reason": "dawn", "at": "plaza",
          "cause": "shade", "task": "production", "text": "hello", "type": "attack",
          "code": "no_target", "message": "there is no attack 60 here", "goal": "eat",
          "detail": "its player reconnected", "outcome": {}, "status": "done"}


def every_kind() -> list[dict]:
    events = []
    for kind, spec in KINDS.items():
        ev = {"tick": 5, "kind": kind}
        for field in re.findall(r"(?:^|, )([a-z_]+)", spec):
            ev[field] = SAMPLE.get(field, 1)
        if kind == "resumed":
            ev["detail"] = SAMPLE["detail"]
        events.append(ev)
        # and the same kind with only what every event has: optional parts left out, not "undefined"
        events.append({"tick": 5, "kind": kind, "char": 1})
    # the shapes seen malformed: an empty `say`, a refusal of an op whose target went away
    events.append({"tick": 5, "kind": "said", "char": 1, "text": "  "})
    events.append({"tick": 5, "kind": "op_failed", "char": 1, "type": "attack", "code": "no_target",
                   "message": "there is no attack 60 here"})
    events.append({"tick": 5, "kind": "op_failed", "char": 1, "type": "attack", "code": "some_new_code",
                   "message": "shade 60 at (3, 4) is not next to builder-3 at (5, 6)"})
    return events


def test_every_event_kind_reads_as_english_for_a_spectator(wide):
    events = every_kind()
    with served({"SEED": 7, "SPEED": 20}) as server:
        wide.goto(server["url"] + "/live")
        lines = wide.evaluate("""async (events) => {
          const { describeEvent } = await import('/static/js/panels.js');
          const { highlight } = await import('/static/js/story.js');
          const names = { 1: 'builder-3', 9: 'rusher-2' };
          return events.map((ev) => [ev.kind, describeEvent(ev, names), highlight(ev, names)]);
        }""", events)
    told = [(kind, text) for kind, line, high in lines for text in (line, high) if text is not None]
    assert len({kind for kind, _ in told}) > 25
    for kind, line in told:
        assert line.strip() and line == line.strip(), (kind, line)
        assert line.strip() not in ("builder-3", "rusher-2"), (kind, line)  # a name and nothing
        assert not re.search(r"\byou\b|#\d|\d{2,} here|undefined|null|NaN|\[object|_|\(\)|: $|  ", line), (kind, line)
    malformed_before = [line for _kind, line, _high in lines[-3:]]
    assert malformed_before == [None, "builder-3 could not attack: nothing to attack there",
                    "builder-3 could not attack: the shade at (3, 4) is not next to it at (5, 6)"]


def test_remembered_shades_are_not_drawn_by_day(wide):
    with served({"SEED": 7, "SPEED": 20}) as server:
        wide.goto(server["url"] + "/live")
        shown = wide.evaluate("""async () => {
          const { rememberedShown } = await import('/static/js/render.js');
          const content = await (await fetch('/api/content')).json();
          const remembered = [{ id: 5, kind: 'shade', x: 1, y: 1 }, { id: 6, kind: 'boar', x: 2, y: 2 },
                              { id: 7, kind: 'shade', x: 3, y: 3 }];
          const inView = { 7: { id: 7 } };
          const kinds = (phase) => rememberedShown(remembered, inView, content.creatures, phase).map((m) => m.id);
          return { day: kinds('day'), dawn: kinds('dawn'), dusk: kinds('dusk'), night: kinds('night'),
                   shade: content.creatures.shade.night_only, boar: content.creatures.boar.night_only };
        }""")
    assert shown == {"day": [6], "dawn": [6], "dusk": [6], "night": [5, 6], "shade": True, "boar": False}


def test_a_study_has_a_banner_with_its_minute_also_once_resumed(browser, tmp_path, shot):
    """`serve --study`: the banner counts the study's minute from the world's tick. Stopped at
    minute 1 and served again, the study resumes its world, and the banner says minute 1 or
    later from the first frame (a count from the new process's start would say 0). Its model
    seats' intent lines name their last tool call."""
    with browser_page(browser, WIDE["width"], WIDE["height"]) as page:
        with FakeModelServer(FakeModel()) as fake:
            study = tmp_path / "s.toml"
            study.write_text(demo_text(fake.url, minutes=3))
            args = ("--ephemeral", "--study", str(study), "--out", str(tmp_path / "out"),
                    "--figures", "none", "--speed", "10")
            port = free_port()
            proc = start_server(port, *args, wait=120)  # a loaded machine: it may start slowly
            try:
                page.goto(f"http://127.0.0.1:{port}/live")
                banner = page.locator("#study-banner")
                expect(banner).to_have_text(re.compile(r"^Study nine configurations · minute [0-3] of 3"),
                                            timeout=30_000)  # once the first frame is drawn
                expect(banner).to_have_attribute("data-minute", "1", timeout=60_000)
                assert banner.bounding_box()["y"] < page.locator("#area-bar").bounding_box()["y"]
                # the study's model seats: their intent is their tool call
                calls = page.locator("#characters .intent", has_text=re.compile(
                    r"^[a-z].* · last tool call [a-z_]+\(.*\)$"))
                expect(calls.first).to_be_visible(timeout=30_000)
                shot(page, "live-study-banner")
            finally:
                stop_server(proc)
            page.goto("about:blank")
            port = free_port()
            proc = start_server(port, *args, wait=120)  # a loaded machine: it may start slowly
            try:
                page.goto(f"http://127.0.0.1:{port}/live")
                # a resumed study re-applies its ticks first: slow on a loaded machine
                page.wait_for_function("window.__asiworld && window.__asiworld.state.tick > 0",
                                       timeout=90_000)
                first = page.evaluate("window.__asiworld.state.tick")
                assert first >= 60, first  # the resumed world's tick, not a new one's
                expect(banner).to_have_text(re.compile(r"^Study nine configurations · minute [1-3] of 3"))
                page.wait_for_function("""() => {
                  const b = document.getElementById('study-banner');
                  return Number(b.dataset.minute) === Math.min(3, Math.floor(window.__asiworld.state.tick / 60));
                }""")
            finally:
                stop_server(proc)


def test_without_a_study_there_is_no_banner(wide):
    with served({"SEED": 7, "SPEED": 20}) as server:
        open_live(wide, server["url"], characters=0)
        expect(wide.locator("#study-banner")).to_have_count(0)
