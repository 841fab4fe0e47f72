"""`asiworld run` and `asiworld bench`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from asiworld import arguments as checked
from asiworld.agents.bots.builtin import UnknownConfiguration, available
from asiworld.engine import codes
from asiworld.evaluation import figure_options

from .bench import main
from .multi import RayUnavailable, compare, plan_runs, run_many
from .run import Run, RunConfig, write_outputs


def cmd_run(args: argparse.Namespace) -> int:
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    if not agents:
        return checked.refuse(codes.BAD_ARGUMENT, "--agents needs at least one configuration")
    unknown = [a for a in agents if a not in available()]
    if unknown:
        return checked.refuse(
            codes.UNKNOWN_CONFIGURATION,
            f"unknown configuration {unknown[0]!r}; available: {', '.join(available())}",
        )
    if args.minutes <= 0:
        return checked.refuse(codes.BAD_ARGUMENT, "--minutes must be positive")
    if args.stagger < 0:
        return checked.refuse(codes.BAD_ARGUMENT, "--stagger must be 0 or more ticks")
    seeds = _seeds(args)
    if isinstance(seeds, int):
        return seeds
    if len(seeds) > 1 or args.ray is not None:
        return _run_many(args, agents, seeds)
    config = RunConfig(
        seed=args.seed,
        minutes=args.minutes,
        agents=agents,
        stagger_ticks=max(0, args.stagger),
        think_ticks=max(1, args.think_ticks),
        size=args.size,
        out=args.out,
        progress=True,
        figures=figure_options.from_args(args),
    )
    try:
        run = Run(config)
        results = run.run()
    except UnknownConfiguration as exc:
        return checked.refuse(codes.UNKNOWN_CONFIGURATION, str(exc))
    if args.out is not None:
        write_outputs(args.out, run, results, figures=config.figures)
    if args.json:
        print(json.dumps(_summary(results), indent=2))
    else:
        print(summary_table(results, args.out))
    return 0


def summary_table(results: dict, out: Path | None) -> str:
    """A few lines for a person: the run, each configuration's main measures, and where the
    files are (the whole of it is results.json, or --json)."""
    lines = [
        f"seed {results.get('seed')}, {results.get('minutes')} minutes ({results.get('ticks')} "
        f"ticks) in {results.get('wall_seconds')} s; state hash {results.get('state_hash')}",
    ]
    head = ("configuration", "score", "outfit", "depth", "hero", "kills", "crafts", "downs")
    rows = []
    for conf in results.get("configurations", []):
        m = conf.get("measures", {})
        score = conf.get("score", m.get("score", ""))
        rows.append([str(conf.get("name", "")), f"{score:.1f}" if isinstance(score, float)
                     else str(score)] + [_shown(m.get(k, "")) for k in head[2:]])
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(head)]
    lines.append("  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    if out is not None:  # what is there: `--figures none` draws no figures
        written = [name for name in ("results.json", "report.md", "results.csv", "events.jsonl",
                                     "replay.asirep", "figures") if (Path(out) / name).exists()]
        lines.append(f"files in {out}/: {', '.join(written)}")
    return "\n".join(lines)


def _shown(value: object) -> str:
    if value is True:
        return "Y"
    if value is False:
        return "N"
    return str(value)


def _seeds(args: argparse.Namespace) -> list[int] | int:
    """The seed of every evaluation, or an exit code after saying what is wrong."""
    if args.runs is not None and args.runs < 1:
        return checked.refuse(codes.BAD_ARGUMENT, "--runs must be at least 1")
    if args.workers < 1:
        return checked.refuse(codes.BAD_ARGUMENT, "--workers must be at least 1")
    if args.seeds is None:
        return [args.seed + i for i in range(args.runs or 1)]
    try:
        seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    except ValueError:
        return checked.refuse(
            codes.BAD_ARGUMENT,
            f"--seeds must be whole numbers separated by commas, not {args.seeds!r}"
        )
    if not seeds:
        return checked.refuse(codes.BAD_ARGUMENT, "--seeds needs at least one seed")
    if args.runs is not None and args.runs != len(seeds):
        return checked.refuse(
            codes.BAD_ARGUMENT,
            f"--runs {args.runs} does not match the {len(seeds)} seeds of --seeds"
        )
    return seeds


def _run_many(args: argparse.Namespace, agents: list[str], seeds: list[int]) -> int:
    base = RunConfig(
        seed=seeds[0],
        minutes=args.minutes,
        agents=agents,
        stagger_ticks=args.stagger,
        think_ticks=max(1, args.think_ticks),
        size=args.size,
        figures=figure_options.from_args(args),
    )
    specs = plan_runs(base, seeds, args.out)
    try:
        results = run_many(specs, workers=args.workers, ray_address=args.ray)
    except RayUnavailable as exc:
        return checked.refuse(exc.code, str(exc))
    if args.out is not None:
        compare(args.out, results, base.figures)
        print(
            f"wrote {args.out}/E1..E{len(specs)} and the comparison {args.out}/report.md",
            file=sys.stderr,
        )
    print(
        json.dumps(
            {
                "runs": [
                    {"run": spec.name, **_summary(res)}
                    for spec, res in zip(specs, results, strict=True)
                ]
            },
            indent=2,
        )
    )
    return 0


def _summary(results: dict) -> dict:
    keep = ("seed", "minutes", "ticks", "wall_seconds", "state_hash")
    out = {k: results[k] for k in keep if k in results}
    out["configurations"] = results.get("configurations", [])
    return out


def cmd_bench(args: argparse.Namespace) -> int:
    main(ticks=args.ticks, counts=args.counts, size=args.size, spread=args.spread,
         repeat=args.repeat)
    return 0
