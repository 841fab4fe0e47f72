"""One colour per configuration, the same in every figure and in the browser.

The colours live in app/static/palette.json, which the evaluation page also reads (the server
passes it to the template): twelve colours that colour-blind readers tell apart too (the file
cites its sources). A configuration named there keeps its colour (unless its twin, a name of
the same colour listed before it, is in the same run); any other name takes a colour of the
cycle picked by a hash of its name, so it too is the same wherever it is drawn.
A character is drawn in its configuration's colour (`character_colours`: planner-1 and planner-2
are both the planner's blue), on the evaluation page, in the replay viewer and in the figures.
Two unnamed configurations that hash to one colour are told apart in name order, the rule that
the page never repeats: the server hands each row of the results it serves its colour
(`with_colours`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from asiworld.resources import PACKAGE_DIR

PALETTE_FILE = PACKAGE_DIR / "static" / "palette.json"


@lru_cache(maxsize=1)
def palette() -> dict[str, Any]:
    """The palette file as a dict (configurations, cycle, categories)."""
    return json.loads(PALETTE_FILE.read_text(encoding="utf-8"))


def name_hash(name: str) -> int:
    """A 32-bit hash of a name's UTF-16 code units (what JavaScript's charCodeAt gives)."""
    units = name.encode("utf-16-le")
    h = 0
    for i in range(0, len(units), 2):
        h = (h * 31 + int.from_bytes(units[i : i + 2], "little")) % 2**32
    return h


def colours(names: Iterable[str]) -> dict[str, str]:
    """A colour for each configuration name: named ones their own, others from the cycle, and
    no two alike while the cycle lasts (12 colours). Named ones go first, in the palette's
    order: one whose colour an earlier one took (two names share each of the last colours)
    takes the next free colour of the cycle after its own."""
    data = palette()
    fixed: dict[str, str] = data["configurations"]
    cycle: list[str] = data["cycle"]
    wanted = set(names)
    out: dict[str, str] = {}
    used: set[str] = set()

    def take(name: str, slot: int) -> None:
        candidate = cycle[slot % len(cycle)]
        for step in range(len(cycle)):  # the next free colour when two names meet
            candidate = cycle[(slot + step) % len(cycle)]
            if candidate not in used:
                break
        out[name] = candidate
        used.add(candidate)

    for name in (n for n in fixed if n in wanted):
        take(name, cycle.index(fixed[name]))
    for name in sorted(n for n in wanted if n not in fixed):
        take(name, name_hash(name) % len(cycle))
    return out


def character_colours(rows: Iterable[tuple[str, str | None]]) -> dict[str, str]:
    """Per character (a results row, a replay's character): its configuration's colour. `rows`
    are (name, label) pairs; a row without a label is a configuration of its own name. Two
    characters of one configuration share its colour, in the figures as in the browser."""
    configuration = {name: label or name for name, label in rows}
    picked = colours(configuration.values())
    return {name: picked[conf] for name, conf in configuration.items()}


def with_colours(results: dict[str, Any]) -> dict[str, Any]:
    """`results` with each configuration row's colour (`colour`), as the figures draw it: what
    the evaluation page draws its swatches and bars with, so the rule lives here alone."""
    rows = results.get("configurations") or []
    picked = character_colours((r["name"], r.get("label")) for r in rows)
    return {**results, "configurations": [{**r, "colour": picked[r["name"]]} for r in rows]}


def category_colours() -> dict[str, str]:
    return dict(palette()["categories"])


def phase_colours() -> dict[str, str]:
    """The phases' colours, the replay viewer's timeline's (Figure 7 draws with them)."""
    return dict(palette()["phases"])
