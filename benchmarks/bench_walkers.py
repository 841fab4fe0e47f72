"""A crowd on the move (issue 35): N characters on a 256 × 256 map, spread over it, each given a
new `move_to` every 20 ticks (staggered: a twentieth of them each tick) to a random open tile
within `--reach` tiles. Printed: the engine's ticks/s (only `World.step` is timed, with the
submissions' path checks on their own line) and the cost of a path by its length, so a path
costs what its length costs, not the map's size. Target: >= 10 ticks/s at 1,000.

Run: python benchmarks/bench_walkers.py [--counts 100,1000] [--ticks 100] [--reach 20]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from asiworld.engine import World  # noqa: E402
from asiworld.engine.model import SURFACE  # noqa: E402

EVERY = 20


def walkers(count: int, ticks: int, reach: int, seed: int = 7, size: int = 256) -> dict:
    world = World.create(seed=seed, size=size)
    rng = random.Random(seed)
    area = world.areas[SURFACE]
    chars = [world.add_character(f"w{i}") for i in range(count)]
    for cid in chars:  # spread over the map
        pos = world.find_free_tile(SURFACE, (rng.randrange(size), rng.randrange(size)))
        if pos is not None:
            world.move_entity(world.entities[cid], *pos)
    world.step()
    step = submit = 0.0
    by_length: dict[int, list[float]] = {}
    refused = 0
    for tick in range(ticks):
        began = time.perf_counter()
        for i in range(tick % EVERY, count, EVERY):
            char = world.entities[chars[i]]
            x = min(area.width - 2, max(1, char.x + rng.randint(-reach, reach)))
            y = min(area.height - 2, max(1, char.y + rng.randint(-reach, reach)))
            asked = time.perf_counter()
            result = world.submit(chars[i], {"type": "move_to", "x": x, "y": y})
            spent = time.perf_counter() - asked
            if result.ok:
                length = abs(x - char.x) + abs(y - char.y)
                by_length.setdefault(min(length // 10 * 10, 40), []).append(spent)
            else:
                refused += 1
        submit += time.perf_counter() - began
        began = time.perf_counter()
        world.step()
        step += time.perf_counter() - began
    return {"count": count, "ticks_per_second": ticks / step,
            "with_submissions": ticks / (step + submit), "refused": refused,
            "path_ms": {k: 1000 * statistics.median(v) for k, v in sorted(by_length.items())}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", default="100,1000")
    parser.add_argument("--ticks", type=int, default=100)
    parser.add_argument("--reach", type=int, default=20)
    args = parser.parse_args()
    for count in (int(c) for c in args.counts.split(",")):
        row = walkers(count, args.ticks, args.reach)
        lengths = ", ".join(f"{k}-{k + 9}: {v:.2f} ms" for k, v in row["path_ms"].items())
        print(f"{count:>5} walkers: {row['ticks_per_second']:.1f} ticks/s (World.step), "
              f"{row['with_submissions']:.1f} with the move_to checks; median move_to check by "
              f"distance {lengths}; {row['refused']} refused (load {os.getloadavg()[0]:.1f})",
              flush=True)


if __name__ == "__main__":
    main()
