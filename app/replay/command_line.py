"""`asiworld replay info | verify | export` as the command line reads them; each names the
function in asiworld.replay.commands that runs it (imported by asiworld.cli when it runs)."""

from __future__ import annotations

import argparse
from pathlib import Path

from asiworld import arguments as checked


def _replay_or_run(text: str) -> Path:
    """A replay file, or a folder (a run's, a study's) whose one replay is meant."""
    path = Path(text)
    return path if path.is_dir() else checked.existing_file(text)


def register(subparsers: argparse._SubParsersAction) -> None:
    replay = subparsers.add_parser("replay", help="inspect, verify and export replay files")
    sub = replay.add_subparsers(dest="replay_command", metavar="ACTION")
    replay.set_defaults(func=lambda args: (replay.print_help(), 2)[1])

    info = sub.add_parser("info", help="header, duration, counts and size of a replay")
    info.add_argument("file", type=checked.existing_file)
    info.add_argument("--json", action="store_true", help="print one JSON object")
    info.add_argument("--check", action="store_true", help="also read every chunk (CRC check)")
    info.set_defaults(func="asiworld.replay.commands:cmd_info")

    verify = sub.add_parser("verify", help="re-simulate from the input log and compare hashes")
    verify.add_argument("file", type=checked.existing_file)
    verify.add_argument("--until", type=int, default=None, help="stop after this tick")
    verify.set_defaults(func="asiworld.replay.commands:cmd_verify")

    export = sub.add_parser(
        "export", help="draw a tick as PNG, a tick range as GIF, or the whole replay as one HTML file"
    )
    export.add_argument("file", type=_replay_or_run, metavar="RUN_OR_REPLAY",
                        help="a replay file, or a run's or study's folder holding one")
    export.add_argument("--html", type=checked.writable_file,
                        help="output HTML path: the viewer and the whole replay in one file "
                             "that opens from disk, no server")
    export.add_argument("--at", type=checked.count, help="the tick for --png")
    export.add_argument("--png", type=checked.writable_file, help="output PNG path")
    export.add_argument("--gif", type=checked.writable_file, help="output GIF path")
    export.add_argument("--from", dest="start", type=int, help="first tick of the GIF")
    export.add_argument("--to", dest="end", type=int, help="last tick of the GIF")
    export.add_argument("--fps", type=checked.positive_number, default=10.0, help="GIF frames per second")
    export.add_argument("--every", type=checked.positive_int, default=1, help="ticks between GIF frames")
    export.add_argument("--area", default=None, help="area to draw (default: the surface)")
    export.add_argument("--focus", type=int, help="character id: draw its area and ring it")
    export.add_argument("--scale", type=checked.positive_int, default=None, help="pixels per tile")
    # --html is the server's answers written into one page: the server package runs it (and hands
    # --png / --gif on to asiworld.replay.commands).
    export.set_defaults(func="asiworld.server.replay_export:cmd_export")
