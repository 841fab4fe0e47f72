"""E2E (issue 38, item 1): the turn reader. On the demo study's replay, in Chromium at 1280×800:
every model turn is listed with its outcome chip; the outcome, tool and configuration filters and
the search over tools, codes and text keep exactly the matching turns; j/k move through them and
each selected turn seeks the map to the tick it was sent; the address opens the same turn in the
reader again; an axe-core scan finds no serious violation. A turn whose program has 40 lines
reads as a code block without any horizontal scrolling."""

from __future__ import annotations

import json
import urllib.request

import pytest
from asiworld.engine import World
from asiworld.engine.frames import FrameBuilder
from asiworld.pipeline import Pipeline
from asiworld.replay.session import RunRecording
from playwright.sync_api import expect

from e2e.conftest import served
from e2e.test_pages_accessibility import AXE, SCAN

pytestmark = pytest.mark.e2e


def api(server, path: str) -> dict:
    with urllib.request.urlopen(server["url"] + path) as resp:
        return json.loads(resp.read())


def every_turn(server, rid: str = "demo") -> list[dict]:
    confs = api(server, f"/api/replays/{rid}/transcript")["configurations"]
    return [{**t, "char": c["char"], "config": c["config"]} for c in confs for t in c["turns"]]


def open_reader(page, server, rid: str = "demo", query: str = "") -> None:
    page.goto(f"{server['url']}/replay/{rid}?reader=1{query}")
    page.wait_for_function("window.__replay && window.__replay.ready", timeout=30_000)
    expect(page.locator("#reader")).to_be_visible(timeout=20_000)
    page.wait_for_function("window.__replay.reader.turns.length > 0", timeout=20_000)


def rows(page) -> list[str]:
    return page.eval_on_selector_all("#reader-list .reader-row", "(rs) => rs.map((r) => r.dataset.turn)")


def ids_of(turns) -> list[str]:
    return sorted(f"{t['char']}.{t['turn']}" for t in turns)


def test_the_reader_lists_filters_and_searches_every_turn(page, study_server, shot):
    turns = every_turn(study_server)
    open_reader(page, study_server)
    assert sorted(rows(page)) == ids_of(turns)
    expect(page.locator("#reader-count")).to_have_text(f"{len(turns)} of {len(turns)} turns")
    chips = page.eval_on_selector_all("#reader-list .reader-row", """(rs) => Object.fromEntries(rs.map((r) =>
        [r.dataset.turn, r.querySelector('.chip').dataset.outcome]))""")
    assert chips == {f"{t['char']}.{t['turn']}": t["outcome"]["kind"] for t in turns}
    one = turns[0]
    expect(page.locator(f"#reader-list [data-turn='{one['char']}.{one['turn']}'] .cost")).to_have_text(
        f"{one['prompt_tokens'] + one['completion_tokens']} tok · {int(one['latency_ms'] + 0.5)} ms")

    refused = [t for t in turns if t["outcome"]["kind"] == "refused"]
    assert refused, "the demo's models are refused somewhere (no_path)"
    page.select_option("#reader-outcome", "refused")
    assert sorted(rows(page)) == ids_of(refused)
    page.select_option("#reader-outcome", "")

    page.select_option("#reader-tool", "submit_program")
    programs = [t for t in turns if any(c["name"] == "submit_program" for c in t["tool_calls"])]
    assert sorted(rows(page)) == ids_of(programs)
    page.select_option("#reader-tool", "")

    page.fill("#reader-search", "no_path")
    with_code = [t for t in turns if "no_path" in json.dumps(t)]
    assert sorted(rows(page)) == ids_of(with_code)
    page.fill("#reader-search", "")
    shot(page, "turn-reader")


def test_j_and_k_move_through_the_turns_and_each_seeks_the_map(page, study_server):
    turns = {f"{t['char']}.{t['turn']}": t for t in every_turn(study_server)}
    open_reader(page, study_server)
    order = rows(page)
    page.click(f"#reader-list [data-turn='{order[0]}'] button")
    page.locator("#reader-detail").click(position={"x": 5, "y": 5})  # away from any field
    for key, expected in (("j", order[1]), ("j", order[2]), ("k", order[1]), ("ArrowDown", order[2])):
        page.keyboard.press(key)
        expect(page.locator("#reader-detail")).to_have_attribute("data-turn", expected)
        page.wait_for_function(f"window.__replay.ui.tick === {turns[expected]['tick_sent']}")
        page.wait_for_function(f"location.search.includes('turn={expected}&') || location.search.endsWith('turn={expected}')")
        assert page.evaluate("window.__replay.ui.focus") == turns[expected]["char"]
    link = page.evaluate("location.pathname + location.search")
    assert "reader=1" in link

    again = page.context.new_page()
    again.goto(study_server["url"] + link)
    expect(again.locator("#reader-detail")).to_have_attribute("data-turn", order[2], timeout=20_000)
    expect(again.locator("#reader-list .reader-row.selected")).to_have_attribute("data-turn", order[2])
    again.close()


