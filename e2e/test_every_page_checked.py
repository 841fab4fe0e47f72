"""Every page of the browser tests fails its test on an uncaught JavaScript error: pages are made
by the `page` fixture or `browser_page` (e2e/conftest.py), never by a context of a test's own
(seven tests made their own and checked nothing)."""

from __future__ import annotations

import re
from pathlib import Path

HERE = Path(__file__).parent


def test_no_browser_test_makes_a_context_of_its_own():
    own = {p.name for p in HERE.glob("*.py")
           if p.name != "conftest.py" and re.search(r"\.new_context\(", p.read_text())}
    assert own == set(), f"use browser_page (e2e/conftest.py) in {sorted(own)}"
