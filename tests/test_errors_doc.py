"""docs/errors.md lists the codes the project raises: its table is what `asiworld.errors_doc`
writes from the table of codes (app/engine/codes.py)."""

from __future__ import annotations

from pathlib import Path

from asiworld import errors_doc
from asiworld.engine import codes

PAGE = Path(__file__).resolve().parents[1] / "docs" / "errors.md"


def test_the_errors_page_is_the_table_of_codes():
    page = PAGE.read_text(encoding="utf-8")
    assert len(errors_doc.BLOCK.findall(page)) == 1
    assert errors_doc.render(page) == page, "run: python -m asiworld.errors_doc docs/errors.md"


def test_a_code_added_to_the_table_is_a_row_of_the_page(monkeypatch):
    table = {**codes.TABLE, "new_code": codes.Code("new_code", "what it means", (codes.API,), 418)}
    monkeypatch.setattr(codes, "TABLE", table)
    assert "| `new_code` | 418 | what it means | api |" in errors_doc.render(PAGE.read_text())
