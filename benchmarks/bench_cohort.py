"""How robust the built-in configurations are across seeds, and what the cohort does on a seed.

Per seed, a headless run (asiworld.headless.run: the same world, stagger and think ticks as
`asiworld run`) of the configurations named; prints one row per seed and configuration (Outfit,
Hero, Depth, Crafts, Trial, Downs, damage taken, Score, the minutes the two tasks were done) and a
summary line per configuration: on how many seeds it completed production and both tasks. With
--json the rows go to stdout as JSON instead.

Run: python benchmarks/bench_cohort.py [--agents planner] [--seeds 1-20] [--minutes 300]
     python benchmarks/bench_cohort.py --agents cohort --seeds 7,11     # the nine-configuration cohort
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from asiworld.agents.bots.builtin import COHORT  # noqa: E402
from asiworld.headless.run import Run, RunConfig  # noqa: E402


def seeds_of(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        if "-" in part:
            lo, hi = part.split("-")
            out.extend(range(int(lo), int(hi) + 1))
        else:
            out.append(int(part))
    return out


def minute(tick: int | None) -> str:
    return "–" if tick is None else f"{tick / 60:.0f}"


def one(seed: int, agents: list[str], minutes: int) -> list[dict]:
    started = time.perf_counter()
    results = Run(RunConfig(seed=seed, minutes=minutes, agents=agents)).run()
    wall = time.perf_counter() - started
    rows = []
    for c in sorted(results["configurations"], key=lambda c: c["rank"]):
        m = c["measures"]
        rows.append({"seed": seed, "name": c["name"], "rank": c["rank"], "outfit": m["outfit"],
                     "hero": m["hero"], "depth": m["depth"], "crafts": m["crafts"],
                     "bosses": m["bosses"], "trial": m["trial"], "downs": m["downs"],
                     "damage": m["damage_taken"], "score": c["score_shown"],
                     "outfit_minute": minute(m["outfit_tick"]), "hero_minute": minute(m["hero_tick"]),
                     "state_hash": results["state_hash"], "wall_seconds": round(wall, 1)})
    return rows


def yn(flag: bool) -> str:
    return "Y" if flag else "N"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default="planner",
                        help="comma-separated configurations, or 'cohort' for the nine")
    parser.add_argument("--seeds", default="1-20")
    parser.add_argument("--minutes", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    agents = list(COHORT) if args.agents == "cohort" else args.agents.split(",")
    rows: list[dict] = []
    if not args.json:
        print(f"# {' '.join(sys.argv)}  (load average {os.getloadavg()[0]:.1f} at start)")
        print("| seed | configuration | Outfit | Hero | Depth | Crafts | Trial | Downs | Damage "
              "| Score | outfit at min | hero at min |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for seed in seeds_of(args.seeds):
        for r in one(seed, agents, args.minutes):
            rows.append(r)
            if not args.json:
                print(f"| {seed} | {r['name']} | {yn(r['outfit'])} | {yn(r['hero'])} | {r['depth']} "
                      f"| {r['crafts']} | {r['trial']}/8 | {r['downs']} | {r['damage']} "
                      f"| {r['score']} | {r['outfit_minute']} | {r['hero_minute']} |", flush=True)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print()
    for name in dict.fromkeys(r["name"] for r in rows):
        mine = [r for r in rows if r["name"] == name]
        both = sum(r["outfit"] and r["hero"] for r in mine)
        outfit = sum(r["outfit"] for r in mine)
        print(f"{name}: production on {outfit}/{len(mine)} seeds, both tasks on {both}/{len(mine)}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
