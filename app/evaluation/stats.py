"""Statistics across worlds: means with bootstrap intervals, success rates with Wilson
intervals, and paired differences against a reference configuration.

The unit of replication is the world (one seed, one run): the configurations of a study share
each world, so they are not independent samples. So:
- a configuration's value in a world is the mean over its characters there (clustered by world);
- intervals resample worlds (scipy.stats.bootstrap, percentile method, a fixed generator so a
  report is reproducible);
- a comparison with the reference takes the difference in each world both played, and reports
  the interval of the mean difference and a two-sided sign test over the worlds
  (scipy.stats.binomtest; ties are dropped, as the sign test does).

Fewer than MIN_WORLDS worlds is allowed but flagged: such intervals are wide and their coverage
is poor (docs/evaluation.md, "Across worlds").
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from asiworld.evaluation.longform import MEASURES, RATES


def _scipy() -> Any:
    """scipy.stats, imported at first use: it takes 0.5-2 s to import, and the server and the
    command line import this module (through the evaluation's tables) to start, not to
    aggregate across worlds."""
    from scipy import stats

    return stats

CONFIDENCE = 0.95
RESAMPLES = 9999
SEED = 0  # the bootstrap's generator: the same runs give the same intervals
MIN_WORLDS = 5

# (configuration, measure) -> run -> the configuration's mean over its characters in that run
Worlds = dict[tuple[str, str], dict[str, float]]


@dataclass(frozen=True)
class Estimate:
    """A configuration's measure across worlds. `kind` is "rate" (a yes/no measure: the share
    of worlds with a yes, Wilson interval) or "mean" (bootstrap interval of the mean). `low` and
    `high` are None with fewer than two worlds."""

    configuration: str
    measure: str
    kind: str
    worlds: int
    mean: float
    sd: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True)
class Paired:
    """`configuration` minus `reference`, world by world: the mean difference with its bootstrap
    interval, how many worlds it was ahead, behind or level, and the sign test's p-value."""

    configuration: str
    reference: str
    measure: str
    worlds: int
    mean_difference: float
    low: float | None
    high: float | None
    ahead: int
    behind: int
    level: int
    sign_p: float


ESTIMATE_COLUMNS = tuple(Estimate.__dataclass_fields__)
PAIRED_COLUMNS = tuple(Paired.__dataclass_fields__)


def per_world(rows: list[dict[str, Any]]) -> Worlds:
    """Long-format rows (longform.rows) averaged per (configuration, measure, run)."""
    sums: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        if row["value"] is not None:
            sums[(row["configuration"], row["measure"])][row["run"]].append(row["value"])
    return {key: {run: sum(v) / len(v) for run, v in runs.items()} for key, runs in sums.items()}


def configurations(rows: list[dict[str, Any]]) -> list[str]:
    """Configuration names in the order they first appear."""
    return list(dict.fromkeys(row["configuration"] for row in rows))


def bootstrap_means(data: np.ndarray, batch: int | None = None,
                    resamples: int = RESAMPLES) -> tuple[np.ndarray, np.ndarray]:
    """The percentile-bootstrap interval of the mean of each row of `data` (measures x worlds),
    all rows resampled with the same draws of worlds. `batch`: resamples drawn at a time, to
    bound the memory of many rows (rows x batch x worlds numbers; None: all at once)."""
    with warnings.catch_warnings():  # a constant row is a valid, degenerate interval
        warnings.simplefilter("ignore")
        result = _scipy().bootstrap((data,), np.mean, axis=-1, vectorized=True,
                                 confidence_level=CONFIDENCE, n_resamples=resamples,
                                 batch=batch, method="percentile",
                                 rng=np.random.default_rng(SEED))
    return result.confidence_interval.low, result.confidence_interval.high


def wilson(successes: int, trials: int) -> tuple[float, float]:
    ci = _scipy().binomtest(successes, trials).proportion_ci(CONFIDENCE, method="wilson")
    return float(ci.low), float(ci.high)


