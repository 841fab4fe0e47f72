"""E2E: /live's list of characters works from the keyboard. A spectator tabs to a character,
presses Enter and follows it, as a click on its row does; the list is written again several
times a second, and the focus stays on the character it was on; with characters listed the page
has no serious accessibility violation, on a phone too."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from e2e.conftest import browser_page
from e2e.test_pages_accessibility import AXE, SCAN

pytestmark = pytest.mark.e2e


NAMES = ("ada", "brook", "cyril", "dana", "ezra", "fern", "gale", "hugo")


@pytest.fixture(scope="module")
def crowded(live_server):
    # Enough of them that the sidebar is taller than the screen and scrolls.
    for name in NAMES:
        live_server["runner"].add_character(name, label="test")
    return live_server


def focused_text(page) -> str:
    """What the focused control says ('' with nothing focused: the body holds every word)."""
    return page.evaluate("""() => { const e = document.activeElement;
      return e && e !== document.body ? e.textContent : ''; }""")


def test_a_spectator_follows_a_character_with_the_tab_and_enter_keys(crowded, page):
    page.goto(crowded["url"] + "/live")
    expect(page.locator("#characters li", has_text="brook")).to_have_count(1)
    for _ in range(80):
        page.keyboard.press("Tab")
        if "brook" in focused_text(page):
            break
    assert "brook" in focused_text(page), "the Tab key never reached brook's row"
    page.keyboard.press("Enter")
    expect(page.locator("#follow-badge")).to_contain_text("following brook")
    expect(page.locator("#characters li.selected")).to_contain_text("brook")
    # The list is written again as frames come (several a second): the focus stays on brook.
    tick = page.evaluate("window.__asiworld.state.tick")
    page.wait_for_function(f"window.__asiworld.state.tick >= {tick + 20}", timeout=20_000)
    assert "brook" in focused_text(page)


@pytest.mark.parametrize("width", [1280, 390])
def test_the_live_page_with_characters_has_no_serious_violation(crowded, browser, width):
    with browser_page(browser, width, 800) as page:
        page.goto(crowded["url"] + "/live")
        expect(page.locator("#characters li")).to_have_count(len(NAMES))
        assert page.evaluate("(() => { const s = document.getElementById('side');"
                             " return s.scrollHeight > s.clientHeight; })()")
        page.add_script_tag(path=str(AXE))
        assert page.evaluate(SCAN) == []
