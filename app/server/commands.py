"""`asiworld serve`: its flags, read into ServerSettings (asiworld.server.settings), then
served by asiworld.server.process. `wsgi_app()` (gunicorn) is asiworld.server.wsgi's.

The world is kept in `--data-dir` (default `./data`): a server started again on the same
directory resumes where the last one stopped (see docs/operations.md).
"""

from __future__ import annotations

import argparse
import importlib
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from asiworld import arguments as checked
from asiworld.evaluation.figure_options import FORMAT_SETS
from asiworld.programs.limits import (
    ENDED_KEPT,
    HOST_MEMORY_BYTES,
    MIN_PROGRAM_MEMORY,
    PROGRAMS_MEMORY_BYTES,
)
from asiworld.server.settings import DEFAULT_MAX_CONNECTIONS, PLAY_SPEED, ServerSettings

if TYPE_CHECKING:
    from asiworld.server.process import StudyOpener

__all__ = ["register", "run"]  # and wsgi_app, below: the gunicorn path documented before


def __getattr__(name: str) -> Any:
    """`asiworld.server.commands:wsgi_app()`, the gunicorn path documented before, imported
    when asked: the serve command's flags do not need the server."""
    if name != "wsgi_app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return importlib.import_module("asiworld.server.wsgi").wsgi_app


