"""The built-in bots' numbers are the content's (issue 33): `strategy.py` copied the stations'
costs and the day's length, so a change to the content could silently break the planner. Those
now come from the content (asiworld.agents.bots.rulebook); what the plans still write by hand, the
station and materials of each craft, is held to the recipes here."""

from __future__ import annotations

import ast
from pathlib import Path

from asiworld.agents.bots import strategy
from asiworld.engine import load_content

CONTENT = load_content()


def crafts_written_in_the_plans() -> list[tuple[int, str, str, dict[str, int]]]:
    """(line, station, recipe, materials gathered first) of every `self._make(obs, items,
    STATION, RECIPE, {...})` with literal arguments."""
    found = []
    tree = ast.parse(Path(strategy.__file__).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and ast.unparse(node.func).endswith("._make")
                and len(node.args) >= 5 and isinstance(node.args[2], ast.Constant)
                and isinstance(node.args[3], ast.Constant)):
            needs = ast.literal_eval(node.args[4]) if isinstance(node.args[4], ast.Dict) else {}
            found.append((node.lineno, node.args[2].value, node.args[3].value, needs))
    return found


def test_the_stations_cost_what_the_content_says():
    for station, cost in strategy.COST.items():
        assert cost == CONTENT.structures[station]["cost"], station


def test_a_day_is_as_long_as_the_content_says():
    time = CONTENT.time
    assert strategy.DAY_TICKS == time.day_minutes * time.ticks_per_minute


def test_every_craft_in_the_plans_uses_its_recipes_station_and_materials():
    crafts = crafts_written_in_the_plans()
    assert len(crafts) >= 10  # the finder sees the plans' crafts
    for line, station, recipe, needs in crafts:
        known = CONTENT.recipes[recipe]
        assert station == known.station, (line, recipe)
        wrong = {item: n for item, n in needs.items() if known.inputs.get(item) != n}
        assert not wrong, (line, recipe, wrong, known.inputs)
