"""How long the statistics of a large comparison take: 20 worlds of the nine-configuration cohort
over 300 minutes, through what compare_runs writes but the figures (aggregate.aggregate, the
CSVs, the LaTeX tables, report.md and comparison.json), then the leaderboard's reading of it
(the schema check and the ranking).

The worlds are not played: one real short run of the cohort is perturbed, seed by seed (a seeded
generator), into results shaped like 300-minute ones: scores, tasks, stages and their minutes,
counts, actions and dungeons. Target: under 10 s for the comparison's statistics.

Run: python benchmarks/bench_aggregate.py [--seeds 20] [--minutes 300]
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from asiworld import provenance  # noqa: E402
from asiworld.agents.bots.builtin import COHORT  # noqa: E402
from asiworld.evaluation import latex, leaderboard, tables  # noqa: E402
from asiworld.evaluation.aggregate import aggregate  # noqa: E402
from asiworld.headless.run import Run, RunConfig  # noqa: E402


def clock() -> tuple[float, float]:
    """Wall and CPU seconds (the machine is shared: CPU time says what the work costs)."""
    return time.perf_counter(), time.process_time()


def since(start: tuple[float, float]) -> tuple[float, float]:
    wall, cpu = clock()
    return wall - start[0], cpu - start[1]


def perturbed(base: dict, seed: int, minutes: int) -> dict:
    """`base` as if seed `seed` had been played for `minutes`: every number it reports redrawn."""
    rng = random.Random(seed)
    run = copy.deepcopy(base)
    ticks = minutes * 60
    run["meta"].update(seed=seed, minutes=minutes, ticks=ticks)
    run["tick"] = ticks - 1
    for row in run["configurations"]:
        m = row["measures"]
        for key in ("kills", "crafts", "coins", "downs", "damage_taken", "supplies_used"):
            m[key] = rng.randint(0, 60)
        m["bosses"], m["depth"] = rng.randint(0, 4), rng.randint(0, 4)
        m["outfit"], m["hero"] = rng.random() < 0.6, rng.random() < 0.2
        m["outfit_tick"] = rng.randrange(ticks) if m["outfit"] else None
        m["hero_tick"] = rng.randrange(ticks) if m["hero"] else None
        m["days"] = rng.uniform(0, minutes / 30)
        stages = row["achievements"]["stages"]
        for stage in stages:
            stage["met"] = rng.random() < 0.5
            stage["tick"] = rng.randrange(ticks) if stage["met"] else None
        trial = next((i for i, s in enumerate(stages) if not s["met"]), len(stages))
        row["achievements"]["trial"] = m["trial"] = trial
        row["contributions"] = {k: rng.uniform(0, 20) for k in row["contributions"]}
        row["score"] = m["score"] = sum(row["contributions"].values())
        row["score_shown"] = tables.tenth(row["score"])
        row["actions"] = {k: rng.randint(0, 3000) for k in row["actions"]}
        for level in row["dungeons"].values():
            level["attempts"] = rng.randint(0, 10)
            level["clears"] = rng.randint(0, level["attempts"])
            level["clear_damage"] = rng.randint(0, 200) if level["clears"] else 0
    ranked = sorted(run["configurations"], key=lambda r: -r["score"])
    for rank, row in enumerate(ranked, start=1):
        row["rank"] = rank
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--minutes", type=int, default=300)
    args = parser.parse_args()
    base = Run(RunConfig(seed=1, minutes=5, agents=list(COHORT))).run()
    base.pop("rows", None)
    runs = [perturbed(base, seed, args.minutes) for seed in range(1, args.seeds + 1)]
    print(f"{args.seeds} worlds x {len(base['configurations'])} configurations, "
          f"{args.minutes} minutes (perturbed from a real 5-minute run)")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        (out / "tables").mkdir()
        timed = {}
        began = clock()
        across = aggregate(runs)
        timed["aggregate.aggregate (intervals, paired differences)"] = since(began)
        began = clock()
        across.write(out)
        for spec in tables.TABLES + tables.FIGURE_DATA:
            (out / spec.csv_name).write_text(tables.csv_text(spec.rows(runs)), encoding="utf-8")
        timed["CSVs (results, aggregates, paired, tables)"] = since(began)
        began = clock()
        latex.write(out, runs, across)
        timed["LaTeX tables"] = since(began)
        began = clock()
        (out / "report.md").write_text(tables.markdown(runs, {}, [across.markdown()]))
        summary = {"schema": "asiworld-comparison/1",
                   "runs": [{"meta": r["meta"], "tick": r["tick"]} for r in runs],
                   "configurations": tables.names_in_order(runs), "mixed": [],
                   **across.summary(), "results": runs, **provenance.stamp()}
        (out / "comparison.json").write_text(json.dumps(summary, indent=1, default=str))
        timed["report.md and comparison.json"] = since(began)
        total = tuple(sum(t[i] for t in timed.values()) for i in (0, 1))
        began = clock()
        study = leaderboard.read_study(out)
        board = leaderboard.rank([study])
        board_seconds = since(began)
    for what, (wall, cpu) in timed.items():
        print(f"  {what:<55} {wall:7.2f} s wall, {cpu:6.2f} s CPU")
    print(f"comparison statistics in all (target < 10 s): {total[0]:.2f} s wall, "
          f"{total[1]:.2f} s CPU")
    print(f"leaderboard of it ({len(board)} rows; reading, the schema check, ranking): "
          f"{board_seconds[0]:.2f} s wall, {board_seconds[1]:.2f} s CPU")


if __name__ == "__main__":
    main()