def register(subparsers: argparse._SubParsersAction, open_study: StudyOpener | None = None) -> None:
    """`serve`; `open_study` runs `serve --study` (None: this command table has no studies)."""
    p = subparsers.add_parser(
        "serve",
        help="run a live world and serve the browser pages",
        description="Run a live world in real time and serve the spectate and play pages. "
        "The world is saved in --data-dir and resumed from it on the next start.",
    )
    p.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=checked.port, default=None, help="port (default 8000)")
    p.add_argument(
        "--seed", type=checked.count, default=None,
        help="world seed (default $ASIWORLD_SEED, else 7, or the saved one)"
    )
    p.add_argument(
        "--speed", type=checked.positive_number, default=None,
        help="ticks per real second (default $ASIWORLD_SPEED, else 10)",
    )
    p.add_argument(
        "--play", action="store_true",
        help=f"a preset for people playing at /play: --speed {PLAY_SPEED:g} (a day lasts 15 "
        "real minutes) unless --speed is given",
    )
    p.add_argument(
        "--agents",
        default=None,
        help="comma-separated built-in configurations to populate a new world, e.g. "
        "forager,planner (default $ASIWORLD_AGENTS, else none)",
    )
    p.add_argument(
        "--data-dir",
        type=checked.writable_dir,
        default=None,
        help="directory of the saved world (default $ASIWORLD_DATA_DIR, else ./data; resumed "
        "when it holds one)",
    )
    p.add_argument("--ephemeral", action="store_true", help="keep nothing on disk (no --data-dir)")
    p.add_argument(
        "--new",
        action="store_true",
        help="start a fresh world even when --data-dir holds one; the saved world is moved "
        "aside to DATA_DIR/previous-YYYYMMDD-HHMMSS, never deleted",
    )
    p.add_argument(
        "--replays",
        type=checked.existing_dir,
        action="append",
        default=None,
        metavar="DIR",
        help="a folder of replays for /replays (repeatable; default: the sample replays)",
    )
    p.add_argument(
        "--study",
        type=Path,
        default=None,
        metavar="FILE",
        help="run this study on the live server (one seed): /evaluation counts down to its "
        "horizon, where the world stops and --out gets what `asiworld study run` writes; "
        "nothing is saved in --data-dir",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="with --study: the study's folder (default ./STUDY-live-YYYYMMDD-HHMMSS)",
    )
    p.add_argument(
        "--figures",
        choices=tuple(FORMAT_SETS),
        default=None,
        help="with --study: which figure files it writes at its horizon, as `asiworld study "
        "run --figures`: all (PNG, SVG, PDF; default), png, or none",
    )
    p.add_argument(
        "--record-dir",
        type=checked.writable_dir,
        default=None,
        metavar="DIR",
        help="where the live world's replay is written as it runs, listed in /replays "
        "(default $ASIWORLD_RECORD_DIR, else DATA_DIR/replays; with --ephemeral a new folder in "
        "the system's temp folder)",
    )
    p.add_argument(
        "--no-record", action="store_true", help="do not record the live world's replay"
    )
    p.add_argument(
        "--snapshot-every", type=checked.positive_int, default=None,
        help="ticks between snapshots (default $ASIWORLD_SNAPSHOT_EVERY, else 600)",
    )
    p.add_argument(
        "--fsync",
        action="store_true",
        help="flush every commit to the disk (survives power loss, slower); default survives "
        "a killed process (or $ASIWORLD_FSYNC=1)",
    )
    p.add_argument(
        "--admin-token",
        default=None,
        help="token for /admin (default $ASIWORLD_ADMIN_TOKEN, else generated and printed)",
    )
    p.add_argument(
        "--spectator-token",
        default=None,
        help="token needed to spectate (default $ASIWORLD_SPECTATOR_TOKEN, else public)",
    )
    p.add_argument(
        "--join-token",
        default=None,
        help="token a join must carry (a closed world; default ASIWORLD_JOIN_TOKEN, else open)",
    )
    p.add_argument(
        "--max-characters",
        default=None,
        help="joins are refused once the world holds this many characters "
        "(default $ASIWORLD_MAX_CHARACTERS, else 500)",
    )
    p.add_argument(
        "--grace-nights", default=None, metavar="N",
        help="shades spare each character that joins for its first N nights, so a person can "
        "learn to play (default $ASIWORLD_GRACE_NIGHTS, else 0; not with --study)",
    )
    p.add_argument(
        "--programs-kept",
        default=None,
        help="ended programs kept per character, its newest (older ones are forgotten; "
        f"default $ASIWORLD_PROGRAMS_KEPT, else {ENDED_KEPT})",
    )
    p.add_argument(
        "--programs-memory",
        default=None,
        metavar="MiB",
        help="memory all programs may hold together; past it the programs holding the most "
        "are ended out_of_memory (default $ASIWORLD_PROGRAMS_MEMORY, else "
        f"{PROGRAMS_MEMORY_BYTES >> 20})",
    )
    p.add_argument(
        "--program-memory",
        default=None,
        metavar="MiB",
        help="address space of each program's process, at least "
        f"{MIN_PROGRAM_MEMORY >> 20} (default $ASIWORLD_PROGRAM_MEMORY, else "
        f"{HOST_MEMORY_BYTES >> 20})",
    )
    p.add_argument(
        "--max-connections",
        default=None,
        help="concurrent connections (each a thread; WebSockets included) before new ones get "
        f"a 503 (default $ASIWORLD_MAX_CONNECTIONS, else {DEFAULT_MAX_CONNECTIONS})",
    )
    p.add_argument(
        "--message-queue",
        default=None,
        metavar="URL",
        help="a Redis URL (redis://127.0.0.1:6379/0): the world also publishes its frames there "
        "for --frontend processes (default $ASIWORLD_MESSAGE_QUEUE; pip install 'asiworld[scale]'; "
        "docs/operations.md)",
    )
    p.add_argument(
        "--frontend",
        action="store_true",
        help="serve the spectate page and its Socket.IO clients for the world that publishes on "
        "--message-queue, holding no world itself",
    )
    p.add_argument(
        "--async-mode",
        choices=("threading", "eventlet"),
        default=None,
        help="threading (default, or $ASIWORLD_ASYNC_MODE) or eventlet (opt-in; "
        "pip install asiworld[eventlet])",
    )
    p.set_defaults(func=partial(run, open_study=open_study))


def run(args: argparse.Namespace, open_study: StudyOpener | None = None) -> int:
    """`asiworld serve`: the flags, the environment for those not given, then the server. A bad
    value (SettingsError) is `error: code: sentence`, exit 2, said by asiworld.cli. The server
    (Flask, Socket.IO, the evaluation) is imported here, when a world is served."""
    serve = importlib.import_module("asiworld.server.process").serve
    return serve(ServerSettings.from_args(args), open_study)
