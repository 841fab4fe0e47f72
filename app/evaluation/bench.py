"""How fast the evaluation keeps up with a long event stream.

    python -m asiworld.evaluation.bench [--characters 5] [--events-per-tick 6] [--ticks 18000]

Builds a synthetic 300-minute stream (actions, damage, crafts, day reports, expeditions) for a
cohort, then times: the live feed, `results()` on the finished stream, and writing the reports.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from typing import Any

from asiworld.evaluation.live import LiveAssessment
from asiworld.evaluation.measures import CATEGORIES
from asiworld.evaluation.report import write_reports


def synthetic_stream(characters: int, ticks: int, per_tick: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    events: list[dict[str, Any]] = []
    for c in range(1, characters + 1):
        events.append({"tick": 0, "kind": "joined", "char": c, "name": f"c{c}", "label": "x"})
    expedition = 0
    for t in range(1, ticks + 1):
        for _ in range(per_tick):
            c = rng.randint(1, characters)
            roll = rng.random()
            if roll < 0.5:
                cat = rng.choice(CATEGORIES)
                events.append({"tick": t, "kind": "action", "char": c, "op": t, "type": cat,
                               "category": cat, "args": {}})  # fmt: skip
            elif roll < 0.8:
                events.append({"tick": t, "kind": "damaged", "char": c, "amount": 1,
                               "source": "shade", "in_dungeon": False})  # fmt: skip
            elif roll < 0.95:
                events.append({"tick": t, "kind": "crafted", "char": c, "item": "wall",
                               "count": 1, "cooking": False})  # fmt: skip
            else:
                events.append({"tick": t, "kind": "killed", "char": c, "hostile": True})
        if t % 1800 == 0:
            for c in range(1, characters + 1):
                events.append({"tick": t, "kind": "day_report", "char": c, "day": t // 1800,
                               "downs": 0, "full": True})  # fmt: skip
        if t % 600 == 0:
            expedition += 1
            c = rng.randint(1, characters)
            tier = rng.randint(1, 3)
            common = {"char": c, "tier": tier, "expedition": expedition, "instance": expedition}
            events.append({"tick": t, "kind": "dungeon_entered", "solo": True, "party": [c],
                           **common})  # fmt: skip
            events.append({"tick": t, "kind": "dungeon_left", "cleared": True, "alive": True,
                           "damage": rng.randint(0, 60), "supplies": 1, **common})  # fmt: skip
    return events


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--characters", type=int, default=5)
    parser.add_argument("--events-per-tick", type=int, default=6)
    parser.add_argument("--ticks", type=int, default=18000)
    args = parser.parse_args(argv)
    events = synthetic_stream(args.characters, args.ticks, args.events_per_tick)

    live = LiveAssessment()
    start = time.perf_counter()
    for t0 in range(0, len(events), args.events_per_tick):  # fed about one tick at a time
        live.feed(events[t0 : t0 + args.events_per_tick])
    fed = time.perf_counter() - start
    start = time.perf_counter()
    results = live.results({"bench": True})
    summarised = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        write_reports(out, results)
        written = time.perf_counter() - start
    print(f"events: {len(events)} ({args.characters} characters, {args.ticks} ticks)")
    print(f"live feed: {fed:.2f} s ({len(events) / fed / 1000:.0f}k events/s)")
    print(f"results(): {summarised * 1000:.1f} ms")
    print(f"write_reports (json, markdown, CSVs, 3 figures x 3 formats): {written * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
