"""Text that may enter the world: valid Unicode, encodable as UTF-8.

Python strings can hold lone surrogates (a JSON "\\ud800" decodes to one), which no UTF-8
writer accepts: one such `say` once poisoned a world's snapshot, its store and its replay. So
every text that enters the world is checked at its edge: an action's text is refused
(`valid`, the engine's `bad_text`), and text the world only records (an incident's detail, a
program's log or outcome) is repaired (`clean`, each lone surrogate replaced by U+FFFD).
"""

from __future__ import annotations

import re
from typing import Any

SURROGATE = re.compile("[\ud800-\udfff]")
MAX_DEPTH = 64  # plain data nested deeper than this is not walked (a program's outcome)


def valid(text: str) -> bool:
    """True when `text` encodes as UTF-8 (holds no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def first_invalid(text: str) -> int:
    """The index of the first lone surrogate in `text` (-1: none)."""
    found = SURROGATE.search(text)
    return -1 if found is None else found.start()


def clean(value: Any, depth: int = 0) -> Any:
    """`value` with every string (keys included) valid UTF-8; other values as they are."""
    if isinstance(value, str):
        return value if valid(value) else SURROGATE.sub("\ufffd", value)
    if depth >= MAX_DEPTH:
        return value
    if isinstance(value, dict):
        return {clean(k, depth + 1): clean(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(clean(v, depth + 1) for v in value)
    return value
