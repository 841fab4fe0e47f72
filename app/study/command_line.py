"""`asiworld study new|check|run|turn|estimate` as the command line reads them; each names the
function in asiworld.study.commands that runs it (imported by asiworld.cli when it runs)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from asiworld import arguments as checked
from asiworld.evaluation import figure_options


def register(sub: argparse._SubParsersAction) -> None:
    study = sub.add_parser("study", help="a study: N agent configurations in one shared world")
    verbs = study.add_subparsers(dest="verb", metavar="VERB")

    new = verbs.add_parser("new", help="write a commented example study file")
    new.add_argument("file", nargs="?", type=Path, default=Path("study.toml"))
    new.add_argument("--force", action="store_true", help="overwrite an existing file")
    kind = new.add_mutually_exclusive_group()
    kind.add_argument("--demo", action="store_true",
                      help="the nine-configuration demo (six seats through asiworld fake-model)")
    kind.add_argument("--local-model", action="store_true",
                      help="two seats of a real model (SmolLM2-135M on asiworld model serve) "
                           "and the planner")
    new.set_defaults(func="asiworld.study.commands:cmd_new")

    check = verbs.add_parser("check", help="check a study file without running it")
    check.add_argument("file", type=Path)
    check.set_defaults(func="asiworld.study.commands:cmd_check")

    run = verbs.add_parser("run", help="run a study: every configuration in one shared world")
    run.add_argument("file", type=Path)
    run.add_argument("--out", type=Path, required=True, help="folder for the results")
    run.add_argument("--force", action="store_true",
                     help="replace the results of an earlier study in --out (an interrupted "
                          "study in --out is resumed without it)")
    run.add_argument("--port", type=checked.port, default=None,
                     help="loopback port of the external seats' agent API (default: the study "
                     "file's [serve] port, else a free one)")
    run.add_argument("--seeds", type=checked.seed_list, default=None, metavar="A..B",
                     help="one world per seed (1..4 or 3,5,8), instead of the file's seeds")
    run.add_argument("--ray", default=None, metavar="ADDRESS",
                     help="play each seed's world as a Ray task: local (start Ray here), "
                          "auto (this machine's cluster) or a cluster address")
    run.add_argument("--quiet", action="store_true",
                     help="no progress line (on a terminal: one line rewritten in place; "
                          "otherwise a line per simulated minute)")
    figure_options.add_arguments(run)
    run.set_defaults(func="asiworld.study.commands:cmd_run")

    turn = verbs.add_parser(
        "turn", help="print the exact request of one model call of a study (rebuilt from its "
        "transcript, byte for byte)")
    turn.add_argument("folder", type=Path, help="the study's --out folder (or one seed's E1, ...)")
    turn.add_argument("name", help="the model configuration's name")
    turn.add_argument("call", type=checked.positive_int, help="the call number (from 1)")
    turn.add_argument("--pretty", action="store_true",
                      help="indented JSON for reading (not the bytes sent)")
    turn.add_argument("--answer", action="store_true",
                      help="also print what the model answered and what it did (to stderr)")
    turn.set_defaults(func="asiworld.study.commands:cmd_turn")

    estimate = verbs.add_parser(
        "estimate", help="what a study's model seats will cost at most: calls, tokens, dollars")
    estimate.add_argument("file", type=Path)
    estimate.add_argument("--seeds", type=checked.seed_list, default=None, metavar="A..B",
                          help="as for study run: one world per seed")
    estimate.set_defaults(func="asiworld.study.commands:cmd_estimate")

    study.set_defaults(func=lambda args: _usage(study))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2
