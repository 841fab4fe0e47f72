"""E2E (issue 38, item 3): the timeline shows a window of the run. The + and - keys zoom about the
cursor, Shift+drag shows the range dragged over, a double-click (or 0) the whole run, and a
window the cursor leaves follows it; its ruler then reads that window's minutes. The model-turn
lane is coloured by each turn's outcome (ok, refused, failed, text only)."""

from __future__ import annotations

from playwright.sync_api import expect

from e2e.conftest import browser_page
from e2e.test_replay_model_turns import open_viewer


def window(page) -> list[int]:
    return page.evaluate("[window.__replay.timeline.from, window.__replay.timeline.to]")


def test_the_timeline_zooms_shows_a_range_and_follows_the_cursor(page, study_server, shot):
    open_viewer(page, study_server)
    first, last = page.evaluate("[window.__replay.timeline.first, window.__replay.timeline.last]")
    assert window(page) == [first, last]
    page.evaluate("window.__replay.seek(90)")
    page.keyboard.press("+")  # half the run, about the cursor
    a, b = window(page)
    assert b - a < last - first and a <= 90 <= b
    page.keyboard.press("+")
    narrower = window(page)
    assert narrower[1] - narrower[0] < b - a
    ruler = page.evaluate("window.__replay.timeline.ruler.map((r) => r[1])")
    assert ruler and all(":" in label for label in ruler)

    # Shift+drag over the plot: that range is shown
    page.keyboard.press("0")
    assert window(page) == [first, last]
    box = page.locator("#timeline").bounding_box()
    x0 = page.evaluate("window.__replay.timeline.xOf(40)")
    x1 = page.evaluate("window.__replay.timeline.xOf(160)")
    y = box["y"] + 30
    page.keyboard.down("Shift")
    page.mouse.move(box["x"] + x0, y)
    page.mouse.down()
    page.mouse.move(box["x"] + x1, y, steps=4)
    page.mouse.up()
    page.keyboard.up("Shift")
    a, b = window(page)
    assert abs(a - 40) <= 3 and abs(b - 160) <= 3, (a, b)
    shot(page, "timeline-range")

    # the cursor leaves the window: the window follows it
    page.evaluate(f"window.__replay.seek({last})")
    page.wait_for_function(f"window.__replay.timeline.to === {last}")
    a, b = window(page)
    assert b - a == 120  # the same span, moved

    page.locator("#timeline").dblclick(position={"x": x1, "y": 30})
    assert window(page) == [first, last]


def test_the_model_turn_lane_is_coloured_by_outcome(page, study_server):
    open_viewer(page, study_server)
    outcomes = page.evaluate("""Object.values(window.__replay.timeline.turns).flat()
        .map((t) => t.outcome)""")
    assert outcomes and set(outcomes) <= {"ok", "refused", "failed", "text-only"}
    colours = page.evaluate("""async () => (await import('/static/js/replay-timeline.js')).TURN_COLOURS""")
    assert len(set(colours.values())) == 4
    legend = page.locator("#legend-turns")
    expect(legend).to_contain_text("refused")
    expect(legend).to_contain_text("text only")


def test_at_4k_the_zoomed_ruler_and_rows_fit(browser, study_server):
    """3840×2160 at device scale 2: zoomed in, the ruler still reads its window."""
    with browser_page(browser, 3840, 2160, device_scale_factor=2) as page:
        open_viewer(page, study_server)
        page.evaluate("window.__replay.seek(60)")
        page.keyboard.press("+")
        a, b = window(page)
        assert a <= 60 <= b and b - a < page.evaluate("window.__replay.timeline.last")
        labels = page.evaluate("window.__replay.timeline.ruler.map((r) => r[1])")
        assert len(labels) >= 2
