"""`asiworld bench engine`: engine ticks per second with 1, 9 and 100 active characters on the
default world, and the cost of building one observation. Agents' own thinking is timed apart:
only `World.step` counts as engine time."""

from __future__ import annotations

import statistics
import time
from typing import Any

from asiworld.engine import World, load_content
from asiworld.pipeline import Pipeline

from .run import Run, RunConfig


def bench_engine(characters: int, ticks: int, seed: int = 7, agent: str = "forager") -> dict[str, Any]:
    run = Run(RunConfig(seed=seed, minutes=0, agents=[agent] * characters, stagger_ticks=0,
                        think_ticks=3))
    for _ in range(ticks):
        run.pipeline.step()
    step_seconds = run.pipeline.engine_seconds
    return {"characters": characters, "ticks": ticks,
            "ticks_per_second": round(ticks / step_seconds, 1),
            "ms_per_tick": round(1000 * step_seconds / ticks, 3)}


def bench_observation(samples: int = 2000, seed: int = 7) -> dict[str, Any]:
    world = World.create(seed=seed, content=load_content())
    cid = world.add_character("probe")
    Pipeline(world).run_until(5)
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


def main(ticks: int = 1800, counts: tuple[int, ...] = (1, 9, 100)) -> list[dict[str, Any]]:
    rows = []
    for n in counts:  # each line as soon as it is measured: the whole takes minutes
        print(f"{n:>4} characters: running {ticks} ticks ...", end="\r", flush=True)
        row = bench_engine(n, ticks)
        rows.append(row)
        print(f"{row['characters']:>4} characters: {row['ticks_per_second']:>9,.0f} ticks/s"
              f"  ({row['ms_per_tick']} ms/tick over {row['ticks']} ticks)", flush=True)
    print("observation: measuring ...", end="\r", flush=True)
    obs = bench_observation()
    print(f"observation: median {obs['observation_median_ms']} ms, p95 {obs['observation_p95_ms']} ms;"
          f" text form {obs['text_observation_ms']} ms")
    full = 18000 / next((r["ticks_per_second"] for r in rows if r["characters"] == 9), 1)
    print(f"a 300-minute, 9-character evaluation: about {full:.1f} s of engine time")
    return rows + [obs]
