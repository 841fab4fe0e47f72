"""The README and the pages of docs/ hold together for a newcomer: every relative link leads to a
file that exists, and the README stays a short guide (under 250 lines, no commit or state
hashes: figures and their history live in docs/benchmarks.md and CHANGELOG.md).

Only reads the checkout; the checks of the checks write into pytest's tmp_path."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
README_MAX_LINES = 250

FENCED_CODE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
INLINE_CODE = re.compile(r"`[^`\n]*`")
# [text](target) or ![alt](target), the target optionally in <...> and followed by a "title"
LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")  # http:, https:, mailto:, ...
# A word of 7 to 40 hex digits, at least one of them a digit: a commit or a state hash (a commit
# may be all digits; the README writes large numbers as 1,000,000, and "defaced" is a word).
HASH_LIKE = re.compile(r"\b(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b", re.I)


def prose(text: str) -> str:
    """The text a reader follows links in: code blocks and code spans taken out."""
    return INLINE_CODE.sub("", FENCED_CODE.sub("", text))


def relative_links(text: str) -> list[str]:
    """Every link target that names a file of the checkout (not a URL, not a pure #anchor)."""
    targets = [match.group(1) for match in LINK.finditer(prose(text))]
    return [t for t in targets if not SCHEME.match(t) and not t.startswith("#")]


def dead_links(page: Path) -> list[str]:
    """The relative links of a page that lead nowhere, resolved from the page's own folder."""
    dead = []
    for target in relative_links(page.read_text(encoding="utf-8")):
        path = unquote(target.split("#", 1)[0])
        if not (page.parent / path).exists():
            dead.append(target)
    return dead


def hash_like_words(text: str) -> list[str]:
    return HASH_LIKE.findall(text)


def name(page: Path) -> str:
    return str(page.relative_to(ROOT))


@pytest.mark.parametrize("page", PAGES, ids=name)
def test_every_relative_link_of_a_page_leads_to_a_file_that_exists(page):
    assert dead_links(page) == [], f"{name(page)} links to files that do not exist"


def test_the_readme_is_under_250_lines():
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines < README_MAX_LINES, (
        f"README.md has {lines} lines: move detail to a page of docs/ and link it"
    )


def test_the_readme_holds_no_commit_or_state_hashes():
    found = hash_like_words(README.read_text(encoding="utf-8"))
    assert found == [], (
        f"README.md names hashes {found}: figures go to docs/benchmarks.md, history to CHANGELOG.md"
    )


# The checks of the checks: each rule catches what it is there to catch.


def test_a_link_to_a_missing_file_is_dead_and_links_that_are_not_files_are_left_alone(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "here.md").write_text("# Here\n")
    page = tmp_path / "README.md"
    page.write_text(
        "See [here](docs/here.md), [a part](docs/here.md#here), [gone](docs/gone.md),\n"
        "[gone too](docs/gone.md#part), ![a picture](img/missing.png),\n"
        "[the web](https://example.org/x.md), [mail](mailto:a@b.c), [above](#here),\n"
        "`[in code](docs/code.md)` and\n\n```\n[in a block](docs/block.md)\n```\n"
    )
    assert dead_links(page) == ["docs/gone.md", "docs/gone.md#part", "img/missing.png"]


def test_a_link_is_resolved_from_the_folder_of_the_page_that_holds_it(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text("# Rules\n")
    page = tmp_path / "docs" / "guide.md"
    page.write_text("[rules](rules.md), [the same, wrongly](docs/rules.md), [up](../docs/rules.md)\n")
    assert dead_links(page) == ["docs/rules.md"]


def test_commit_and_state_hashes_are_found_but_numbers_and_words_are_not():
    text = (
        "measured at 1761733, at d641997, state hash `84a04177f06f2b796b6058b053610464`, "
        "ecf5222f… before; 1,000,000 ticks, 30.2 s, a defaced wall, sha256, 2026-12-02, 128 × 128"
    )
    assert hash_like_words(text) == [
        "1761733", "d641997", "84a04177f06f2b796b6058b053610464", "ecf5222f",
    ]
