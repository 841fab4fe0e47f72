"""Program hosting speed.

1. Ticks per second with 9 characters, each running a program that calls the API every tick,
   against the engine alone with the same 9 characters acting directly (target: at least half).
2. The engine-side cost per tick of 100 programs parked on long operations (target: < 50 µs).

On a shared machine the load changes from second to second, so the engine alone and each host
are measured in alternation, `--rounds` times, and the ratio is taken per round (the median is
reported, with every round's ratio).

Run: python benchmarks/bench_programs.py [--ticks N] [--rounds R] [--in-process]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine import World  # noqa: E402
from app.programs.manager import ProgramManager  # noqa: E402

BUSY = """
dirs = ['n', 'e', 's', 'w']
i = 0
while True:
    try:
        move(dirs[i % 4])
    except GameError:
        pass
    i += 1
"""
PARKED = "wait(600)\n"
DIRS = ("n", "e", "s", "w")


def engine_alone(ticks: int) -> float:
    world = World.create(seed=7)
    chars = [world.add_character(name=f"c{i}") for i in range(9)]
    start = time.perf_counter()
    for t in range(ticks):
        for c in chars:
            world.submit(c, {"type": "move", "dir": DIRS[t % 4]})
        world.step()
    return ticks / (time.perf_counter() - start)


def with_programs(ticks: int, in_process: bool) -> float:
    world = World.create(seed=7)
    manager = ProgramManager(world, in_process=in_process)
    for i in range(9):
        manager.submit(world.add_character(name=f"c{i}"), "busy", BUSY)
    manager.before_step()
    manager.after_step(world.step())  # warm up the host
    start = time.perf_counter()
    for _ in range(ticks):
        manager.before_step()
        manager.after_step(world.step())
    rate = ticks / (time.perf_counter() - start)
    manager.close()
    return rate


def parked_cost(ticks: int, in_process: bool) -> float:
    """Seconds per tick spent in before_step/after_step with 100 parked programs."""
    world = World.create(seed=7)
    manager = ProgramManager(world, in_process=in_process)
    for i in range(100):
        manager.submit(world.add_character(name=f"p{i}"), "parked", PARKED)
    manager.before_step()
    manager.after_step(world.step())
    spent = 0.0
    for _ in range(ticks):
        t0 = time.perf_counter()
        manager.before_step()
        t1 = time.perf_counter()
        events = world.step()
        t2 = time.perf_counter()
        manager.after_step(events)
        spent += (t1 - t0) + (time.perf_counter() - t2)
    assert all(manager.status(p)["status"] == "waiting" for p in manager.records)
    manager.close()
    return spent / ticks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--in-process", action="store_true", help="only the in-process host")
    args = parser.parse_args()
    modes = {"in_process": True} if args.in_process else {"process_host": False, "in_process": True}
    alone_rates: list[float] = []
    rates: dict[str, list[float]] = {mode: [] for mode in modes}
    ratios: dict[str, list[float]] = {mode: [] for mode in modes}
    for _round in range(args.rounds):
        alone = engine_alone(args.ticks)
        alone_rates.append(alone)
        for mode, in_process in modes.items():
            rate = with_programs(args.ticks, in_process)
            rates[mode].append(rate)
            ratios[mode].append(rate / alone)
    report: dict = {
        "ticks": args.ticks,
        "rounds": args.rounds,
        "engine_alone_ticks_per_s": round(statistics.median(alone_rates), 1),
    }
    for mode, in_process in modes.items():
        report[f"{mode}_ticks_per_s"] = round(statistics.median(rates[mode]), 1)
        report[f"{mode}_ratio"] = round(statistics.median(ratios[mode]), 2)
        report[f"{mode}_ratio_per_round"] = [round(r, 2) for r in ratios[mode]]
        report[f"{mode}_parked_100_us_per_tick"] = round(parked_cost(300, in_process) * 1e6, 1)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
