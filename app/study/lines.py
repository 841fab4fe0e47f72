"""Where a key is written in a TOML text.

tomllib gives positions only for syntax errors, so a study file's checks find the line of a
key by reading the text again: table headers (`[world]`, `[[configuration]]`, counted per
array) set the current table, `key = value` lines add a key under it, and multi-line strings
are skipped. A location asks for a path such as ("configuration", 2, "model"); the answer is
the line of the longest part of that path written in the file (the table's header when the key
itself is missing), or None when not even its table is there.
"""

from __future__ import annotations

import re
from typing import Any

HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
KEY = re.compile(r"""^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=""")
PART = re.compile(r"""[A-Za-z0-9_-]+|"[^"]*"|'[^']*'""")


def _parts(dotted: str) -> list[str]:
    return [p.strip("\"'") for p in PART.findall(dotted)]


def key_lines(text: str) -> dict[tuple[Any, ...], int]:
    """Every table and key path written in `text` and its 1-based line."""
    found: dict[tuple[Any, ...], int] = {}
    arrays: dict[tuple[Any, ...], int] = {}
    table: tuple[Any, ...] = ()
    fence: str | None = None  # inside a multi-line string opened with this quote
    for number, line in enumerate(text.splitlines(), start=1):
        if fence is not None:
            if line.count(fence) % 2 == 1:
                fence = None
            continue
        header = HEADER.match(line)
        if header is not None and not KEY.match(line):
            path = tuple(_parts(header.group(2)))
            if header.group(1) == "[[":
                index = arrays.get(path, -1) + 1
                arrays[path] = index
                table = (*path, index)
            else:
                table = path
            found.setdefault(table, number)
            continue
        key = KEY.match(line)
        if key is None:
            continue
        found.setdefault((*table, *_parts(key.group(1))), number)
        rest = line[key.end():]
        for quote in ('"""', "'''"):
            if rest.count(quote) % 2 == 1:
                fence = quote
    return found


def locate(text: str, loc: tuple[Any, ...]) -> int | None:
    lines = key_lines(text)
    for end in range(len(loc), 0, -1):
        line = lines.get(tuple(loc[:end]))
        if line is not None:
            return line
    return None