def test_the_reader_has_no_serious_accessibility_violation(page, study_server):
    open_reader(page, study_server)
    first = rows(page)[0]
    page.click(f"#reader-list [data-turn='{first}'] button")
    expect(page.locator("#reader-detail .reader-head")).to_be_visible()
    page.add_script_tag(path=str(AXE))
    assert page.evaluate(SCAN) == []


# A program of 40 lines, some of them long (a comment, a long condition): what a model writes.
PROGRAM = "\n".join(
    ["# walk the shore, gather what grows there, and come back before night falls on the plaza"]
    + [f"step_{i} = move_to(x=position()[0] + {i % 5}, y=position()[1] - {i % 3})  "
       f"# keep well clear of the water and of anything hostile that is near step {i}"
       for i in range(38)]
    + ["return inventory()"])


@pytest.fixture(scope="module")
def long_program_server(tmp_path_factory):
    """A replay whose one model turn submits a 40-line program, served as `r`."""
    folder = tmp_path_factory.mktemp("long-program")
    (folder / "transcripts").mkdir()
    world = World.create(seed=3, size=48)
    char = world.add_character("coder", label="coder")
    args = json.dumps({"name": "shore-walk", "source": PROGRAM})
    call = {"call": 1, "turn": 1, "attempt": 1, "tick_sent": 10, "tick_answered": 14, "latency_ms": 812,
            "prompt_tokens": 2100, "completion_tokens": 640, "prompt": "## Now\nby the shore",
            "tool_calls": [{"name": "submit_program", "arguments": args}],
            "results": [f"submit_program({args}) -> {{\"ok\":true,\"id\":1}}"], "error": None, "content": ""}
    (folder / "transcripts" / "coder.jsonl").write_text(json.dumps(call) + "\n")
    recording = RunRecording.start(folder / "r.asirep", world, FrameBuilder(world))
    pipeline = Pipeline(world)
    pipeline.add_observer("recorder", recording.on_tick)
    pipeline.run_until(60)
    recording.add_turns(folder / "transcripts", {"coder": char})
    recording.close()
    with served({"SEED": 3, "WORLD_SIZE": 48, "SPEED": 5, "REPLAY_DIRS": [str(folder)]},
                clock=False) as server:
        yield {"url": server["url"], "char": char}


NO_SIDEWAYS = """() => [document.scrollingElement, ...document.querySelectorAll(
    '#reader, #reader-detail, #reader-detail .reader-call, #reader-detail .reader-code')]
  .filter((e) => e.scrollWidth > e.clientWidth + 1)
  .map((e) => `${e.id || e.className}: ${e.scrollWidth} > ${e.clientWidth}`)"""


def test_a_forty_line_program_reads_as_code_without_scrolling_sideways(page, long_program_server, shot):
    char = long_program_server["char"]
    open_reader(page, long_program_server, "r", f"&turn={char}.1")
    code = page.locator("#reader-detail .reader-code[data-arg='source']")
    expect(code).to_be_visible()
    assert code.inner_text().rstrip("\n") == PROGRAM  # the source itself: no "\n" escapes
    assert len(code.inner_text().rstrip("\n").splitlines()) == 40
    expect(page.locator("#reader-detail .arg").first).to_contain_text("shore-walk")
    expect(page.locator("#reader-detail .reader-result")).to_contain_text('"id": 1')
    expect(page.locator("#reader-detail .reader-facts")).to_contain_text("2100 prompt + 640 completion tokens · 812 ms")
    assert page.evaluate(NO_SIDEWAYS) == []
    right = page.evaluate("document.querySelector('#reader-detail .reader-code').getBoundingClientRect().right")
    assert right <= 1280
    shot(page, "turn-reader-40-line-program")
