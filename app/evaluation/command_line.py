"""The flags of `asiworld report`, `asiworld score` and `asiworld leaderboard`.

Each command's function is named "module:function" (asiworld.evaluation.commands), imported by
asiworld.cli when the command runs: the parser is built without the reports, the statistics and
the figures.
"""

from __future__ import annotations

import argparse

from asiworld import arguments as checked
from asiworld.evaluation import figure_options


def register(subparsers: argparse._SubParsersAction) -> None:
    report = subparsers.add_parser(
        "report",
        help="rebuild results.json, report.md and figures from run directories; compare runs",
        description="Rebuild each DIR's results.json, report.md and figures from DIR/events.jsonl "
        "(meta kept from DIR/results.json). With several DIRs also write a comparison: statistics "
        "across worlds (means with bootstrap intervals, success rates, paired differences against "
        "a reference) and tables whose cells read 'E1 / E2 / ...' in the order given. A folder "
        "that `--seeds` wrote (E1, E2, ... inside) stands for its runs, compared into it.",
    )
    report.add_argument("dirs", nargs="+", metavar="DIR",
                        help="run directories (E1, E2, ...), or a folder that --seeds wrote")
    report.add_argument(
        "--out", help="where the comparison goes (default: the --seeds folder, else DIR1's "
        "parent/comparison)"
    )
    report.add_argument("--reference", metavar="NAME",
                        help="the configuration the others are compared with, world by world "
                        "(default: the best mean score)")
    report.add_argument("--allow-mixed", action="store_true",
                        help="compare runs whose horizon, content or clock differ (refused "
                        "otherwise); the report names the differences")
    figure_options.add_arguments(report)
    report.set_defaults(func="asiworld.evaluation.commands:run_report")

    score = subparsers.add_parser(
        "score",
        help="composite score and rank for a CSV of raw measures",
        description="Columns: name,outfit,depth,hero,kills,bosses,crafts,coins,trial,downs; "
        "booleans Y/N, 1/0 or true/false.",
    )
    score.add_argument("file", type=checked.existing_file, metavar="FILE.csv")
    score.add_argument("--json", action="store_true", help="print JSON instead of a table")
    score.set_defaults(func="asiworld.evaluation.commands:run_score")

    board = subparsers.add_parser(
        "leaderboard",
        help="rank the configurations of several studies or runs (Markdown, CSV, HTML, LaTeX)",
        description="Rank every configuration of the given studies or runs by its mean score "
        "over its own study's worlds, with its interval, task success rates, cost in dollars "
        "(where the study set prices) and score per dollar. A DIR is a run, a folder that "
        "--seeds wrote, or a study's --out. The results must share one content hash and one "
        "horizon, and pass the results schema; otherwise nothing is written.",
    )
    board.add_argument("dirs", nargs="+", metavar="DIR",
                       help="a run, a --seeds folder or a study's output folder")
    board.add_argument("--out", required=True, type=checked.writable_dir,
                       help="where leaderboard.md, .csv, .html and .tex go")
    board.set_defaults(func="asiworld.evaluation.commands:run_leaderboard")
