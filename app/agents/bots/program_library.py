"""Programs the built-in configurations hand over to be hosted (sources in app/agents/bots/programs/,
plain files in the restricted program language of docs/programs.md)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

FOLDER = Path(__file__).with_name("programs")


def names() -> list[str]:
    return sorted(p.stem for p in FOLDER.glob("*.py"))


@cache
def source(name: str) -> str:
    """A program's source text; KeyError for a name the library does not have."""
    if name not in names():
        raise KeyError(f"there is no built-in program {name!r}; there are {', '.join(names())}")
    return (FOLDER / f"{name}.py").read_text(encoding="utf-8")
