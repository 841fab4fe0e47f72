"""Every page's top bar (issue 21): it links to every page, /evaluation included, marks the page
shown (class `active`, aria-current), and carries the one connection indicator (its states are
checked in a browser: e2e/test_connection.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from asiworld.server import close_app, create_app

from tests.server.conftest import SMALL_WORLD

REPO = Path(__file__).resolve().parents[2]
PAGES = {
    "/": None,
    "/live": "Spectate",
    "/play": "Play",
    "/replays": "Replays",
    "/replay/three-configurations-30min": "Replays",
    "/evaluation": "Evaluation",
}


@pytest.fixture(scope="module")
def http():
    app = create_app({**SMALL_WORLD, "TESTING": True, "REPLAY_DIRS": [str(REPO / "replays")]})
    yield app.test_client()
    close_app(app)  # one app for the module: the `apps` fixture closes a test's


@pytest.mark.parametrize("path", PAGES)
def test_every_page_links_everywhere_and_marks_where_it_is(http, path):
    page = http.get(path)
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    nav = html[html.index("<nav"):html.index("</nav>")]
    links = dict(re.findall(r'<a href="([^"]+)"[^>]*>([^<]+)</a>', nav))
    assert links == {"/live": "Spectate", "/play": "Play", "/replays": "Replays",
                     "/evaluation": "Evaluation"}
    current = re.findall(r'<a href="[^"]+" class="active" aria-current="page">([^<]+)</a>', nav)
    assert current == ([PAGES[path]] if PAGES[path] else [])
    assert html.count('id="conn"') == 1
    assert '<div class="clock" id="clock"></div>' in html  # the clock no longer says connecting
