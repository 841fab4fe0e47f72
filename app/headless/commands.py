"""`asiworld run` and `asiworld bench`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    run = sub.add_parser("run", help="a headless run with built-in configurations")
    run.add_argument("--seed", type=int, default=7)
    run.add_argument("--minutes", type=int, default=300, help="simulation minutes (default 300)")
    run.add_argument("--agents", default="forager",
                     help="comma-separated configurations; repeat a name for several characters")
    run.add_argument("--out", type=Path, default=None, help="folder for results.json and more")
    run.add_argument("--stagger", type=int, default=2, help="ticks between two characters' entry")
    run.add_argument("--think-ticks", type=int, default=3, help="model latency, in ticks")
    run.add_argument("--size", type=int, default=None, help="map width and height")
    run.set_defaults(func=cmd_run)

    bench = sub.add_parser("bench", help="benchmarks (engine)")
    bench.add_argument("what", choices=["engine"])
    bench.add_argument("--ticks", type=int, default=1800)
    bench.set_defaults(func=cmd_bench)


def _fail(code: str, message: str) -> int:
    print(f"error [{code}]: {message}", file=sys.stderr)
    return 2


def cmd_run(args: argparse.Namespace) -> int:
    from app.agents.builtin import UnknownConfiguration, available

    from .run import Run, RunConfig, write_outputs

    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    if not agents:
        return _fail("bad_argument", "--agents needs at least one configuration")
    unknown = [a for a in agents if a not in available()]
    if unknown:
        return _fail("unknown_configuration", f"unknown configuration {unknown[0]!r};"
                     f" available: {', '.join(available())}")
    if args.minutes <= 0:
        return _fail("bad_argument", "--minutes must be positive")
    if args.size is not None and args.size < 48:
        return _fail("bad_argument", "--size must be at least 48")
    config = RunConfig(seed=args.seed, minutes=args.minutes, agents=agents,
                       stagger_ticks=max(0, args.stagger), think_ticks=max(1, args.think_ticks),
                       size=args.size, out=args.out, progress=True)
    try:
        run = Run(config)
        results = run.run()
    except UnknownConfiguration as exc:
        return _fail("unknown_configuration", str(exc))
    if args.out is not None:
        write_outputs(args.out, run, results)
        print(f"wrote {args.out}/results.json", file=sys.stderr)
    print(json.dumps(_summary(results), indent=2))
    return 0


def _summary(results: dict) -> dict:
    keep = ("seed", "minutes", "ticks", "wall_seconds", "state_hash")
    out = {k: results[k] for k in keep if k in results}
    out["configurations"] = results.get("configurations", [])
    return out


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench import main

    main(ticks=args.ticks)
    return 0
