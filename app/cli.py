"""The `asiworld` command.

Each layer owns its sub-commands in its own `commands.py` with a `register(subparsers)` function;
command_table() imports every one directly, so a module that goes missing is an ImportError at
start-up (of every command but `mcp`, which starts with its own module alone) and in the tests,
never a command that quietly disappears. What one layer's command needs from a layer above it is
handed to its `register` here (`serve --study` gets the study package's opener), so no layer
imports upwards.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from functools import partial

from asiworld.arguments import Parser
from asiworld.engine.errors import CodedError

Register = Callable[[argparse._SubParsersAction], None]


def command_table() -> tuple[Register, ...]:
    """Every layer's `register`, in the order `asiworld --help` lists their commands."""
    from asiworld.agents.clients import commands as agent_commands  # agent, mcp
    from asiworld.agents.stand_in import commands as stand_in_commands  # fake-model
    from asiworld.evaluation import commands as evaluation_commands  # report, score
    from asiworld.headless import commands as headless_commands  # run, bench
    from asiworld.headless import program_run as program_commands  # program run, api-doc
    from asiworld.headless import samples as samples_commands  # replay samples (after replay)
    from asiworld.local_model import commands as local_model_commands  # model serve
    from asiworld.replay import commands as replay_commands  # replay info/verify/export
    from asiworld.server import commands as server_commands  # serve
    from asiworld.study import commands as study_commands  # study new/check/run
    from asiworld.study.live import open_study

    return (
        headless_commands.register,
        partial(server_commands.register, open_study=open_study),  # serve --study
        program_commands.register,
        evaluation_commands.register,
        replay_commands.register,
        samples_commands.register,
        agent_commands.register,
        stand_in_commands.register,
        study_commands.register,
        local_model_commands.register,
    )


def _parser(table: tuple[Register, ...]) -> argparse.ArgumentParser:
    parser = Parser(
        prog="asiworld",
        description="ASIWorld: a persistent survival sandbox for evaluating long-running agents.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in table:
        register(sub)
    return parser


def build_parser() -> argparse.ArgumentParser:
    return _parser(command_table())


def quick_parser(argv: list[str]) -> argparse.ArgumentParser | None:
    """`asiworld mcp` is launched by an MCP client that waits for it to answer: it parses with
    its own module alone, so the server layer (flask, socketio) and the rest are not imported."""
    if argv[:1] != ["mcp"]:
        return None
    from asiworld.agents.clients import commands as agent_commands

    return _parser((agent_commands.register,))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = quick_parser(argv) or build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0), or a bad argument already said on one line (2)
        return exc.code if isinstance(exc.code, int) else 2
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # inside the try: a closed pipe shows here, not at exit
        return code
    except CodedError as exc:  # a user's mistake a command did not catch: a sentence, exit 2
        print(f"error: {exc.code}: {exc.message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`asiworld score FILE --json | head -1`): stop quietly. Python
        # flushes stdout again at exit, so point it at devnull first (the documented way).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