def ratio_interval(numerators: list[float], denominators: list[float]) -> tuple[float, float] | None:
    """The percentile-bootstrap interval, over worlds, of a pooled ratio sum(num) / sum(den)
    (clears per attempt, damage per clear): worlds are resampled whole, so the interval is
    about the same number the pooled bar shows. Worlds with a zero denominator say nothing
    of the ratio and are left out; None with fewer than two worlds left."""
    pairs = [(n, d) for n, d in zip(numerators, denominators, strict=True) if d > 0]
    if len(pairs) < 2:
        return None
    num, den = (np.array(x, dtype=float) for x in zip(*pairs, strict=True))

    def pooled(n: np.ndarray, d: np.ndarray, axis: int = -1) -> np.ndarray:
        return n.sum(axis=axis) / d.sum(axis=axis)

    with warnings.catch_warnings():  # worlds all alike give a valid, degenerate interval
        warnings.simplefilter("ignore")
        result = _scipy().bootstrap((num, den), pooled, paired=True, vectorized=True,
                                 confidence_level=CONFIDENCE, n_resamples=RESAMPLES,
                                 method="percentile", rng=np.random.default_rng(SEED))
    ci = result.confidence_interval
    return float(ci.low), float(ci.high)


def intervals(series: dict[Any, dict[str, float]], batch: int | None = None,
              resamples: int = RESAMPLES) -> dict[Any, tuple[float, float]]:
    """Bootstrap intervals for named series of values over worlds, batched by world count (a
    measure missing in some worlds, such as a task's minute, has its own sample). A name with
    fewer than two worlds has none."""
    by_runs: dict[tuple[str, ...], list[Any]] = defaultdict(list)
    for name, values in series.items():
        if len(values) >= 2:
            by_runs[tuple(sorted(values))].append(name)
    out = {}
    for runs, names in by_runs.items():
        data = np.array([[series[name][run] for run in runs] for name in names], dtype=float)
        low, high = bootstrap_means(data, batch, resamples)
        out.update({name: (float(lo), float(hi)) for name, lo, hi in zip(names, low, high, strict=True)})
    return out


def estimates(rows: list[dict[str, Any]]) -> list[Estimate]:
    """Every configuration's every measure across worlds, in MEASURES order."""
    worlds = per_world(rows)
    out = []
    for name in configurations(rows):
        mine = {m: worlds[(name, m)] for m in MEASURES if (name, m) in worlds}
        boot = intervals({m: v for m, v in mine.items() if not _is_rate(m, v)})
        for measure, values in mine.items():
            xs = np.array(list(values.values()), dtype=float)
            n = len(xs)
            sd = float(np.std(xs, ddof=1)) if n >= 2 else None
            if _is_rate(measure, values):
                low, high = wilson(int(xs.sum()), n) if n >= 2 else (None, None)
                kind = "rate"
            else:
                low, high = boot.get(measure, (None, None))
                kind = "mean"
            out.append(Estimate(name, measure, kind, n, float(xs.mean()), sd, low, high))
    return out


def _is_rate(measure: str, values: dict[str, float]) -> bool:
    # a yes/no measure whose per-world values are all 0 or 1 (one character per world); with
    # several characters a world's value is a share, and the bootstrap takes over
    return measure in RATES and all(v in (0.0, 1.0) for v in values.values())


def paired(rows: list[dict[str, Any]], reference: str) -> list[Paired]:
    """Each other configuration against `reference`, world by world, for every measure."""
    worlds = per_world(rows)
    out = []
    for name in configurations(rows):
        if name == reference:
            continue
        diffs = {}
        for measure in MEASURES:
            mine, theirs = worlds.get((name, measure), {}), worlds.get((reference, measure), {})
            both = sorted(set(mine) & set(theirs))
            if both:
                diffs[measure] = {run: mine[run] - theirs[run] for run in both}
        boot = intervals(diffs)
        for measure, values in diffs.items():
            d = np.array(list(values.values()), dtype=float)
            ahead, behind = int((d > 0).sum()), int((d < 0).sum())
            sign_p = _scipy().binomtest(ahead, ahead + behind).pvalue if ahead + behind else 1.0
            low, high = boot.get(measure, (None, None))
            out.append(Paired(name, reference, measure, len(d), float(d.mean()), low, high,
                              ahead, behind, len(d) - ahead - behind, float(sign_p)))
    return out


def table(records: list[Estimate] | list[Paired]) -> list[dict[str, Any]]:
    """Records as plain dicts (for JSON and CSV), NaN-free."""
    return [{k: (None if isinstance(v, float) and math.isnan(v) else v)
             for k, v in asdict(r).items()} for r in records]
