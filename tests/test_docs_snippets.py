"""Every ```python block of README.md and docs/*.md runs (tests/docs_snippets.py says how), the
SDK's against a real server on loopback; a page whose snippets no longer match the code fails
here with a traceback pointing at the page's line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from tests.docs_snippets import DOCUMENTED_URL, blocks
from tests.served import served

ROOT = Path(__file__).resolve().parents[1]
RUNNER = Path(__file__).with_name("docs_snippets.py")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
WITH_CODE = [page for page in PAGES if blocks(page)]


@pytest.fixture(scope="module")
def server_url():
    """A small real world served on loopback, ticking fast so programs end quickly."""
    with served({"SEED": 3, "WORLD_SIZE": 48, "SPEED": 50}) as server:
        yield server["url"]  # closed after: the program host the snippets started too


def test_the_pages_have_python_snippets_and_none_hides_under_another_fence():
    assert len(WITH_CODE) >= 6
    for page in PAGES:
        other = re.findall(r"^```(py|python3|pycon|ipython)\b", page.read_text(), re.M)
        assert other == [], f"{page.name}: fence these as ```python so they are run"


@pytest.mark.parametrize("page", WITH_CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_pages_python_snippets_run(page, server_url, tmp_path):
    spec = tmp_path / "page.json"
    found = [asdict(block) for block in blocks(page)]
    url = server_url if any(DOCUMENTED_URL in b["code"] for b in found) else DOCUMENTED_URL
    spec.write_text(json.dumps({"blocks": found, "url": url}))
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run(
        [sys.executable, str(RUNNER), str(spec)],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-4000:]
