"""Several runs summarised across worlds: the comparison's "Across worlds" section, its CSVs
(results.csv, aggregates.csv, paired.csv) and its part of comparison.json.

    agg = aggregate(runs, reference="planner")   # reference: None picks the best mean score
    agg.markdown()                               # the section of report.md
    agg.write(out_dir)                           # the three CSVs
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from asiworld.engine import codes
from asiworld.engine.errors import CodedError
from asiworld.evaluation import longform, stats

# The columns of the report's table: score, the two tasks, the curriculum, survival.
HEADLINE = (("score", "Score"), ("outfit", "Outfit"), ("hero", "Hero"), ("depth", "Depth"),
            ("trial", "Trial"), ("downs", "Downs"))  # fmt: skip


class AggregateError(CodedError):
    """Runs that cannot be summarised together; `code` is stable."""


@dataclass(frozen=True)
class Aggregate:
    rows: list[dict[str, Any]]
    estimates: list[stats.Estimate]
    paired: list[stats.Paired]
    reference: str
    worlds: int

    def estimate(self, configuration: str, measure: str) -> stats.Estimate | None:
        return next((e for e in self.estimates
                     if e.configuration == configuration and e.measure == measure), None)

    def difference(self, configuration: str, measure: str) -> stats.Paired | None:
        return next((p for p in self.paired
                     if p.configuration == configuration and p.measure == measure), None)

    def ranked(self) -> list[str]:
        """Configurations by mean score, best first (ties in the order they appeared)."""
        names = stats.configurations(self.rows)
        score = {e.configuration: e.mean for e in self.estimates if e.measure == "score"}
        return sorted(names, key=lambda n: -score.get(n, float("-inf")))

    def warning(self) -> str | None:
        if self.worlds >= stats.MIN_WORLDS:
            return None
        return (f"Only {self.worlds} world{'s' if self.worlds != 1 else ''}: intervals from fewer "
                f"than {stats.MIN_WORLDS} worlds are wide and unreliable; run more seeds.")

    def summary(self) -> dict[str, Any]:
        """comparison.json's part: the reference, the number of worlds, every estimate and
        paired difference, and the long-format rows."""
        return {"worlds": self.worlds, "reference": self.reference, "warning": self.warning(),
                "confidence": stats.CONFIDENCE, "resamples": stats.RESAMPLES,
                "aggregates": stats.table(self.estimates), "paired": stats.table(self.paired),
                "rows": self.rows}

    def write(self, out: Path) -> dict[str, Path]:
        paths = {"results_csv": out / "results.csv", "aggregates_csv": out / "aggregates.csv",
                 "paired_csv": out / "paired.csv"}
        paths["results_csv"].write_text(longform.csv_text(self.rows), encoding="utf-8")
        paths["aggregates_csv"].write_text(
            longform.csv_text(stats.table(self.estimates), stats.ESTIMATE_COLUMNS), "utf-8")
        paths["paired_csv"].write_text(
            longform.csv_text(stats.table(self.paired), stats.PAIRED_COLUMNS), "utf-8")
        return paths

    def markdown(self) -> str:
        header = ["Configuration", "Worlds", *(label for _, label in HEADLINE),
                  f"Δ score vs {self.reference}", "Ahead/behind/level", "Sign test p"]
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        for name in self.ranked():
            cells = [name, str(self.worlds_of(name))]
            cells += [estimate_cell(self.estimate(name, m)) for m, _ in HEADLINE]
            diff = self.difference(name, "score")
            if diff is None:
                cells += ["(reference)", "", ""]
            else:
                cells += [interval_cell(diff.mean_difference, diff.low, diff.high, signed=True),
                          f"{diff.ahead}/{diff.behind}/{diff.level}", f"{diff.sign_p:.3g}"]
            lines.append("| " + " | ".join(cells) + " |")
        parts = [
            "## Across worlds",
            f"Means over {self.worlds} worlds (one per seed) with {stats.CONFIDENCE:.0%} "
            "intervals: bootstrap over worlds, each configuration averaged within a world first; "
            "Outfit and Hero are success rates with Wilson intervals. Δ score is each "
            f"configuration minus {self.reference} in the same world, with its bootstrap "
            "interval and a two-sided sign test over the worlds (ties dropped). Every measure "
            "is in [aggregates.csv](aggregates.csv) and [paired.csv](paired.csv); one row per "
            "run, configuration and measure in [results.csv](results.csv).",
        ]
        if self.warning():
            parts.append(f"**Warning:** {self.warning()}")
        parts.append("\n".join(lines))
        return "\n\n".join(parts)

    def worlds_of(self, name: str) -> int:
        e = self.estimate(name, "score")
        return e.worlds if e else 0


def interval_cell(mean: float, low: float | None, high: float | None, signed: bool = False,
                   percent: bool = False) -> str:
    def fmt(v: float) -> str:
        v = 100 * v if percent else v
        return (f"{v:+.1f}" if signed else f"{v:.1f}") + ("%" if percent else "")

    if low is None or high is None:
        return fmt(mean)
    return f"{fmt(mean)} [{fmt(low)}, {fmt(high)}]"


def estimate_cell(e: stats.Estimate | None) -> str:
    if e is None:
        return "–"
    return interval_cell(e.mean, e.low, e.high, percent=e.kind == "rate")


def aggregate(runs: list[dict[str, Any]], reference: str | None = None) -> Aggregate:
    """The statistics of `runs` (one results dict per world). `reference`: the configuration
    the others are compared with; None takes the one with the best mean score."""
    rows = longform.rows(runs)
    estimates = stats.estimates(rows)
    names = stats.configurations(rows)
    if reference is None:
        score = {e.configuration: e.mean for e in estimates if e.measure == "score"}
        reference = max(names, key=lambda n: score.get(n, float("-inf"))) if names else ""
    elif reference not in names:
        raise AggregateError(codes.UNKNOWN_REFERENCE,
                             f"--reference {reference!r} is not a configuration of these runs "
                             f"({', '.join(names)})")
    return Aggregate(rows, estimates, stats.paired(rows, reference), reference, len(runs))


def differences(runs: list[dict[str, Any]]) -> list[str]:
    """What makes runs not comparable as repeats of one setting: the horizon, the content (the
    rules and numbers of the game) or the clock. Each difference as a sentence."""
    def horizon(run: dict[str, Any]) -> str:
        meta = run.get("meta", {})
        return f"{meta.get('minutes', '?')} minutes"

    def content(run: dict[str, Any]) -> str:
        return str(run.get("meta", {}).get("content_hash", "unknown"))

    def clock(run: dict[str, Any]) -> str:
        meta = run.get("meta", {})
        if meta.get("clock"):
            return str(meta["clock"])
        return f"headless lockstep, {meta.get('think_ticks', '?')} ticks per decision"

    found = []
    for what, read in (("horizon", horizon), ("content hash", content), ("clock", clock)):
        values = [read(r) for r in runs]
        if len(set(values)) > 1:
            found.append(f"{what}: " + ", ".join(f"E{i + 1} {v}" for i, v in enumerate(values)))
    return found
