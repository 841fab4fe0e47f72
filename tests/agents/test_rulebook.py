"""The built-in bots' numbers are the content's (issue 33): the strategy copied the stations'
costs, the day's length, the ingots each piece takes, the merchant's prices, the streak's days,
the altar's distance and what each craft takes, so a change to the content could silently break
the planner. They now come from the content (asiworld.agents.bots.rulebook); what the goals
still write by hand, the station of each craft, is held to the recipes here, and no craft
names its materials as numbers of its own."""

from __future__ import annotations

import ast
from pathlib import Path

from asiworld.agents.bots import character, moves, strategy
from asiworld.agents.bots.goals import altar, iron, supplies
from asiworld.engine import load_content

CONTENT = load_content()
BOTS = Path(strategy.__file__).parent
PLANS = [BOTS / "strategy.py", BOTS / "moves.py", BOTS / "skills.py",
         *sorted((BOTS / "goals").glob("*.py"))]


def crafts_written_in_the_plans() -> list[tuple[str, str, str, ast.expr]]:
    """(where, station, recipe, what it gathers first) of every `.make(obs, items, STATION,
    RECIPE, NEEDS)` and the house's `craft(STATION, RECIPE, NEEDS, count)` whose station and
    recipe are written out."""
    found = []
    for path in PLANS:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = ast.unparse(node.func)
            first = 2 if func.endswith(".make") else 0 if func == "craft" else None
            if (first is not None and len(node.args) >= first + 3
                    and isinstance(node.args[first], ast.Constant)
                    and isinstance(node.args[first + 1], ast.Constant)):
                where = f"{path.name}:{node.lineno}"
                station, recipe = node.args[first].value, node.args[first + 1].value
                found.append((where, station, recipe, node.args[first + 2]))
    return found


def test_the_stations_cost_what_the_content_says():
    for station, cost in moves.COST.items():
        assert cost == CONTENT.structures[station]["cost"], station


def test_a_day_is_as_long_as_the_content_says():
    time = CONTENT.time
    assert character.DAY_TICKS == time.day_minutes * time.ticks_per_minute


def test_ingots_prices_the_streak_and_the_altar_are_the_contents():
    assert iron.INGOTS["anvil"] == CONTENT.structures["anvil"]["cost"]["iron_ingot"]
    assert iron.INGOTS["iron_armor"] == CONTENT.recipes["iron_armor"].inputs["iron_ingot"]
    sells = CONTENT.raw["merchant"]["sells"]
    assert character.OUTFIT_PRICE == sells["travel_outfit_design"]
    assert (supplies.TORCH_PRICE, supplies.POTION_PRICE) == (sells["torch"], sells["healing_potion"])
    assert character.STREAK_DAYS == CONTENT.raw["achievements"]["thresholds"]["streak_days"]
    assert altar.ALTAR_DISTANCE == CONTENT.map.altar_distance


def test_every_craft_in_the_plans_uses_its_recipes_station_and_reads_its_materials():
    crafts = crafts_written_in_the_plans()
    assert len(crafts) >= 10  # the finder sees the plans' crafts
    for where, station, recipe, needs in crafts:
        assert station == CONTENT.recipes[recipe].station, (where, recipe)
        # {} (made by an earlier step), or the recipe's own inputs read from the rulebook
        numbers = [n for n in ast.walk(needs)
                   if isinstance(n, ast.Constant) and isinstance(n.value, int)]
        assert not numbers, (where, recipe, ast.unparse(needs))
        if isinstance(needs, ast.Call):
            assert ast.unparse(needs.func) == "inputs", (where, ast.unparse(needs))
            assert ast.literal_eval(needs.args[0]) == recipe, (where, ast.unparse(needs))
