"""E2E: a study's replay exported as one HTML file plays in Chromium from file:// with no server:
the first frame is drawn, a seek moves the tick readout, a keyframe rebuilt in the page equals
the server's, and a model turn opens from the timeline."""

from __future__ import annotations

import json

import pytest
from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer
from asiworld.cli import main
from asiworld.evaluation.figure_options import FigureOptions
from asiworld.replay.library import ReplayLibrary
from asiworld.study.demo import demo_text
from asiworld.study.run import run_study
from asiworld.study.spec import parse_study
from playwright.sync_api import expect

NO_FIGURES = FigureOptions(formats=())


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "demo"
    with FakeModelServer(FakeModel()) as fake:
        text = demo_text(fake.url, minutes=3)
        run_study(parse_study(text), text, out, say=lambda line: None, figures=NO_FIGURES)
    html = out.parent / "demo.html"
    assert main(["replay", "export", str(out), "--html", str(html)]) == 0
    return {"html": html, "study": out}


def wait_drawn(page, selector: str) -> None:
    """Wait for the canvas to hold more than one colour (a drawn map, not a blank one). The map
    is drawn at the animation frame after the replay is ready, which a loaded machine delays:
    read once right after `ready`, the canvas was still blank in a CI run at load 8."""
    page.wait_for_function(
        """(sel) => {
          const c = document.querySelector(sel);
          const px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
          for (let i = 4; i < px.length; i += 4 * 97) {
            if (px[i] !== px[0] || px[i + 1] !== px[1] || px[i + 2] !== px[2]) return true;
          }
          return false;
        }""",
        arg=selector, timeout=20_000,
    )


def test_the_exported_file_plays_seeks_and_shows_turns_without_a_server(page, exported, shot):
    asked: list[str] = []
    page.route("http://**/*", lambda route: (asked.append(route.request.url), route.abort()))
    page.goto(exported["html"].as_uri())
    page.wait_for_function("window.__replay && window.__replay.ready", timeout=20_000)
    expect(page.locator("#loading")).to_be_hidden()
    wait_drawn(page, "#map")
    first = page.locator("#tick-readout").text_content()
    expect(page.locator("#export-note")).to_contain_text("need a server")
    expect(page.locator("#fork-open")).to_be_hidden()

    # A click late on the timeline seeks there: the readout follows.
    box = page.locator("#timeline").bounding_box()
    page.locator("#timeline").click(position={"x": box["width"] * 0.8, "y": box["height"] / 2})
    page.wait_for_function("window.__replay.ready && window.__replay.tick > 60", timeout=20_000)
    expect(page.locator("#tick-readout")).not_to_have_text(first)
    wait_drawn(page, "#map")

    # A far seek's keyframe, rebuilt in the page, is the one the server would send.
    library = ReplayLibrary([exported["study"]])
    try:
        meta = library.meta("demo")
        tick = meta["last_tick"] - 7
        ours = library.frame_at("demo", tick)
    finally:
        library.close()
    theirs = page.evaluate(f"fetch('/api/replays/demo/state?tick={tick}').then((r) => r.json())")
    assert theirs == json.loads(json.dumps(ours))
    page.evaluate(f"window.__replay.seek({tick})")
    page.wait_for_function(f"window.__replay.ready && window.__replay.tick === {tick}")
    expect(page.locator("#tick-readout")).to_contain_text(str(tick))

    # A model turn, opened from its mark on the timeline.
    page.wait_for_function("Object.keys(window.__replay.timeline.turns).length > 0", timeout=20_000)
    char = next(c["id"] for c in meta["characters"] if c["name"] == "forager-a")
    point = page.evaluate(f"window.__replay.timeline.turnPoint({char}, 2)")
    page.locator("#timeline").click(position={"x": point["x"], "y": point["y"]})
    library = ReplayLibrary([exported["study"]])
    try:
        full = library.turn("demo", char, 2)
    finally:
        library.close()
    assert full["tool_calls"], full
    expect(page.locator("#tab-turns")).to_contain_text(full["tool_calls"][0]["name"])
    page.wait_for_function(f"window.__replay.ui.tick === {full['tick_sent']}")
    shot(page, "exported-replay")
    assert asked == [], f"the exported page asked a server: {asked}"


def test_the_exported_file_has_the_why_tab(page, exported):
    asked: list[str] = []
    page.route("http://**/*", lambda route: (asked.append(route.request.url), route.abort()))
    page.goto(exported["html"].as_uri() + "?tab=why")
    page.wait_for_function("window.__replay && window.__replay.ready", timeout=20_000)
    expect(page.locator(".why-pick")).to_have_count(9, timeout=20_000)
    page.locator(".why-pick").first.click()
    expect(page.locator(".why-title")).to_be_visible()
    assert asked == [], f"the exported page asked a server: {asked}"
