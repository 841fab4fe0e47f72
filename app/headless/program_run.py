"""`asiworld program run FILE.py`: run one character controlled by a program, headless."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from asiworld.engine import actions
from asiworld.programs.api import api_doc
from asiworld.programs.kit import start_in_tier as enter_tier
from asiworld.session import Session

ACTIVE = ("running", "waiting")


def api_doc_command(_args: argparse.Namespace) -> int:
    print(api_doc(actions.describe()))
    return 0


def run_program(
    source: str,
    *,
    seed: int,
    minutes: float,
    name: str = "program",
    in_process: bool = False,
    keep_ticking: bool = False,
    start_in_tier: int | None = None,
) -> dict[str, Any]:
    """Run `source` for a fresh character in a fresh world; return a JSON-ready report."""
    session = Session.build(seed=seed, in_process=in_process)
    world, manager, pipeline = session.world, session.programs, session.pipeline
    char = world.add_character(name="author", label="program")
    if start_in_tier is not None:
        enter_tier(pipeline, char, start_in_tier)
    try:
        submitted = manager.submit(char, name, source)
        if not submitted["ok"]:
            return {"ok": False, "error": submitted, "ticks": 0}
        pid = submitted["id"]
        ticks = int(minutes * 60)
        def ended() -> bool:
            return not keep_ticking and manager.status(char, pid)["status"] not in ACTIVE

        pipeline.run_until(world.tick + ticks, stop=ended)
        own = world.observe(char, consume=False)["self"]
        status = manager.status(char, pid)
        return {
            "ok": True,
            "ticks": world.tick,
            "status": status,
            "logs": manager.logs(char, pid),
            "outcome": manager.outcome(char, pid),
            "character": {
                k: own.get(k)
                for k in ("x", "y", "area", "health", "hunger", "energy", "inventory", "equipment")
            },
            "state_hash": world.state_hash(),
        }
    finally:
        pipeline.close()


def run_command(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as exc:
        print(f"asiworld program run: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2
    if args.minutes <= 0:
        print("asiworld program run: --minutes must be above 0", file=sys.stderr)
        return 2
    report = run_program(
        source,
        seed=args.seed,
        minutes=args.minutes,
        name=args.name or path.stem,
        in_process=args.in_process,
        keep_ticking=args.keep_ticking,
        start_in_tier=args.start_in_tier,
    )
    print(json.dumps(report, indent=2))
    if not report["ok"]:
        return 1
    return 0 if report["status"]["status"] in ("finished", "running", "waiting") else 1
