"""The `asiworld` command.

Each layer owns its sub-commands in its own `commands.py` with a `register(subparsers)` function,
so adding a command never means editing a shared file beyond the list below.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Modules that contribute sub-commands; a module that does not exist yet is skipped.
COMMAND_MODULES = (
    "app.headless.commands",  # run, bench
    "app.server.commands",  # serve
    "app.programs.commands",  # program run
    "app.evaluation.commands",  # report, score
    "app.replay.commands",  # replay info/verify/export
    "app.replay.samples_commands",  # replay samples (after app.replay.commands)
    "app.agents.commands",  # agent, mcp
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="asiworld",
        description="ASIWorld: a persistent survival sandbox for evaluating long-running agents.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
