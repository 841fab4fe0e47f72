"""The `asiworld` command.

Each layer owns its sub-commands in its own `commands.py` with a `register(subparsers)` function;
the list below imports every one directly, so a module that goes missing is an ImportError at
start-up and in the tests, never a command that quietly disappears.
"""

from __future__ import annotations

import argparse
import sys

from asiworld.agents import commands as agent_commands  # agent, mcp
from asiworld.engine.errors import CodedError
from asiworld.evaluation import commands as evaluation_commands  # report, score
from asiworld.headless import commands as headless_commands  # run, bench
from asiworld.programs import commands as program_commands  # program run
from asiworld.replay import commands as replay_commands  # replay info/verify/export
from asiworld.replay import samples_commands  # replay samples (after replay_commands)
from asiworld.server import commands as server_commands  # serve
from asiworld.study import commands as study_commands  # study new/check/run

COMMAND_MODULES = (
    headless_commands,
    server_commands,
    program_commands,
    evaluation_commands,
    replay_commands,
    samples_commands,
    agent_commands,
    study_commands,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="asiworld",
        description="ASIWorld: a persistent survival sandbox for evaluating long-running agents.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except CodedError as exc:  # a user's mistake a command did not catch: a sentence, exit 2
        print(f"error: {exc.code}: {exc.message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
