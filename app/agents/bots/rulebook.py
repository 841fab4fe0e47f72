"""What the built-in bots read of the rules: the content, once per process, read-only.

The strategy's goals (asiworld.agents.bots.goals) name the stations and recipes they use; the
numbers (what a station costs and a recipe takes, the ingots of each piece, the merchant's
prices, how long a day is, the streak's days, the altar's distance) come from here, so a change
to the content's tables reaches them instead of silently breaking the planner.
`tests/agents/test_rulebook.py` holds the crafts the goals write to the content's recipes.
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


def inputs(recipe: str, *materials: str) -> dict[str, int]:
    """What `recipe` takes, in the content's order; only `materials` when named (what a plan
    gathers itself before the craft, the rest being made by an earlier step)."""
    needs = content().recipes[recipe].inputs
    return {m: int(n) for m, n in needs.items() if not materials or m in materials}


def ingots(piece: str) -> int:
    """Iron ingots a piece takes: a station's cost to place, else its recipe's."""
    structure = content().structures.get(piece)
    if structure is not None and "cost" in structure:
        return int(structure["cost"].get("iron_ingot", 0))
    return inputs(piece).get("iron_ingot", 0)


def price(item: str) -> int:
    """Coins the merchant asks for one `item`."""
    return int(content().raw["merchant"]["sells"][item])


def streak_days() -> int:
    """Days in a row without a knockdown that the Royal Tomb stage asks for."""
    return int(content().raw["achievements"]["thresholds"]["streak_days"])


def altar_distance() -> int:
    """Tiles from the plaza's centre to the Shadow King's altar."""
    return int(content().map.altar_distance)
