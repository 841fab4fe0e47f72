"""How often the steady_clear example program reaches the curriculum's Steadiness stage.

For each seed, a character with iron gear starts inside a fresh instance of the tier
(`asiworld.programs.kit`), runs app/agents/bots/programs/steady_clear.py in the in-process host, and the
run's events are assessed by the evaluation's AchievementRecord. Prints one row per seed and the
totals as JSON.

Run: python benchmarks/bench_steady_clear.py [--tiers 2 3] [--seeds 1-16]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from asiworld.agents.bots import program_library  # noqa: E402
from asiworld.engine import World, load_content  # noqa: E402
from asiworld.evaluation.achievements import AchievementRecord  # noqa: E402
from asiworld.programs.kit import start_in_tier  # noqa: E402
from asiworld.programs.manager import ProgramManager  # noqa: E402

SOURCE = program_library.source("steady_clear")
LIMIT = 3000  # ticks


def one(seed: int, tier: int, content) -> dict:
    world = World.create(seed=seed, content=content, size=64)
    char = world.add_character("ada")
    start_in_tier(world, char, tier)
    manager = ProgramManager(world, in_process=True)
    pid = manager.submit(char, "steady", SOURCE)["id"]
    record = AchievementRecord()
    most_steps = 0
    for _ in range(LIMIT):
        manager.before_step()
        events = world.step()
        manager.after_step(events)
        for event in events:
            if event.get("char") == char:
                record.feed(event)
        status = manager.status(char, pid)
        most_steps = max(most_steps, status["steps_tick"])
        if status["status"] not in ("running", "waiting"):
            break
    manager.close()
    value = (status.get("outcome") or {}).get("value") or {}
    return {
        "seed": seed,
        "tier": tier,
        "status": status["status"],
        "cleared": value.get("cleared"),
        "damage": value.get("damage"),
        "supplies": value.get("supplies"),
        "ticks": value.get("ticks"),
        "steadiness": record.stages[5].met,
        "preempted": most_steps >= 1000,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiers", type=int, nargs="+", default=[2, 3])
    parser.add_argument("--seeds", default="1-16", help="a range such as 1-16")
    args = parser.parse_args()
    low, _, high = args.seeds.partition("-")
    seeds = range(int(low), int(high or low) + 1)
    content = load_content()
    totals = {}
    for tier in args.tiers:
        rows = [one(seed, tier, content) for seed in seeds]
        for row in rows:
            print(json.dumps(row))
        totals[f"tier_{tier}"] = {
            "seeds": len(rows),
            "cleared": sum(1 for r in rows if r["cleared"]),
            "steadiness": sum(1 for r in rows if r["steadiness"]),
            "damage_median": sorted(r["damage"] for r in rows if r["damage"] is not None)[
                len(rows) // 2 - 1
            ]
            if rows
            else None,
        }
    print(json.dumps(totals, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
