"""What the built-in bots read of the rules: the content, once per process, read-only.

The bots' plans (asiworld.agents.bots.strategy) name the stations and recipes they use; the numbers
(what a station costs, how long a day is) come from here, so a change to the content's tables
reaches them instead of silently breaking the planner. `tests/agents/test_rulebook.py` holds
the numbers the bots still write in their plans (what they gather before a craft) to the
content's recipes.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from asiworld.engine import load_content


@lru_cache(maxsize=1)
def content() -> Any:
    return load_content()


def station_costs(stations: tuple[str, ...]) -> dict[str, dict[str, int]]:
    """What each of `stations` costs to place, in its content's order of materials."""
    structures = content().structures
    return {name: dict(structures[name]["cost"]) for name in stations}


def day_ticks() -> int:
    time = content().time
    return int(time.day_minutes) * int(time.ticks_per_minute)
