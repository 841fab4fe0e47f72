"""Replay benchmark: file size per simulation minute for 9 characters, and seek time.

    python benchmarks/bench_replay.py                    # built-in configurations, 30 minutes
    python benchmarks/bench_replay.py --minutes 300 --policy random
    python benchmarks/bench_replay.py --study --minutes 300   # the demo study, model turns in

Targets (issue 7): a 300-minute, 9-character replay under 15 MB; seek to a random tick under
150 ms (server and browser together; this measures the server's part: reading and applying).
The size is measured on `--minutes` and projected linearly to 300 minutes.

`--study` records the nine-configuration demo study instead (app/study/demo.py: six model seats
through the stand-in model over loopback HTTP, three built-ins, lockstep, a 64 x 64 world), whose
replay carries the model turns of its transcripts (chunk T); issue 17's goal for 300 minutes with
model turns is under 15 MB, and the seek median stays at or under 50 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from asiworld.replay import Replay  # noqa: E402
from asiworld.replay.session import RunRecording, header_for_world  # noqa: E402

TICKS_PER_MINUTE = 60
TARGET_MINUTES = 300
TARGET_BYTES = 15_000_000


def real_world(seed: int, characters: int):
    from asiworld.engine import World, load_content
    from asiworld.engine.frames import FrameBuilder

    world = World.create(seed=seed, content=load_content(), size=128)
    chars = [world.add_character(name=f"bench{i}", label="bench") for i in range(characters)]
    return world, FrameBuilder(world), chars


def random_action(rng: random.Random, world, cid: int) -> dict:
    """A busy, seeded policy: the size measure needs characters that keep changing things."""
    ent = world.entities[cid]
    x, y = ent.x, ent.y
    r = rng.random()
    if r < 0.4:
        return {"type": "move_to", "x": x + rng.randint(-8, 8), "y": y + rng.randint(-8, 8)}
    if r < 0.7:
        dx, dy = rng.choice(((1, 0), (-1, 0), (0, 1), (0, -1)))
        return {"type": "gather", "x": x + dx, "y": y + dy}
    if r < 0.8:
        return {"type": "craft", "recipe": rng.choice(["workbench", "wooden_pickaxe", "torch"])}
    if r < 0.9:
        return {"type": "move", "dir": rng.choice("nsew")}
    return {"type": "eat", "item": "berries"}


def builtin_driver(world, chars: list[int], seed: int):
    """The built-in configurations, round-robin over the characters."""
    from asiworld.agents.bots.builtin import available, make_agent
    from asiworld.agents.bots.driver import AgentDriver

    names = [n for n in available() if n != "random"] or available()
    if not names:
        return None, []
    from asiworld.pipeline import Pipeline

    pipeline = Pipeline(world)
    driver = pipeline.add_driver(AgentDriver())
    by_name: dict[str, list[int]] = {}
    for i, cid in enumerate(chars):
        name = names[i % len(names)]
        driver.add(cid, make_agent(name, seed=seed + i), tick=world.tick)
        by_name.setdefault(name, []).append(cid)
    return pipeline, [{"name": n, "characters": c} for n, c in by_name.items()]


def record(path: Path, minutes: int, characters: int, seed: int, policy: str) -> float:
    """Record the run; returns the simulation minutes actually recorded."""
    world, fb, chars = real_world(seed, characters)
    rng = random.Random(seed)
    driver, configurations = None, []
    if policy == "builtin":
        driver, configurations = builtin_driver(world, chars, seed)
    configurations = configurations or [{"name": "bench", "characters": chars}]
    header = header_for_world(world, configurations, minutes * 60)
    start = time.perf_counter()
    recording = RunRecording.start(path, world, fb, header)
    spent = 0.0
    try:
        for _ in range(minutes * TICKS_PER_MINUTE):
            if driver is not None:  # the built-in agents' pipeline
                events = driver.step().events
            else:
                for cid in chars:
                    if rng.random() < 0.1:
                        world.submit(cid, random_action(rng, world, cid))
                events = world.step()
            t = time.perf_counter()
            recording.after_step(events)
            spent += time.perf_counter() - t
    except Exception as exc:  # an engine failure ends the run; measure what was recorded
        print(f"the world stopped at tick {world.tick}: {type(exc).__name__}: {exc}")
    recording.close()
    total = time.perf_counter() - start
    done = world.tick / TICKS_PER_MINUTE
    who = "built-in configurations" if driver is not None else "a seeded random policy"
    print(
        f"recorded {done:.1f} min with {who} in {total:.1f} s "
        f"(recorder {spent:.2f} s, {spent / max(1, world.tick) * 1e6:.0f} us per tick)"
    )
    return done


def record_study(out: Path, minutes: int) -> float:
    """Run the demo study into `out`; the simulation minutes recorded."""
    from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer
    from asiworld.study.demo import demo_text
    from asiworld.study.run import run_study
    from asiworld.study.spec import parse_study

    start = time.perf_counter()
    with FakeModelServer(FakeModel()) as server:
        text = demo_text(server.url, minutes=minutes)
        (results,) = run_study(parse_study(text), text, out, say=lambda line: None)
    with Replay.open(out / "replay.asirep") as replay:
        turns = [r for r in replay.index if r.kind == "T"]
        count = sum(len(c["turns"]) for c in replay.turns())
    transcripts = sum(p.stat().st_size for p in (out / "transcripts").glob("*.jsonl"))
    print(
        f"recorded the demo study, {minutes} min, in {time.perf_counter() - start:.1f} s: "
        f"{count:,} model turns in {len(turns)} T chunks of {sum(r.size for r in turns):,} bytes "
        f"(transcripts {transcripts:,} bytes of JSON lines); state hash {results['state_hash']}"
    )
    return results["ticks"] / TICKS_PER_MINUTE


def seek(path: Path, seeks: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    times = []
    with Replay.open(path) as replay:
        first, last = replay.first_tick, replay.last_tick
        for _ in range(seeks):
            tick = rng.randint(first, last)
            fresh = Replay.open(path)  # no warm chunk cache: the worst case for one seek
            t = time.perf_counter()
            fresh.frame_at(tick)
            times.append((time.perf_counter() - t) * 1000)
            fresh.close()
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=int, default=30)
    parser.add_argument("--characters", type=int, default=9)
    parser.add_argument("--seeks", type=int, default=40)
    parser.add_argument("--policy", choices=("builtin", "random"), default="builtin")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", help="keep the replay at this path")
    parser.add_argument("--study", action="store_true",
                        help="record the demo study (model turns in the replay) instead")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        if args.study:
            out = Path(args.keep) if args.keep else Path(tmp) / "study"
            minutes = record_study(out, args.minutes)
            path = out / "replay.asirep"
        else:
            path = Path(args.keep) if args.keep else Path(tmp) / "bench.asirep"
            minutes = record(path, args.minutes, args.characters, args.seed, args.policy)
        size = path.stat().st_size
        per_minute = size / minutes
        projected = per_minute * TARGET_MINUTES
        verdict = "under" if projected < TARGET_BYTES else "OVER"
        print(
            f"size: {size:,} bytes for {minutes:.1f} min x {args.characters} characters = "
            f"{per_minute:,.0f} bytes per simulation minute"
        )
        print(
            f"projected {TARGET_MINUTES} min: {projected / 1e6:.2f} MB "
            f"({verdict} the {TARGET_BYTES / 1e6:.1f} MB target)"
        )
        times = seek(path, args.seeks, args.seed)
        times.sort()
        p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
        print(
            f"seek to a random tick (cold open + keyframe + deltas): median "
            f"{statistics.median(times):.1f} ms, p95 {p95:.1f} ms, max {times[-1]:.1f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
