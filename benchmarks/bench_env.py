"""Gymnasium environment speed against the engine's own, measured in one run.

- engine: `asiworld bench engine`'s 1-character figure (one built-in forager on the default
  world; only `World.step` is timed), measured before and after the environments, the mean of
  the two used for the ratios;
- one env: `ASIWorld-v0` on the same world size and seed, random table actions (seeded), every
  part of `env.step` timed (decoding, submitting, the pipeline's tick, observing, encoding,
  info);
- a vector of 8: `gymnasium.make_vec(..., num_envs=8)` in `sync` and `async` mode; its rate is
  environment steps (8 per vector step) per second.

The ratio is each rate over the engine's (goal: >= 0.5). Then one env's step is timed part by
part (decoding and submitting the action, the pipeline's tick, the achievements, the engine's
observation, the array encoding) to show where the time goes. Results as JSON on stdout.

Run: python benchmarks/bench_env.py [--steps N] [--size N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium  # noqa: E402
from asiworld.agents.gym_register import register_envs  # noqa: E402
from asiworld.headless.bench import bench_engine  # noqa: E402


def one_env(steps: int, size: int) -> float:
    env = gymnasium.make("ASIWorld-v0", size=size, max_ticks=10**9, world_seed=7)
    env.reset(seed=7)
    env.action_space.seed(7)
    actions = [env.action_space.sample() for _ in range(steps)]
    started = time.perf_counter()
    for action in actions:
        env.step(action)
    seconds = time.perf_counter() - started
    env.close()
    return steps / seconds


def parts(steps: int, size: int) -> dict[str, float]:
    """Microseconds per step of each part of `env.step`, timed apart (the same actions)."""
    env = gymnasium.make("ASIWorld-v0", size=size, max_ticks=10**9, world_seed=7).unwrapped
    env.reset(seed=7)
    env.action_space.seed(7)
    actions = [env.action_space.sample() for _ in range(steps)]
    headless, seat, clock = env.headless, env.seat, time.perf_counter
    spent = dict.fromkeys(("decode and submit (the world's checks)", "pipeline tick",
                           "achievements", "World.observe", "array encoding"), 0.0)
    names = list(spent)
    for action in actions:
        t0 = clock()
        headless.act(seat.char, env.decoder.action(action, seat.raw))
        t1 = clock()
        events = headless.advance(1)
        t2 = clock()
        seat.progress(events, headless.world.tick)
        t3 = clock()
        seat.raw = headless.observe(seat.char)
        t4 = clock()
        env.encoder.encode(seat.raw)
        t5 = clock()
        for name, (a, b) in zip(names, ((t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5)),
                                strict=True):
            spent[name] += b - a
    out = {name: round(1e6 * s / steps, 1) for name, s in spent.items()}
    out["of which World.step"] = round(1e6 * headless.pipeline.engine_seconds / steps, 1)
    env.close()
    return out


def vector(steps: int, size: int, mode: str, num_envs: int = 8) -> float:
    envs = gymnasium.make_vec("ASIWorld-v0", num_envs=num_envs, vectorization_mode=mode,
                              size=size, max_ticks=10**9, world_seed=7)
    envs.reset(seed=7)
    envs.action_space.seed(7)
    rounds = max(1, steps // num_envs)
    actions = [envs.action_space.sample() for _ in range(rounds)]
    started = time.perf_counter()
    for action in actions:
        envs.step(action)
    seconds = time.perf_counter() - started
    envs.close()
    return rounds * num_envs / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000, help="env steps per measurement")
    parser.add_argument("--size", type=int, default=128, help="world size (the engine bench's)")
    args = parser.parse_args()
    register_envs()
    load = os.getloadavg()[0]
    before = bench_engine(1, args.steps)["ticks_per_second"]
    rates = {"one env": one_env(args.steps, args.size),
             "vector of 8, sync": vector(args.steps, args.size, "sync"),
             "vector of 8, async": vector(args.steps, args.size, "async")}
    breakdown = parts(args.steps, args.size)
    after = bench_engine(1, args.steps)["ticks_per_second"]
    engine = (before + after) / 2
    report = {
        "load_average_1min": [round(load, 2), round(os.getloadavg()[0], 2)],
        "engine_ticks_per_second": {"before": before, "after": after, "mean": round(engine, 1)},
        "env_steps_per_second": {k: round(v, 1) for k, v in rates.items()},
        "ratio_to_engine": {k: round(v / engine, 3) for k, v in rates.items()},
        "one_env_microseconds_per_step": breakdown,
        "steps": args.steps,
        "size": args.size,
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
