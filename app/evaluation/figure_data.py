"""The numbers the figures draw beyond the pooled counts: intervals across worlds for Figure 4's
bars, and Figure 6's per-minute means with their bands. No matplotlib here: these are tested
and written without drawing.

    dungeon_intervals(runs)   # name -> level -> {"share": (low, high), "damage": (low, high)}
    progress_lines(runs)      # configuration -> measure -> mean, low, high per minute
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
from asiworld.evaluation import progress, stats
from asiworld.evaluation.measures import LEVELS
from asiworld.evaluation.tables import names_in_order

Interval = tuple[float, float] | None
# Bands are drawn, not reported: 999 resamples place a 95% band well within a line's width, and
# every (configuration, measure, minute) of a long study is a row: 12 x 4 x 300 rows x 9999
# resamples held 1.3 GB and took 16 s. Rows go in chunks, resamples in batches of a fixed size
# (the draws do not depend on the chunking, so neither do the bands).
BAND_RESAMPLES = 999
BAND_BATCH = 111
BAND_NUMBERS = 2_000_000  # rows x batch x worlds held at once


def dungeon_intervals(runs: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, Interval]]]:
    """For each row and level, the interval over worlds of the pooled clear share (worlds where
    it tried the level) and of the pooled damage per clear (worlds where it cleared it): the
    bars stay the pooled numbers, the whiskers say how much they move from world to world.
    Empty for a single run."""
    if len(runs) < 2:
        return {}
    out: dict[str, dict[str, dict[str, Interval]]] = {}
    for name in names_in_order(runs):
        rows = [r for run in runs for r in run["configurations"] if r["name"] == name]
        out[name] = {}
        for lv in LEVELS:
            d = [row["dungeons"][str(lv)] for row in rows]
            attempts, clears = [x["attempts"] for x in d], [x["clears"] for x in d]
            share = stats.ratio_interval(clears, attempts)
            out[name][str(lv)] = {
                "share": None if share is None else (100 * share[0], 100 * share[1]),
                "damage": stats.ratio_interval([x["clear_damage"] for x in d], clears),
            }
    return out


def progress_lines(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Figure 6's data: per configuration and measure of progress.SERIES, the mean over worlds
    at each minute (a world's value: the mean over the configuration's characters there) and,
    from two worlds on, the bootstrap interval over worlds (BAND_RESAMPLES, every configuration,
    measure and minute resampled with the same draws). Outfit and Hero become shares of worlds in percent."""
    per_world: dict[tuple[str, str, int], dict[str, list[float]]] = defaultdict(
        lambda: defaultdict(list))
    labels: dict[str, str] = {}
    minutes: set[int] = set()
    for row in progress.rows(runs):
        labels.setdefault(row["configuration"], _label(runs, row))
        minutes.add(row["minute"])
        for measure in progress.SERIES:
            scale = 100.0 if measure in ("outfit", "hero") else 1.0
            per_world[(row["configuration"], measure, row["minute"])][row["run"]].append(
                scale * row[measure])
    series = {key: {run: sum(v) / len(v) for run, v in worlds.items()}
              for key, worlds in per_world.items()}
    varying = {key: v for key, v in series.items() if len(set(v.values())) > 1}
    worlds = len(runs)
    bands: dict[tuple[str, str, int], tuple[float, float]] = {}
    keys = list(varying) if worlds > 1 else []
    chunk = max(1, BAND_NUMBERS // (BAND_BATCH * worlds))
    for start in range(0, len(keys), chunk):
        bands.update(stats.intervals({k: varying[k] for k in keys[start : start + chunk]},
                                     batch=BAND_BATCH, resamples=BAND_RESAMPLES))  # fmt: skip
    timeline = sorted(minutes)
    lines: dict[str, Any] = {}
    for name, label in labels.items():
        lines[name] = {"label": label}
        for measure in progress.SERIES:
            mean, low, high = [], [], []
            for minute in timeline:
                values = series.get((name, measure, minute))
                m = float(np.mean(list(values.values()))) if values else float("nan")
                lo, hi = bands.get((name, measure, minute), (m, m))
                mean.append(m)
                low.append(lo if values and len(values) > 1 else float("nan"))
                high.append(hi if values and len(values) > 1 else float("nan"))
            lines[name][measure] = {"mean": mean, "low": low, "high": high}
    return {"minutes": timeline, "worlds": worlds, "lines": lines}


def _label(runs: list[dict[str, Any]], row: dict[str, Any]) -> str:
    run = runs[int(row["run"][1:]) - 1]
    for char in (run.get("progress") or {}).get("characters", []):
        if char["id"] == row["character"]:
            return char.get("label") or ""
    return ""
