"""E2E: the browser's applier (app/static/js/frames.js) turns the golden frames
(tests/golden/frames/) into the state they make, as the replay's applier does in Python
(tests/golden/test_golden_frames.py). The page is frames.js alone, served from the checkout by a
Playwright route: no server, no socket, the same file the live and replay pages import."""

from __future__ import annotations

import json

import pytest

from e2e.conftest import REPO

pytestmark = pytest.mark.e2e

ORIGIN = "http://frames.invalid"
FILES = {
    "/": ("text/html", "<!doctype html><title>frames</title>"),
    "/static/js/frames.js": (
        "text/javascript", (REPO / "app" / "static" / "js" / "frames.js").read_text("utf-8")),
}
GOLDEN = REPO / "tests" / "golden" / "frames"

# Apply every frame to a fresh WorldState and hand back what it holds, areas' tiles in base64.
APPLY = """async ({ keyframe, deltas }) => {
  const { WorldState } = await import("/static/js/frames.js");
  const state = new WorldState();
  const refused = [keyframe, ...deltas].filter((frame) => !state.applyFrame(frame));
  const base64 = (bytes) => btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(""));
  const areas = {};
  for (const [id, a] of Object.entries(state.areas)) {
    areas[id] = { kind: a.kind, tier: a.tier, w: a.w, h: a.h, tiles: base64(a.tiles) };
  }
  return {
    refused: refused.map((frame) => frame.tick), tick: state.tick, width: state.width,
    height: state.height, areas, entities: state.entities, structures: state.structures,
    loot: state.loot, time: state.time, legend: state.legend, events: state.events,
  };
}"""


def load(name: str):
    return json.loads((GOLDEN / name).read_text(encoding="utf-8"))


def what_the_browser_keeps(state: dict, events: list) -> dict:
    """The expected state as a WorldState holds it: areas without their id and darkness (the
    renderers do not read them), no seed or landmarks, the last frame's events."""
    keep = ("tick", "width", "height", "entities", "structures", "loot", "time", "legend")
    return {
        "refused": [],
        **{key: state[key] for key in keep},
        "areas": {id_: {k: area[k] for k in ("kind", "tier", "w", "h", "tiles")}
                  for id_, area in state["areas"].items()},
        "events": events,
    }


def test_frames_js_applied_to_the_golden_frames_gives_the_state_they_make(page):
    page.route(f"{ORIGIN}/**", lambda route: route.fulfill(
        content_type=FILES[route.request.url.removeprefix(ORIGIN)][0],
        body=FILES[route.request.url.removeprefix(ORIGIN)][1]))
    page.goto(f"{ORIGIN}/")
    keyframe, deltas, expected = load("keyframe.json"), load("deltas.json"), load("state.json")
    held = page.evaluate(APPLY, {"keyframe": keyframe, "deltas": deltas})
    assert held == what_the_browser_keeps(expected, deltas[-1]["events"])
