"""docs/rules.md is the rules as the content files have them: its tables are what
`asiworld.rules_doc` writes from app/engine/content/*.toml, and its prose quotes no number of its
own (a number outside the tables would be one the content does not check)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from asiworld import rules_doc

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "rules.md"


def test_the_rules_page_tables_are_the_contents_numbers():
    page = PAGE.read_text(encoding="utf-8")
    assert rules_doc.render(page) == page, "run: python -m asiworld.rules_doc docs/rules.md"
    names = [m["name"] for m in rules_doc.BLOCK.finditer(page)]
    assert sorted(names) == sorted(rules_doc.TABLES)  # every table is on the page, once


def test_the_rules_prose_has_no_numbers_of_its_own():
    prose = rules_doc.prose(PAGE.read_text(encoding="utf-8"))
    assert re.findall(r"\d", prose) == []


def test_a_changed_content_number_shows_in_the_page(monkeypatch):
    real = rules_doc.content()
    real["world"]["character"]["max_health"] = 12345
    monkeypatch.setattr(rules_doc, "content", lambda: real)
    assert "| `character.max_health` | 12345 |" in rules_doc.render(PAGE.read_text())


def test_nothing_in_the_repository_points_outside_it():
    found = subprocess.run(
        # the pattern is built so that this file does not match it
        ["git", "grep", "-n", "-E", "shared" + "/design|[.][.]/" + "shared"],
        cwd=REPO, capture_output=True, text=True,
    )
    assert found.stdout == "", found.stdout


def test_every_setting_on_the_page_says_what_it_means():
    """A setting shown by its raw name alone tells a player nothing: each row's meaning is its
    content file's comment, so a new setting without one fails here."""
    page = PAGE.read_text(encoding="utf-8")
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    assert len(rows) > 60
    unexplained = [row.split("|")[1].strip() for row in rows if row.split("|")[3].strip() == ""]
    assert unexplained == []


def test_a_settings_meaning_is_its_comment_in_the_content_file():
    said = rules_doc.meanings("world")
    assert said["character.hunger_interval"] == "hunger falls 1 each this many ticks"
    assert said["map.size"] == "default width and height"
