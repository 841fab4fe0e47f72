"""Results in long format: one numeric row per (run, configuration, measure).

This is the file a researcher loads into pandas or R (`results.csv`, and `rows` in
results.json / comparison.json). Columns (docs/evaluation.md, "Long-format data"):

    run            E1, E2, ... (the order the runs were given); E1 for a single run
    seed           the world's seed
    configuration  the configuration's name (a character's name without its "#id")
    character      the character's id in that world
    measure        one of MEASURES' names (dotted: contribution.hero, stage.3, ...)
    value          a number: counts and scores as they are, yes/no as 1/0, minutes as minutes;
                   empty when the measure has no value (a task's minute when it was never done)

Several characters of one configuration in one world are several rows with the same run and
configuration: the statistics (stats.py) average them per world before comparing worlds.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from typing import Any

from asiworld.evaluation.achievements import STAGE_NAMES
from asiworld.evaluation.measures import CATEGORIES, LEVELS
from asiworld.evaluation.phases import PHASES
from asiworld.evaluation.profile import REFUSAL_CODES, refusal_measure
from asiworld.evaluation.score import COMPONENTS

Results = dict[str, Any]
Row = dict[str, Any]
COLUMNS = ("run", "seed", "configuration", "character", "measure", "value")


def _minutes(tick: Any) -> float | None:
    return None if tick is None else tick / 60


def _measure(key: str) -> Callable[[Row], Any]:
    return lambda r: r["measures"][key]


def _cost(key: str) -> Callable[[Row], Any]:
    return lambda r: (r.get("_cost") or {}).get(key)


def _profile(read: Callable[[dict[str, Any]], Any]) -> Callable[[Row], Any]:
    return lambda r: read(r["profile"])


def _downs(where: Callable[[dict[str, Any]], bool]) -> Callable[[Row], Any]:
    return _profile(lambda p: sum(1 for k in p["knockdowns"] if where(k)))


# name -> how it is read from a configuration's row of results.json. Order is the CSV's order.
MEASURES: dict[str, Callable[[Row], Any]] = {
    "score": lambda r: r["score"],
    **{f"contribution.{c.key}": (lambda r, c=c.key: r["contributions"][c]) for c in COMPONENTS},
    "outfit": _measure("outfit"),
    "outfit_minute": lambda r: _minutes(r["measures"]["outfit_tick"]),
    "hero": _measure("hero"),
    "hero_minute": lambda r: _minutes(r["measures"]["hero_tick"]),
    **{k: _measure(k) for k in ("depth", "kills", "bosses", "crafts", "coins", "trial", "downs",
                                "days", "damage_taken", "supplies_used")},
    **{f"stage.{i + 1}": (lambda r, i=i: r["achievements"]["stages"][i]["met"])
       for i in range(len(STAGE_NAMES))},
    **{f"stage.{i + 1}_minute": (lambda r, i=i: _minutes(r["achievements"]["stages"][i]["tick"]))
       for i in range(len(STAGE_NAMES))},
    **{f"actions.{c}": (lambda r, c=c: r["actions"].get(c, 0)) for c in CATEGORIES},
    **{f"dungeon.{lv}.{k}": (lambda r, lv=lv, k=k: r["dungeons"][str(lv)][k])
       for lv in LEVELS for k in ("attempts", "clears", "clear_damage")},
    # a seat's costs (a study's "costs"): model seats; calls and failures of external
    # seats (agent-API calls) and python agents (decide() calls); empty for built-ins
    "cost.calls": _cost("calls"),
    "cost.prompt_tokens": _cost("prompt_tokens"),
    "cost.completion_tokens": _cost("completion_tokens"),
    "cost.dollars": _cost("dollars"),
    "cost.failures": _cost("failures"),
    # the behaviour profile (profile.py): phase shares, clear costs, knockdowns, refusals
    **{f"phase.{ph}": _profile(lambda p, ph=ph: p["phases"][ph]) for ph in PHASES},
    **{f"clear.{k}": _profile(lambda p, k=k: p["clears"]["all"][k]) for k in ("damage", "supplies")},
    **{f"clear.{lv}.{k}": _profile(lambda p, lv=lv, k=k: p["clears"][str(lv)][k])
       for lv in LEVELS for k in ("damage", "supplies")},
    "downs.dungeon": _downs(lambda k: k["where"] != "surface"),
    "downs.night": _downs(lambda k: k["daytime"] == "night"),
    "downs.hunger": _downs(lambda k: (k["last_damage"] or {}).get("source") == "hunger"),
    "refusals": _profile(lambda p: sum(p["refusals"].values())),
    **{f"refusals.{c}": _profile(lambda p, c=c: refusal_measure(p, c))
       for c in (*REFUSAL_CODES, "other")},
}  # fmt: skip
# Measures that are yes/no: their mean over worlds is a success rate (Wilson intervals).
RATES = frozenset({"outfit", "hero", *(f"stage.{i + 1}" for i in range(len(STAGE_NAMES)))})


def configuration_name(row: Row) -> str:
    """A configuration's name: results add "#id" to tell apart characters sharing a name."""
    name, suffix = str(row["name"]), f"#{row.get('id')}"
    return name[: -len(suffix)] if name.endswith(suffix) else name


def _number(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    return float(value)


def _costs_by_name(run: Results) -> dict[str, dict[str, Any]]:
    """The seats that call something: model seats, external seats (their agent-API calls, also
    in a results.json that kept them as `api_calls` only) and python agents; not built-ins."""
    rows = {}
    for c in run.get("costs") or []:
        if c.get("calls") is None or c.get("kind") == "builtin":
            continue
        if c.get("kind") in ("external", "human") and "api_calls" in c:
            c = {**c, "calls": c["api_calls"]}
        rows[str(c.get("name"))] = c
    return rows


def rows(runs: list[Results]) -> list[dict[str, Any]]:
    """Every (run, configuration, measure) of `runs` as one row with the COLUMNS."""
    return list(_rows(runs))


def _rows(runs: list[Results]) -> Iterator[dict[str, Any]]:
    for index, run in enumerate(runs):
        tag, seed = f"E{index + 1}", run.get("meta", {}).get("seed", run.get("seed"))
        costs = _costs_by_name(run)
        for row in run["configurations"]:
            name = configuration_name(row)
            row = {**row, "_cost": costs.get(name) or costs.get(str(row["name"]))}
            for measure, read in MEASURES.items():
                try:
                    value = _number(read(row))
                except (KeyError, IndexError, TypeError):  # an older results.json
                    value = None
                yield {"run": tag, "seed": seed, "configuration": name,
                       "character": row.get("id"), "measure": measure, "value": value}


def csv_text(table: list[dict[str, Any]], columns: tuple[str, ...] = COLUMNS) -> str:
    """Rows as CSV; None is an empty cell, floats are written as Python writes them."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in table:
        writer.writerow(["" if row[c] is None else row[c] for c in columns])
    return out.getvalue()
