"""`asiworld report`, `asiworld score` and `asiworld leaderboard`: what they run (their flags are
asiworld.evaluation.command_line's, which the command line imports without this module).

    asiworld report DIR [DIR...] [--out OUT] [--reference NAME] [--allow-mixed]
                                               rebuild each run's reports; compare when several
                                               (a folder of E1, E2, ... from --seeds is its runs)
    asiworld score FILE.csv [--json]           composite score and rank for a table of measures
    asiworld leaderboard DIR [DIR...] --out OUT
                                               rank the configurations of several studies/runs
                                               of one setting (leaderboard.py)

Failures print `error: <code>: <sentence>` on stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from asiworld import arguments as checked
from asiworld.engine import codes
from asiworld.evaluation import figure_options, leaderboard
from asiworld.evaluation.figure_options import DEFAULT, FigureOptions
from asiworld.evaluation.report import (
    ReportError,
    compare_runs,
    evaluate,
    load_events,
    write_reports,
)
from asiworld.evaluation.score import score_cohort
from asiworld.evaluation.score_table import TableError, parse_measures


def rebuild_run(run_dir: Path, figures: FigureOptions = DEFAULT) -> dict[str, Any]:
    """Re-assess DIR/events.jsonl and write its reports again (reassess_run)."""
    results = reassess_run(run_dir)
    write_reports(run_dir, results, figures=figures)
    return results


def reassess_run(run_dir: Path) -> dict[str, Any]:
    """Re-assess DIR/events.jsonl, keeping the run's meta and characters from DIR/results.json;
    writes nothing."""
    if not run_dir.is_dir():
        raise ReportError(codes.RUN_DIR_MISSING, f"{run_dir} is not a directory")
    events = load_events(run_dir / "events.jsonl")
    meta: dict[str, Any] = {}
    characters: list[dict[str, Any]] = []
    old: dict[str, Any] = {}
    previous = run_dir / "results.json"
    if previous.is_file():
        try:
            old = json.loads(previous.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ReportError(codes.BAD_RESULTS_JSON,
                              f"{previous} is not JSON: {exc.msg}") from None
        meta = dict(old.get("meta") or {})
        characters = [
            {"id": c["id"], "name": _plain_name(c), "label": c.get("label", "")}
            for c in sorted(old.get("configurations") or [], key=lambda c: c["id"])
            if "id" in c and "name" in c
        ]
    results = evaluate(events, characters, meta)
    # The schema is open: keys a run added beside ours (e.g. spread checks) survive a rebuild.
    for key, value in old.items():
        results.setdefault(key, value)
    results.pop("rows", None)  # written anew beside the report
    return results


def _plain_name(row: dict[str, Any]) -> str:
    # Undo the "#id" that results add to tell apart two characters sharing a name.
    suffix = f"#{row['id']}"
    name = str(row["name"])
    return name[: -len(suffix)] if name.endswith(suffix) else name


def seed_runs(folder: Path) -> list[Path]:
    """The runs of a folder that `--seeds` wrote (E1, E2, ... each with events), in order; an
    empty list for a run directory or anything else."""
    if (folder / "events.jsonl").is_file():
        return []
    found = [(int(d.name[1:]), d) for d in folder.glob("E*")
             if d.name[1:].isdigit() and (d / "events.jsonl").is_file()]
    return [d for _, d in sorted(found)]


def run_report(args: argparse.Namespace) -> int:
    dirs: list[Path] = []
    default_out = None
    for d in map(Path, args.dirs):
        inside = seed_runs(d) if d.is_dir() else []
        dirs += inside or [d]
        if inside and len(args.dirs) == 1:
            default_out = d  # the comparison --seeds wrote is rewritten in place
    if len(dirs) == 1 and (args.reference or args.allow_mixed):
        return checked.refuse(codes.BAD_ARGUMENT, "--reference and --allow-mixed compare several "
                              "runs; give several DIRs or a folder that --seeds wrote")
    figures = figure_options.from_args(args)
    try:
        # every run is read and the comparison checked before anything is written
        runs = [reassess_run(d) for d in dirs]
        if len(runs) > 1:
            out = Path(args.out) if args.out else (
                default_out or dirs[0].resolve().parent / "comparison")
            paths = compare_runs(out, runs, reference=args.reference,
                                 allow_mixed=args.allow_mixed, figures=figures)
        for d, results in zip(dirs, runs, strict=True):
            write_reports(d, results, figures=figures)
            print(f"{d}: report.md, results.json, figures/ rebuilt ({results['events']} events)")
        if len(runs) > 1:
            tags = ", ".join(f"E{i + 1}={d}" for i, d in enumerate(dirs))
            print(f"comparison ({tags}) written to {paths['markdown']}")
    except ReportError as err:
        return checked.refuse(err.code, err.message)
    return 0


def run_leaderboard(args: argparse.Namespace) -> int:
    try:
        # every DIR is read, validated and compared before anything is written
        studies = [leaderboard.read_study(Path(d)) for d in args.dirs]
        leaderboard.check_comparable(studies)
        board = leaderboard.rank(studies)
        paths = leaderboard.write(args.out, board, studies)
    except leaderboard.LeaderboardError as err:
        return checked.refuse(err.code, err.message)
    worlds = sum(len(s.runs) for s in studies)
    print(f"{len(board)} configurations of {len(studies)} studies ({worlds} worlds) ranked: "
          f"{paths['html']}")
    return 0


def run_score(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if not path.is_file():
        return checked.refuse(codes.FILE_NOT_FOUND, f"no file at {path}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return checked.refuse(codes.BAD_ENCODING, f"{path} is not UTF-8 text")
    rows = parse_measures(text)
    if isinstance(rows, TableError):
        return checked.refuse(rows.code, rows.message)
    ranked = score_cohort(rows)
    if args.json:
        out = [{"rank": s.rank, "name": s.name, "score": s.score, "shown": s.shown} for s in ranked]
        print(json.dumps(out, indent=1))
        return 0
    width = max(len("configuration"), *(len(s.name) for s in ranked))
    print(f"{'rank':>4}  {'configuration':<{width}}  {'score':>5}")
    for s in ranked:
        print(f"{s.rank:>4}  {s.name:<{width}}  {s.shown:>5}")
    return 0
