"""Program hosting speed.

1. Ticks per second with 9 characters, each running a program that calls the API every tick,
   against the engine alone with the same 9 characters acting directly (target: at least half).
   Both sides do the same world work: the direct actors follow the program's own rule (a refused
   move is followed at once by the next direction), so both make a move per character per tick
   (`moves_per_tick` in the report shows it).
2. The engine-side cost per tick of 100 programs parked on long operations (target: < 50 µs).

On a shared machine the load changes from second to second, so the sides take turns in short
blocks (`--block` ticks, the order rotating) until each has run `--ticks` ticks: a change in the
load falls on every side alike. The ratio is the engine alone's time over the side's time for the
same ticks; the ratio of each quarter of the run is reported too, to show the spread.

Run: python benchmarks/bench_programs.py [--ticks N] [--block B] [--in-process]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from asiworld.engine import World  # noqa: E402
from asiworld.programs.manager import ProgramManager  # noqa: E402

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


def moves(events: list[dict]) -> int:
    return sum(1 for e in events if e.get("kind") == "op_done" and e.get("type") == "move")


class DirectMovers:
    """The engine alone: 9 characters playing BUSY's rule by direct actions."""

    def __init__(self) -> None:
        self.world = World.create(seed=7)
        self.chars = [self.world.add_character(name=f"c{i}") for i in range(9)]
        self.turns = [0] * len(self.chars)
        self.calls = ProgramManager(self.world).budget.max_calls_per_tick
        self.moved = 0

    def tick(self) -> None:
        world, turns = self.world, self.turns
        for k, c in enumerate(self.chars):
            for _call in range(self.calls):
                result = world.submit(c, {"type": "move", "dir": DIRS[turns[k] % 4]})
                turns[k] += 1
                if result.ok:
                    break
        self.moved += moves(world.step())

    def close(self) -> None:
        pass


class BusyPrograms:
    """9 characters each running BUSY in a host."""

    def __init__(self, in_process: bool) -> None:
        self.world = World.create(seed=7)
        self.manager = ProgramManager(self.world, in_process=in_process)
        for i in range(9):
            self.manager.submit(self.world.add_character(name=f"c{i}"), "busy", BUSY)
        self.manager.before_step()
        self.manager.after_step(self.world.step())  # start the host before timing
        self.moved = 0

    def tick(self) -> None:
        self.manager.before_step()
        events = self.world.step()
        self.manager.after_step(events)
        self.moved += moves(events)

    def close(self) -> None:
        self.manager.close()


def interleaved(sides: dict, ticks: int, block: int) -> tuple[dict, dict, list[dict]]:
    """Run every side `ticks` ticks in alternating blocks of `block` ticks (the order rotating),
    so a change in the machine's load falls on all sides alike.
    -> (seconds per side, moves per tick per side, seconds per side for each quarter)."""
    seconds = dict.fromkeys(sides, 0.0)
    quarters: list[dict] = []
    names = list(sides)
    blocks = max(ticks // block, 1)
    for b in range(blocks):
        if b % max(blocks // 4, 1) == 0:
            quarters.append(dict.fromkeys(sides, 0.0))
        for name in names[b % len(names) :] + names[: b % len(names)]:
            side = sides[name]
            start = time.perf_counter()
            for _ in range(block):
                side.tick()
            spent = time.perf_counter() - start
            seconds[name] += spent
            quarters[-1][name] += spent
    moved = {name: round(side.moved / (blocks * block), 2) for name, side in sides.items()}
    return seconds, moved, quarters


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
    assert all(r.status == "waiting" for r in manager.records.values())
    manager.close()
    return spent / ticks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=3000, help="ticks per side")
    parser.add_argument("--block", type=int, default=50, help="ticks per turn of a side")
    parser.add_argument("--in-process", action="store_true", help="only the in-process host")
    args = parser.parse_args()
    modes = {"in_process": True} if args.in_process else {"process_host": False, "in_process": True}
    sides: dict = {"engine_alone": DirectMovers()}
    sides.update({mode: BusyPrograms(in_process) for mode, in_process in modes.items()})
    try:
        seconds, moved, quarters = interleaved(sides, args.ticks, args.block)
    finally:
        for side in sides.values():
            side.close()
    ticks = (args.ticks // args.block) * args.block
    report: dict = {
        "ticks_per_side": ticks,
        "block": args.block,
        "moves_per_tick": moved,
        "engine_alone_ticks_per_s": round(ticks / seconds["engine_alone"], 1),
    }
    for mode, in_process in modes.items():
        report[f"{mode}_ticks_per_s"] = round(ticks / seconds[mode], 1)
        # ratio of rates = inverse ratio of the time the same number of ticks took
        report[f"{mode}_ratio"] = round(seconds["engine_alone"] / seconds[mode], 2)
        report[f"{mode}_ratio_per_quarter"] = [
            round(q["engine_alone"] / q[mode], 2) for q in quarters if q[mode]
        ]
        report[f"{mode}_parked_100_us_per_tick"] = round(parked_cost(300, in_process) * 1e6, 1)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
