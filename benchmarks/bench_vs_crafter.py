"""A headless run against Crafter's own world step, in the same minutes (issue 35: `asiworld run`
with one forager at >= 40x Crafter's world-only step).

Ours: `asiworld run`'s own Run (one forager, the recorder writing the replay, the assessment),
its whole `run()` timed, ticks per second, and where a tick goes: `World.step` (the pipeline's
own clock of it), the forager's driver, the recorder (frames, chunks, hashes, snapshots), the
assessment (`results`) and the rest of the pipeline, each timed round its call (no profiler). Crafter's: `crafter.Env` stepped with seeded random
actions, its rendering taken out (`_obs` and `_sem_view` return nothing), steps per second: the
world alone. The two alternate in blocks of about the same length (3 s each by default: 300
minutes of ours, 600 of Crafter's steps), so a machine whose speed moves slows both alike; the
ratio is taken per pair of blocks, in wall time and in each process's CPU time (which another
job on a shared machine disturbs far less), and the median of eight pairs is the figure.
Blocks of very different lengths do not cancel a speed that moves within a minute.

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
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from asiworld.evaluation.figure_options import FigureOptions  # noqa: E402
from asiworld.headless.run import Run, RunConfig  # noqa: E402
from asiworld.replay.session import RunRecording  # noqa: E402

CRAFTER = """
import random, sys, time
import crafter
env = crafter.Env(seed=3)
env.reset()
env._obs = lambda: None          # the world alone: no image rendered
env._sem_view = lambda: None
rng = random.Random(3)
steps = int(sys.argv[1])
began, cpu = time.perf_counter(), time.process_time()
for _ in range(steps):
    _, _, done, _ = env.step(rng.randrange(env.action_space.n))
    if done:
        env.reset()
        env._obs = lambda: None
        env._sem_view = lambda: None
print(steps / (time.perf_counter() - began), steps / (time.process_time() - cpu))
"""


class Clock:
    """Seconds spent in the calls it wraps."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - began
        return timed


def ours(minutes: int) -> tuple[float, float, dict[str, float]]:
    """Ticks per second of a whole `run()` (wall and CPU time), and milliseconds per tick of
    each part."""
    driver, recorder, assessment = Clock(), Clock(), Clock()
    on_tick = RunRecording.on_tick
    RunRecording.on_tick = recorder.wrap(on_tick)  # the recorder is made inside run()
    try:
        with tempfile.TemporaryDirectory() as out:
            run = Run(RunConfig(seed=3, minutes=minutes, agents=["forager"], stagger_ticks=0,
                                think_ticks=3, out=Path(out),
                                figures=FigureOptions(formats=())))
            run.pipeline.cpu_clock = True  # World.step in CPU time too (its two reads count outside)
            run.agents.before_step = driver.wrap(run.agents.before_step)
            run.results = assessment.wrap(run.results)
            began, cpu = time.perf_counter(), time.process_time()
            results = run.run()
            wall, cpu = time.perf_counter() - began, time.process_time() - cpu
    finally:
        RunRecording.on_tick = on_tick
    ticks = results["ticks"]
    step = run.pipeline.engine_seconds
    parts = {"World.step": step, "driver": driver.seconds, "recorder": recorder.seconds,
             "assessment": assessment.seconds}
    parts["the rest"] = wall - sum(parts.values())
    parts = {name: 1000 * s / ticks for name, s in parts.items()}
    # Outside World.step in CPU time: what another job on a shared machine disturbs far less
    # than the wall-time parts above.
    step_cpu = run.pipeline.engine_cpu_seconds
    parts["cpu outside/step"] = (cpu - step_cpu) / step_cpu
    return ticks / wall, ticks / cpu, parts


def breakdown(parts: dict[str, float]) -> str:
    timed = {name: ms for name, ms in parts.items() if name != "cpu outside/step"}
    step = timed["World.step"]
    outside = sum(timed.values()) - step
    return (f"World.step {step:.3f} ms, everything else {outside:.3f} ms "
            f"({outside / step:.2f}x World.step: "
            + ", ".join(f"{name} {ms:.3f}" for name, ms in timed.items() if name != "World.step")
            + f"); in CPU time everything else is {parts['cpu outside/step']:.2f}x World.step")


def crafter(python: str, steps: int) -> tuple[float, float]:
    """Crafter's steps per second, in wall and in CPU time."""
    done = subprocess.run([python, "-c", CRAFTER, str(steps)], capture_output=True, text=True,
                          check=True)
    wall, cpu = done.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crafter-python", required=True, help="an interpreter with crafter")
    parser.add_argument("--minutes", type=int, default=300,
                        help="our run's length (300: 18,000 ticks)")
    parser.add_argument("--steps", type=int, default=600, help="Crafter's steps per block")
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()
    ratios, cpu_ratios, outside, cpu_outside = [], [], [], []
    for round_ in range(args.rounds):
        a, a_cpu, parts = ours(args.minutes)
        b, b_cpu = crafter(args.crafter_python, args.steps)
        ratios.append(a / b)
        cpu_ratios.append(a_cpu / b_cpu)
        outside.append((sum(parts.values()) - parts["cpu outside/step"] - parts["World.step"])
                       / parts["World.step"])
        cpu_outside.append(parts["cpu outside/step"])
        print(f"round {round_ + 1}: asiworld run {a:,.0f} ticks/s, Crafter's world step "
              f"{b:,.0f} steps/s: {a / b:.1f}x; in CPU time {a_cpu:,.0f} against {b_cpu:,.0f}: "
              f"{a_cpu / b_cpu:.1f}x (load {os.getloadavg()[0]:.1f})", flush=True)
        print(f"  a tick: {breakdown(parts)}", flush=True)
    print(f"median ratio {statistics.median(ratios):.1f}x (CPU time "
          f"{statistics.median(cpu_ratios):.1f}x) over {args.rounds} rounds; outside World.step: "
          f"median {statistics.median(outside):.2f}x its time, in CPU time "
          f"{statistics.median(cpu_outside):.2f}x (target <= 1)")


if __name__ == "__main__":
    main()
