"""The headless commands as the command line reads them: `run` and `bench`, `program run` and
`program api-doc`, `replay samples`. Each names the function that runs it ("module:function",
imported by asiworld.cli when the command runs), so the parser is built without the engine, the
built-in agents or the evaluation."""

from __future__ import annotations

import argparse
from pathlib import Path

from asiworld import arguments as checked
from asiworld.evaluation import figure_options
from asiworld.resources import shipped


def register(sub: argparse._SubParsersAction) -> None:
    run = sub.add_parser("run", help="a headless run with built-in configurations")
    run.add_argument("--seed", type=checked.count, default=7)
    run.add_argument("--minutes", type=checked.positive_int, default=300, help="simulation minutes (default 300)")
    run.add_argument(
        "--agents",
        default="forager",
        help="comma-separated configurations; repeat a name for several characters",
    )
    run.add_argument("--out", type=checked.writable_dir, default=None, help="folder for results.json and more")
    run.add_argument("--stagger", type=checked.count, default=2, help="ticks between two characters' entry")
    run.add_argument("--think-ticks", type=checked.count, default=3, help="model latency, in ticks")
    run.add_argument("--size", type=checked.map_size, default=None,
                     help="map width and height (default the content's, 128)")
    run.add_argument(
        "--runs",
        type=checked.positive_int,
        default=None,
        help="repeated evaluations E1..EN (seeds SEED, SEED+1, ... unless --seeds)",
    )
    run.add_argument(
        "--seeds", default=None, help="comma-separated seeds, one evaluation (E1, E2, ...) per seed"
    )
    run.add_argument(
        "--workers",
        type=checked.positive_int,
        default=1,
        help="run repeated evaluations on this many local processes",
    )
    run.add_argument(
        "--ray",
        default=None,
        metavar="ADDRESS",
        help="fan repeated evaluations out on a Ray cluster (needs ray installed)",
    )
    run.add_argument(
        "--json", action="store_true", help="print the run's summary as JSON instead of a table"
    )
    figure_options.add_arguments(run)
    run.set_defaults(func="asiworld.headless.commands:cmd_run")

    bench = sub.add_parser("bench", help="benchmarks (engine)")
    bench.add_argument("what", choices=["engine"])
    bench.add_argument("--ticks", type=checked.positive_int, default=1800)
    bench.add_argument("--counts", type=checked.counts, default=(1, 9, 100), metavar="N,N,...",
                       help="how many characters in each case (default 1,9,100)")
    bench.add_argument("--size", type=checked.map_size, default=None,
                       help="map width and height (default the content's, 128)")
    bench.add_argument("--spread", action="store_true",
                       help="move each character to a random free tile after joining (default: "
                            "packed round the plaza, where every join lands)")
    bench.add_argument("--repeat", type=checked.positive_int, default=1, metavar="N",
                       help="measure every count N times, the counts in turn, and print the "
                            "medians per character-tick and each count's ratio to the first "
                            "(default 1)")
    bench.set_defaults(func="asiworld.headless.commands:cmd_bench")


def register_program(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "program",
        help="author tools for hosted programs",
        description="Tools for agent-authored programs (see docs/programs.md).",
    )
    sub = p.add_subparsers(dest="program_command", metavar="SUBCOMMAND")
    run = sub.add_parser(
        "run",
        help="run a program for one character headless and print status, logs and outcome as JSON",
    )
    run.add_argument("file", help="the program's source file (.py)")
    run.add_argument("--seed", type=int, default=7)
    run.add_argument(
        "--minutes", type=float, default=10.0, help="simulation minutes (60 ticks each)"
    )
    run.add_argument("--in-process", action="store_true", help="run programs in this process")
    run.add_argument("--name", default=None, help="program name (default: the file name)")
    run.add_argument(
        "--start-in-tier",
        type=int,
        choices=(1, 2, 3),
        default=None,
        help="start inside a fresh instance of this dungeon tier with iron gear, the sigils it "
        "needs and (Tier 3) a lit torch: a set-up for dungeon programs, outside the rules",
    )
    run.add_argument(
        "--keep-ticking",
        action="store_true",
        help="run all the minutes even after the program ends",
    )
    run.set_defaults(func="asiworld.headless.program_run:run_command")
    doc = sub.add_parser(
        "api-doc",
        help="print the table of action calls that docs/programs.md holds (from the engine's "
        "action table)",
    )
    doc.set_defaults(func="asiworld.headless.program_run:api_doc_command")
    p.set_defaults(func=lambda _args: (p.print_help(), 2)[1])


def register_samples(subparsers: argparse._SubParsersAction) -> None:
    replay = subparsers.choices.get("replay")
    actions = [
        a for a in getattr(replay, "_actions", []) if isinstance(a, argparse._SubParsersAction)
    ]
    # `asiworld replay samples` when the replay command exists; else a command of its own.
    parent, name = (actions[0], "samples") if actions else (subparsers, "replay-samples")
    p = parent.add_parser(name, help="make the sample replays in replays/ (built-in agents)")
    p.add_argument("--out", type=Path, default=shipped("replays"), help="folder (default: replays/)")
    p.add_argument("--only", default=None, help="one sample by name")
    p.add_argument("--minutes", type=int, default=None, help="override every sample's length")
    p.add_argument("--list", action="store_true", help="list the samples and exit")
    p.set_defaults(func="asiworld.headless.samples:cmd_samples")
