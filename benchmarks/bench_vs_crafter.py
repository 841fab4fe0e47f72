"""A headless run against Crafter's own world step, in the same minutes (issue 35: `asiworld run`
with one forager at >= 40x Crafter's world-only step).

Ours: `asiworld run`'s own Run (one forager, the recorder writing the replay, the assessment),
its whole `run()` timed, ticks per second. Crafter's: `crafter.Env` stepped with seeded random
actions, its rendering taken out (`_obs` and `_sem_view` return nothing), steps per second: the
world alone. The two alternate in blocks, so a busy machine slows both alike; the ratio is
taken per pair of blocks.

Crafter is not a dependency of ASIWorld: give an interpreter that has it.

    python3 -m venv /tmp/crafter-venv && /tmp/crafter-venv/bin/pip install crafter
    python benchmarks/bench_vs_crafter.py --crafter-python /tmp/crafter-venv/bin/python
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from asiworld.evaluation.figure_options import FigureOptions  # noqa: E402
from asiworld.headless.run import Run, RunConfig  # noqa: E402

CRAFTER = """
import random, sys, time
import crafter
env = crafter.Env(seed=3)
env.reset()
env._obs = lambda: None          # the world alone: no image rendered
env._sem_view = lambda: None
rng = random.Random(3)
steps = int(sys.argv[1])
began = time.perf_counter()
for _ in range(steps):
    _, _, done, _ = env.step(rng.randrange(env.action_space.n))
    if done:
        env.reset()
        env._obs = lambda: None
        env._sem_view = lambda: None
print(steps / (time.perf_counter() - began))
"""


def ours(minutes: int) -> float:
    with tempfile.TemporaryDirectory() as out:
        run = Run(RunConfig(seed=3, minutes=minutes, agents=["forager"], stagger_ticks=0,
                            think_ticks=3, out=Path(out), figures=FigureOptions(formats=())))
        began = time.perf_counter()
        results = run.run()
        return results["ticks"] / (time.perf_counter() - began)


def crafter(python: str, steps: int) -> float:
    done = subprocess.run([python, "-c", CRAFTER, str(steps)], capture_output=True, text=True,
                          check=True)
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crafter-python", required=True, help="an interpreter with crafter")
    parser.add_argument("--minutes", type=int, default=60, help="our run's length (60: 3,600 ticks)")
    parser.add_argument("--steps", type=int, default=2000, help="Crafter's steps per block")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    ratios = []
    for round_ in range(args.rounds):
        a = ours(args.minutes)
        b = crafter(args.crafter_python, args.steps)
        ratios.append(a / b)
        print(f"round {round_ + 1}: asiworld run {a:,.0f} ticks/s, Crafter's world step "
              f"{b:,.0f} steps/s: {a / b:.1f}x (load {os.getloadavg()[0]:.1f})", flush=True)
    print(f"median ratio {statistics.median(ratios):.1f}x over {args.rounds} rounds")


if __name__ == "__main__":
    main()
