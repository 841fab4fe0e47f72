"""`asiworld study new|check|run`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    study = sub.add_parser("study", help="a study: N agent configurations in one shared world")
    verbs = study.add_subparsers(dest="verb", metavar="VERB")

    new = verbs.add_parser("new", help="write a commented example study file")
    new.add_argument("file", nargs="?", type=Path, default=Path("study.toml"))
    new.add_argument("--force", action="store_true", help="overwrite an existing file")
    new.add_argument("--demo", action="store_true",
                     help="the nine-configuration demo (six seats through asiworld fake-model)")
    new.set_defaults(func=cmd_new)

    check = verbs.add_parser("check", help="check a study file without running it")
    check.add_argument("file", type=Path)
    check.set_defaults(func=cmd_check)

    study.set_defaults(func=lambda args: _usage(study))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def fail(code: str, message: str) -> int:
    print(f"error: {code}: {message}", file=sys.stderr)
    return 2


def cmd_new(args: argparse.Namespace) -> int:
    from .demo import demo_text
    from .spec import example_text

    if args.file.exists() and not args.force:
        return fail("file_exists", f"{args.file} exists; give another name or --force")
    try:
        args.file.write_text(demo_text() if args.demo else example_text(), encoding="utf-8")
    except OSError as exc:
        return fail("cannot_write", f"cannot write {args.file}: {exc.strerror or exc}")
    print(f"wrote {args.file}; check it with: asiworld study check {args.file}",
          file=sys.stderr)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from .spec import StudyError, load_study

    try:
        study, _ = load_study(args.file)
    except StudyError as exc:
        return fail(exc.code, exc.message)
    kinds = ", ".join(f"{c.name} ({c.kind})" for c in study.configurations)
    print(f"{args.file}: {len(study.configurations)} configurations: {kinds}; "
          f"{study.world.minutes} minutes; {study.clock.describe()}")
    return 0
