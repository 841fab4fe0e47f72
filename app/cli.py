"""The `asiworld` command.

Each layer declares its sub-commands in a `register(subparsers)` function (its `command_line.py`,
or its `commands.py` where that is all it holds); a sub-command's `func` is the function that runs
it, or its name as "module:function" for a module heavier than the parser should be. The command
table names every `register` the same way, and `load` imports them (all but `mcp`'s, which parses
with its own alone) when a command line is parsed and a command's function when it runs: the one
place asiworld imports its own modules late, so `asiworld --help` and `asiworld mcp` start without
the engine, the server or the study runner they do not use. A module that goes missing is still
an ImportError at start-up and in the tests, never a command that quietly disappears. What one
layer's command needs from a layer above it is handed to its `register` here (`serve --study`
gets the study package's opener), so no layer imports upwards.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable
from functools import partial
from typing import Any

from asiworld.arguments import Parser
from asiworld.engine import codes
from asiworld.engine.errors import CodedError
from asiworld.signals import restore_sigint
from asiworld.spawn_guard import WHY, rerunning_main

Register = Callable[[argparse._SubParsersAction], None]
MCP = "asiworld.agents.clients.command_line:register"  # agent and mcp


def load(target: str) -> Callable[..., Any]:
    """The function "module:function" names, its module imported now (see the docstring)."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def open_study(*args: Any, **kwargs: Any) -> Any:
    """`serve --study`'s opener (asiworld.study.live), imported when a study is opened."""
    return load("asiworld.study.live:open_study")(*args, **kwargs)


def command_table() -> tuple[Register, ...]:
    """Every layer's `register`, in the order `asiworld --help` lists their commands."""
    return (
        load("asiworld.headless.command_line:register"),  # run, bench
        partial(load("asiworld.server.commands:register"), open_study=open_study),  # serve
        load("asiworld.headless.command_line:register_program"),  # program run, api-doc
        load("asiworld.evaluation.command_line:register"),  # report, score, leaderboard
        load("asiworld.replay.command_line:register"),  # replay info/verify/export
        load("asiworld.headless.command_line:register_samples"),  # replay samples (after replay)
        load(MCP),  # agent, mcp
        load("asiworld.agents.stand_in.command_line:register"),  # fake-model
        load("asiworld.study.command_line:register"),  # study new/check/run/turn/estimate
        load("asiworld.local_model.commands:register"),  # model serve
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
    return _parser((load(MCP),))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if rerunning_main():  # a script without a main guard, run again in a worker: do nothing
        print(f"error: {codes.MAIN_IN_A_WORKER}: {WHY}", file=sys.stderr)
        return 2
    if argv[:1] == ["serve"]:
        restore_sigint()  # before serve imports anything: a Ctrl-C while it starts stops it
    try:
        return _run(argv)
    except KeyboardInterrupt:  # Ctrl-C before a command handles it (while it imports, starts)
        print("stopped (Ctrl-C)", file=sys.stderr)
        return 130  # what a shell reports for a command ended by SIGINT


def _run(argv: list[str]) -> int:
    parser = quick_parser(argv) or build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0), or a bad argument already said on one line (2)
        return exc.code if isinstance(exc.code, int) else 2
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        func = load(args.func) if isinstance(args.func, str) else args.func
        code = int(func(args) or 0)
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
