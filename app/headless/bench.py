"""`asiworld bench engine`: engine ticks per second with 1, 9 and 100 active characters on the
default world (or `--counts`, `--size`, `--spread` for crowds), and the cost of building one
observation. Agents' own thinking is timed apart:
only `World.step` counts as engine time."""

from __future__ import annotations

import gc
import random
import statistics
import time
from typing import Any

from asiworld.engine import World
from asiworld.engine.model import SURFACE
from asiworld.session import Session

from .run import Run, RunConfig


def bench_engine(characters: int, ticks: int, seed: int = 7, agent: str = "forager",
                 size: int | None = None, spread: bool = False) -> dict[str, Any]:
    """`characters` built-in agents joined at tick 0 (packed round the plaza, or with `spread`
    each moved to a seeded random free tile of the map), then `ticks` ticks timed."""
    run = Run(RunConfig(seed=seed, minutes=0, agents=[agent] * characters, stagger_ticks=0,
                        think_ticks=3, size=size))
    run.pipeline.cpu_clock = True
    run.pipeline.step()  # everyone joins in the first tick; not timed
    if spread:
        _spread(run.pipeline.world, seed)
    # The world of a run before this one (in this process) is held in reference cycles until
    # a full collection: left to the collector, it is walked by this run's collections too, and
    # each round in one process measured slower than the last (27.8 -> 32.3 us per
    # character-tick over four rounds of 1,000; 27.1-30.0 with this collection)
    gc.collect()
    joined, joined_cpu = run.pipeline.engine_seconds, run.pipeline.engine_cpu_seconds
    for _ in range(ticks):
        run.pipeline.step()
    step_seconds = run.pipeline.engine_seconds - joined
    cpu_seconds = run.pipeline.engine_cpu_seconds - joined_cpu
    return {"characters": characters, "ticks": ticks, "size": run.world.areas[SURFACE].width,
            "spread": spread, "ticks_per_second": round(ticks / step_seconds, 1),
            "ms_per_tick": round(1000 * step_seconds / ticks, 3),
            "us_per_character_tick": round(1e6 * step_seconds / (ticks * characters), 1),
            # CPU time: on a shared machine the wall time also counts other processes' turns
            "cpu_ms_per_tick": round(1000 * cpu_seconds / ticks, 3),
            "cpu_ticks_per_second": round(ticks / max(cpu_seconds, 1e-9), 1)}


def _print_medians(rows: list[dict[str, Any]], counts: tuple[int, ...], repeat: int) -> None:
    """Per count, the median of its runs' microseconds per character-tick, their range, and
    the ratio of the median to the first count's."""
    runs = {n: [r["us_per_character_tick"] for r in rows if r["characters"] == n] for n in counts}
    middle = {n: statistics.median(runs[n]) for n in counts}
    first = counts[0]
    print(f"medians of {repeat} rounds, us per character-tick:")
    for n in counts:
        ratio = f"  {middle[n] / middle[first]:.2f}x that at {first}" if n != first else ""
        print(f"{n:>5} characters: {middle[n]:>7,.1f}  (runs {min(runs[n]):,.1f}-{max(runs[n]):,.1f})"
              f"{ratio}", flush=True)


def _spread(world: World, seed: int) -> None:
    rng = random.Random(seed)
    area = world.areas[SURFACE]
    for char in world.characters():
        want = (rng.randrange(area.width), rng.randrange(area.height))
        pos = world.find_free_tile(SURFACE, want)
        if pos is not None:
            world.move_entity(char, pos[0], pos[1])
            char.op = None  # a walk begun at the plaza would step back onto its path


def bench_observation(samples: int = 2000, seed: int = 7) -> dict[str, Any]:
    session = Session.build(seed=seed, programs=False)
    world = session.world
    cid = world.add_character("probe")
    session.pipeline.run_until(5)
    times = []
    for _ in range(samples):
        t0 = time.perf_counter()
        world.observe(cid)
        times.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    for _ in range(200):
        world.observe_text(cid)
    text_ms = (time.perf_counter() - t0) / 200 * 1000
    return {"observation_median_ms": round(statistics.median(times) * 1000, 4),
            "observation_p95_ms": round(sorted(times)[int(0.95 * len(times))] * 1000, 4),
            "text_observation_ms": round(text_ms, 4)}


def main(ticks: int = 1800, counts: tuple[int, ...] = (1, 9, 100), size: int | None = None,
         spread: bool = False, repeat: int = 1) -> list[dict[str, Any]]:
    """Each count measured `repeat` times, the counts taken in turn in every round: this
    machine's speed drifts within minutes, and one short run of a few characters (a hundred
    ticks of nine are 25 ms) can be a fifth off. With repeats, the medians per character-tick
    and each count's ratio to the first are printed too."""
    rows = []
    where = f"{size or 'default'}-tile map, {'spread over it' if spread else 'packed at the plaza'}"
    print(f"engine ticks/s on the {where}; only World.step is timed", flush=True)
    for round_ in range(repeat):
        label = f"round {round_ + 1} of {repeat}: " if repeat > 1 else ""
        for n in counts:  # each line as soon as it is measured: the whole takes minutes
            print(f"{label}{n:>5} characters: running {ticks} ticks ...", end="\r", flush=True)
            row = bench_engine(n, ticks, size=size, spread=spread)
            rows.append(row)
            print(f"{label}{row['characters']:>5} characters: {row['ticks_per_second']:>9,.1f} ticks/s"
                  f"  {row['characters'] * row['ticks_per_second']:>9,.0f} character-ticks/s"
                  f"  {row['us_per_character_tick']:>7,.1f} us per character-tick"
                  f"  ({row['ms_per_tick']} ms/tick over {row['ticks']} ticks;"
                  f" CPU {row['cpu_ms_per_tick']} ms/tick: {row['cpu_ticks_per_second']:,.1f} ticks/s)",
                  flush=True)
    if repeat > 1:
        _print_medians(rows, counts, repeat)
    print("observation: measuring ...", end="\r", flush=True)
    obs = bench_observation()
    print(f"observation: median {obs['observation_median_ms']} ms, p95 {obs['observation_p95_ms']} ms;"
          f" text form {obs['text_observation_ms']} ms")
    nine = next((r["ticks_per_second"] for r in rows if r["characters"] == 9), None)
    if nine:
        print(f"a 300-minute, 9-character evaluation: about {18000 / nine:.1f} s of engine time")
    return rows + [obs]
