"""`asiworld replay samples`: (re)make the sample replays in `replays/` with the built-in
configurations, so a fresh `asiworld serve` has something to show on /replays.

Each sample is a headless run (`asiworld run ... --out DIR`, which records DIR/replay.asirep)
whose replay file is moved to `replays/NAME.asirep`. Same seed, same agents, same engine and
content: the same file contents (bar the created-at time).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from asiworld import arguments as checked
from asiworld.engine import codes
from asiworld.replay.headless import REPLAY_NAME
from asiworld.resources import shipped

from .run import Run, RunConfig

SAMPLES_DIR = shipped("replays")


@dataclass(frozen=True)
class Sample:
    name: str
    title: str
    agents: tuple[str, ...]
    minutes: int
    seed: int


# Each sample shows what the viewer's docs promise (tested on the shipped files): a dungeon
# cleared, its boss defeated, a knockdown and the recovery after it. The rusher goes in with a
# stone sword and no armor, so it is knocked down early and often. On seed 7 the rusher, second
# of the three, defeats the Outer Court's gatekeeper at tick 515 (minute 8); of the nine, the
# hasty one clears it at tick 2313 (minute 38). The order matters: a character's random stream
# follows its place in the list.
SAMPLES = (
    Sample(
        "nine-characters-60min",
        "Nine configurations in one world, one hour (seed 7)",
        ("rusher", "planner", "reckless", "forager", "random", "builder", "hasty", "cautious", "light"),
        60,
        7,
    ),
    Sample(
        "three-configurations-30min",
        "Planner, rusher and reckless side by side, half an hour (seed 7)",
        ("planner", "rusher", "reckless"),
        30,
        7,
    ),
)


def make_sample(sample: Sample, out: Path, minutes: int | None = None) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        config = RunConfig(
            seed=sample.seed,
            minutes=minutes or sample.minutes,
            agents=list(sample.agents),
            out=Path(tmp),
        )
        run = Run(config)
        run.title = sample.title
        run.run()
        target = out / f"{sample.name}.asirep"
        shutil.move(str(Path(tmp) / REPLAY_NAME), target)
    return target


def cmd_samples(args: argparse.Namespace) -> int:
    chosen = [s for s in SAMPLES if args.only in (None, s.name)]
    if args.list:
        for s in SAMPLES:
            print(f"{s.name}: {len(s.agents)} characters, {s.minutes} min, seed {s.seed}")
        return 0
    if not chosen:
        names = ", ".join(s.name for s in SAMPLES)
        return checked.refuse(codes.UNKNOWN_SAMPLE, f"no sample {args.only!r}; samples: {names}")
    if args.minutes is not None and args.minutes <= 0:
        return checked.refuse(codes.BAD_ARGUMENT, "--minutes must be positive")
    for sample in chosen:
        path = make_sample(sample, args.out, args.minutes)
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    return 0
