"""Two runs' results side by side: per configuration name, each measure of run a, of run b and
the signed difference b - a, with which way is better. What /compare shows for two studies of
one seed (two prompts, two models); the numbers are results.json's, read and never recomputed.

    rows = side_by_side(results_a, results_b)
    # [{"name": "planner", "in": "both", "cells": [{"key": "score", "a": 25.0, "b": 8.3,
    #   "diff": -16.7, "better": "a"}, ...]}, {"name": "rusher", "in": "b", ...}]

Rows are matched by configuration name, as the evaluation matches runs (names are unique in a
results.json: two characters sharing one get `#id`). A configuration in one run only is listed
with `in` saying which, and no differences.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from asiworld.evaluation.phases import PHASES

Row = dict[str, Any]
Value = float | int | bool | None


@dataclass(frozen=True)
class Measure:
    key: str
    label: str
    group: str  # "score" (the report's main table), "behaviour" (its Behaviour section) or
    # "model" (a study's model costs)
    read: Callable[[Row], Value]
    better: str | None  # "higher", "lower", or None where neither is better (a phase share)
    unit: str = ""  # "share": a fraction shown as a percentage


def _measure(name: str) -> Callable[[Row], Value]:
    return lambda row: (row.get("measures") or {}).get(name)


def _tasks(row: Row) -> Value:
    m = row.get("measures") or {}
    if "outfit" not in m and "hero" not in m:
        return None
    return int(bool(m.get("outfit"))) + int(bool(m.get("hero")))


def _profile(read: Callable[[dict[str, Any]], Value]) -> Callable[[Row], Value]:
    def get(row: Row) -> Value:
        profile = row.get("profile")
        if not isinstance(profile, dict):  # an older results.json has none
            return None
        try:
            return read(profile)
        except (KeyError, TypeError):
            return None

    return get


def _cost(read: Callable[[dict[str, Any]], Value]) -> Callable[[Row], Value]:
    def get(row: Row) -> Value:
        cost = row.get("costs")
        if not isinstance(cost, dict) or cost.get("kind") == "builtin":
            return None  # a built-in agent asks no model
        return read(cost)

    return get


def _phase(phase: str) -> Callable[[Row], Value]:
    return _profile(lambda p: p["phases"][phase])


MEASURES: tuple[Measure, ...] = (
    Measure("score", "Score", "score", lambda r: r.get("score"), "higher"),
    Measure("tasks", "Tasks", "score", _tasks, "higher"),
    Measure("outfit", "Outfit", "score", _measure("outfit"), "higher"),
    Measure("hero", "Hero", "score", _measure("hero"), "higher"),
    Measure("trial", "Stages met", "score", _measure("trial"), "higher"),
    Measure("depth", "Depth", "score", _measure("depth"), "higher"),
    Measure("bosses", "Bosses", "score", _measure("bosses"), "higher"),
    Measure("kills", "Kills", "score", _measure("kills"), "higher"),
    Measure("crafts", "Crafts", "score", _measure("crafts"), "higher"),
    Measure("coins", "Coins", "score", _measure("coins"), "higher"),
    Measure("downs", "Knockdowns", "score", _measure("downs"), "lower"),
    Measure("damage_taken", "Damage taken", "score", _measure("damage_taken"), "lower"),
    Measure("supplies_used", "Supplies used", "score", _measure("supplies_used"), None),
    *(Measure(f"phase.{p}", f"Time in {p}", "behaviour", _phase(p), None, "share")
      for p in PHASES),
    Measure("clears", "Dungeon clears", "behaviour",
            _profile(lambda p: p["clears"]["all"]["clears"]), "higher"),
    Measure("downs_in_dungeons", "Knockdowns in dungeons", "behaviour",
            _profile(lambda p: sum(k.get("where") != "surface" for k in p["knockdowns"])),
            "lower"),
    Measure("refusals", "Refused actions", "behaviour",
            _profile(lambda p: sum(p["refusals"].values())), "lower"),
    # A study's language-model configurations: results.json's `costs`, by configuration.
    Measure("model_turns", "Model turns", "model", _cost(lambda c: c.get("turns")), None),
    Measure("model_failures", "Failed model calls", "model", _cost(lambda c: c.get("failures")),
            "lower"),
    Measure("tokens", "Tokens", "model",
            _cost(lambda c: (c.get("prompt_tokens") or 0) + (c.get("completion_tokens") or 0)
                  if "prompt_tokens" in c else None), None),
    Measure("dollars", "Dollars", "model", _cost(lambda c: c.get("dollars")), "lower"),
)


def _number(value: Value) -> float | None:
    if value is None:
        return None
    return float(value)  # a bool counts 1 for done, 0 for not


def cell(measure: Measure, a: Row | None, b: Row | None) -> dict[str, Any]:
    """One measure of a configuration: a's value, b's value, the signed difference b - a and
    which side it favours ("a", "b", None for level or for a measure where neither is better)."""
    va = measure.read(a) if a is not None else None
    vb = measure.read(b) if b is not None else None
    na, nb = _number(va), _number(vb)
    diff = None if na is None or nb is None else round(nb - na, 6)
    favours = None
    if diff and measure.better is not None:
        favours = "b" if (diff > 0) == (measure.better == "higher") else "a"
    return {"key": measure.key, "a": va, "b": vb, "diff": diff, "favours": favours}


def _rows(results: dict[str, Any]) -> dict[str, Row]:
    """name -> configuration row, each with its configuration's model costs (a study's
    results.json lists them apart, by configuration name) under `costs`."""
    costs = {c.get("name"): c for c in results.get("costs") or [] if isinstance(c, dict)}
    rows = {}
    for row in results.get("configurations") or []:
        if isinstance(row, dict) and "name" in row:
            cost = costs.get(row.get("label")) or costs.get(row["name"])
            rows[row["name"]] = {**row, "costs": cost} if cost else row
    return rows


def side_by_side(a: dict[str, Any], b: dict[str, Any],
                 pairs: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Every configuration of either run, a's order first, then b's others. `pairs` matches
    differently named ones, {name in a: name in b} (a prompt's configuration renamed in the
    second study); the caller checks each is a row of its side and b has no row of a's name."""
    rows_a, rows_b = _rows(a), _rows(b)
    named_b = {name: name for name in rows_b}
    for name_a, name_b in (pairs or {}).items():
        rows_b[name_a] = rows_b.pop(name_b)
        named_b[name_a] = named_b.pop(name_b)
    names = list(rows_a) + [n for n in rows_b if n not in rows_a]
    out = []
    for name in names:
        ra, rb = rows_a.get(name), rows_b.get(name)
        present = "both" if ra is not None and rb is not None else "a" if ra is not None else "b"
        out.append({
            "name": name,
            # each side's own name and configuration (they differ in a pair)
            "names": {"a": name if ra else None, "b": named_b.get(name) if rb else None},
            "labels": {"a": ra.get("label") if ra else None, "b": rb.get("label") if rb else None},
            "label": (ra or rb or {}).get("label"),
            "in": present,
            "char": {"a": ra.get("id") if ra else None, "b": rb.get("id") if rb else None},
            "cells": [cell(m, ra, rb) for m in MEASURES],
        })
    return out


def measures() -> list[dict[str, Any]]:
    """The columns, for a page: key, label, group, which way is better, unit."""
    return [{"key": m.key, "label": m.label, "group": m.group, "better": m.better,
             "unit": m.unit} for m in MEASURES]
