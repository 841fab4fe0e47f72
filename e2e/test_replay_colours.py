"""E2E (issue 21): a configuration has one colour, the palette's (app/static/palette.json), in the
replay viewer's timeline and charts as on the evaluation page and in the report figures; the
charts have a legend and a time axis; the timeline's ruler keeps its labels apart at 390 px."""

from __future__ import annotations

from itertools import pairwise

import pytest
from asiworld.evaluation.palette import colours

from e2e.conftest import RID, browser_page
from e2e.test_replay_inspector import api

pytestmark = pytest.mark.e2e


def css_rgb(hex_colour: str) -> str:
    h = hex_colour.lstrip("#")
    return f"rgb({int(h[0:2], 16)}, {int(h[2:4], 16)}, {int(h[4:6], 16)})"


def test_timeline_and_charts_draw_each_configuration_in_the_palettes_colour(replay_server, page):
    meta = api(replay_server, f"/api/replays/{RID}")
    labels = [c["label"] for c in meta["characters"]]
    want = colours(labels)
    page.goto(f"{replay_server['url']}/replay/{RID}")
    page.wait_for_function("window.__replay && window.__replay.ready", timeout=30_000)
    drawn = page.evaluate("({ timeline: window.__replay.timeline.colours, charts: window.__replay.charts.colours })")
    by_id = {str(c["id"]): want[c["label"]] for c in meta["characters"]}
    assert drawn == {"timeline": by_id, "charts": by_id}
    page.click("[data-panel='tab-charts']")
    legend = page.evaluate("""[...document.querySelectorAll('.chart-legend-item')].map((e) =>
        [e.dataset.configuration, getComputedStyle(e.querySelector('.swatch')).backgroundColor])""")
    assert dict(legend) == {label: css_rgb(want[label]) for label in labels}


def test_the_charts_and_the_ruler_mark_round_minutes(replay_server, page):
    page.goto(f"{replay_server['url']}/replay/{RID}")
    page.wait_for_function("window.__replay && window.__replay.ready", timeout=30_000)
    marks = page.evaluate("""import('/static/js/replay-timeline.js').then((m) =>
        [m.minuteTicks(0, 1800, 6), m.minuteTicks(0, 1800, 30), m.minuteTicks(0, 18000, 6), m.minuteTicks(90, 700, 6)])""")
    assert marks == [[0, 5, 10, 15, 20, 25, 30], list(range(31)), [0, 60, 120, 180, 240, 300], [2, 4, 6, 8, 10]]


def test_at_390_px_the_rulers_labels_stay_apart(replay_server, browser):
    with browser_page(browser, 390, 844) as page:
        page.goto(f"{replay_server['url']}/replay/{RID}")
        page.wait_for_function("window.__replay && window.__replay.ready", timeout=30_000)
        page.wait_for_function("(window.__replay.timeline.ruler || []).length > 1")
        ruler = page.evaluate("window.__replay.timeline.ruler")
        gaps = [b[0] - a[0] for a, b in pairwise(ruler)]
        assert min(gaps) >= 40, ruler
