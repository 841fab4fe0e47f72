"""Gymnasium environment speed against the engine's own, measured in one run.

- engine: `asiworld bench engine`'s 1-character figure (one built-in forager on the default
  world; only `World.step` is timed);
- one env: `ASIWorld-v0` on the same world size, random table actions (seeded), as
  `gymnasium.make` gives it (its wrappers) and `unwrapped`;
- a vector of 8: `gymnasium.make_vec(..., num_envs=8)` batched (the id's vector entry point:
  one process, rows written in place; asiworld.agents.envs.gym_vector), `sync` and `async`
  (Gymnasium's own vectors); its rate is environment steps (8 per vector step) per second.

Each is measured in `--rounds` blocks of `--steps` env steps, each block right after an engine
block of as many ticks (engine, one env, engine, one env unwrapped, ..., then again). Two
ratios: each best rate over the engine's best (on a shared machine the load comes and goes,
and the best block is the one it disturbed least), and the median over the rounds of each
block's rate over the engine block just before it (the pair ran under the same load, so the
load's drift cancels; an outlier engine block moves only its own pair). Goal: >= 0.5. Then one env's step is timed part by part (decoding the action,
the world's checks when it is submitted, the pipeline's tick, the achievements, the
observation's arrays, the info) to show where the time goes, and the environment's own part
of it (all but the world's checks and the tick). Results as JSON on stdout, with
the 1-minute load average before and after each round.

Run: python benchmarks/bench_env.py [--steps N] [--rounds N] [--size N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium  # noqa: E402
from asiworld.agents.envs.gym_register import register_envs  # noqa: E402
from asiworld.headless.bench import bench_engine  # noqa: E402


class OneEnv:
    """One `ASIWorld-v0` (through `gymnasium.make`'s wrappers, or `unwrapped`), random table
    actions drawn (seeded) before the clock starts."""

    def __init__(self, size: int, unwrapped: bool = False) -> None:
        env = gymnasium.make("ASIWorld-v0", size=size, max_ticks=10**9, world_seed=7)
        self.env = env.unwrapped if unwrapped else env
        self.env.reset(seed=7)
        self.env.action_space.seed(7)

    def block(self, steps: int) -> float:
        actions = [self.env.action_space.sample() for _ in range(steps)]
        started = time.perf_counter()
        for action in actions:
            self.env.step(action)
        return steps / (time.perf_counter() - started)

    def close(self) -> None:
        self.env.close()


class Vector(OneEnv):
    """A vector of `num_envs` worlds: `mode` "batched" (the id's vector entry point), "sync"
    or "async" (Gymnasium's own vectors); its rate counts environment steps."""

    def __init__(self, size: int, mode: str, num_envs: int = 8) -> None:
        self.num_envs = num_envs
        self.env = gymnasium.make_vec(
            "ASIWorld-v0", num_envs=num_envs, size=size, max_ticks=10**9, world_seed=7,
            vectorization_mode="vector_entry_point" if mode == "batched" else mode)
        self.env.reset(seed=7)
        self.env.action_space.seed(7)

    def block(self, steps: int) -> float:
        return self.num_envs * super().block(max(1, steps // self.num_envs))


def parts(steps: int, size: int) -> dict[str, float]:
    """Microseconds per step of each part of `env.step`, timed apart (the same actions)."""
    env = gymnasium.make("ASIWorld-v0", size=size, max_ticks=10**9, world_seed=7).unwrapped
    env.reset(seed=7)
    env.action_space.seed(7)
    actions = [env.action_space.sample() for _ in range(steps)]
    headless, seat, clock = env.headless, env.seat, time.perf_counter
    spent = dict.fromkeys(("decoding the action", "submitting it (the world's checks)",
                           "pipeline tick", "achievements", "observation arrays", "info"), 0.0)
    names = list(spent)
    for action in actions:
        t0 = clock()
        decoded = seat.decode(env.decoder, action)
        t1 = clock()
        result = headless.act(seat.char, decoded)
        t2 = clock()
        events = headless.advance(1)
        t3 = clock()
        mine, _ = seat.progress(events, headless.world.tick)
        t4 = clock()
        seat.look(headless)
        t5 = clock()
        seat.info(result, mine, headless.world.tick)
        t6 = clock()
        marks = (t0, t1, t2, t3, t4, t5, t6)
        for name, a, b in zip(names, marks, marks[1:], strict=False):
            spent[name] += b - a
    out = {name: round(1e6 * s / steps, 1) for name, s in spent.items()}
    out["of which World.step"] = round(1e6 * headless.pipeline.engine_seconds / steps, 1)
    # the environment's own code: all but the world's checks and the pipeline's tick
    own = sum(spent[n] for n in names if n not in (names[1], names[2]))
    out["the environment's own code"] = round(1e6 * own / steps, 1)
    out["its share of the step"] = round(own / sum(spent.values()), 3)
    env.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="env steps per block")
    parser.add_argument("--rounds", type=int, default=3, help="blocks of each, interleaved")
    parser.add_argument("--size", type=int, default=128, help="world size (the engine bench's)")
    args = parser.parse_args()
    register_envs()
    load = [round(os.getloadavg()[0], 2)]
    subjects = {"one env": OneEnv(args.size), "one env, unwrapped": OneEnv(args.size, True),
                "vector of 8, batched": Vector(args.size, "batched"),
                "vector of 8, sync": Vector(args.size, "sync"),
                "vector of 8, async": Vector(args.size, "async")}
    engine: list[float] = []
    rates: dict[str, list[float]] = {name: [] for name in subjects}
    paired: dict[str, list[float]] = {name: [] for name in subjects}
    for _ in range(args.rounds):  # interleaved: a load that comes and goes hits them alike
        for name, subject in subjects.items():
            engine.append(bench_engine(1, args.steps)["ticks_per_second"])
            rates[name].append(subject.block(args.steps))
            paired[name].append(rates[name][-1] / engine[-1])
        load.append(round(os.getloadavg()[0], 2))
    for subject in subjects.values():
        subject.close()
    best = max(engine)
    report = {
        "load_average_1min": load,
        "engine_ticks_per_second": {"best": best, "blocks": engine},
        "env_steps_per_second": {k: round(max(v), 1) for k, v in rates.items()},
        "ratio_to_engine": {k: round(max(v) / best, 3) for k, v in rates.items()},
        "paired_ratio_median": {k: round(statistics.median(v), 3) for k, v in paired.items()},
        "one_env_microseconds_per_step": parts(args.steps, args.size),
        "steps": args.steps,
        "rounds": args.rounds,
        "size": args.size,
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
