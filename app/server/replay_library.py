"""The app's replay library: the folders it reads replays from and the one ReplayLibrary (with
its ReplayWorlds) every request shares. The replay routes (replays.py) and the evaluation's links
to replays (evidence.py) both ask here, so a replay has the same id everywhere."""

from __future__ import annotations

import os
from pathlib import Path

from asiworld.replay.library import ReplayLibrary
from asiworld.replay.worlds import ReplayWorlds
from asiworld.resources import shipped
from asiworld.server.extensions import REPLAYS
from flask import Flask

DEFAULT_DIR = shipped("replays")


def replay_dirs(config: dict) -> list[Path]:
    dirs = config.get("REPLAY_DIRS")
    if dirs is None:
        dirs = [DEFAULT_DIR]
    extra = os.environ.get("ASIWORLD_REPLAYS", "")
    live = [config["RECORD_DIR"]] if config.get("RECORD_DIR") else []  # the live recordings
    folders = [Path(d) for d in [*live, *dirs, *extra.split(os.pathsep)] if str(d)]
    return list(dict.fromkeys(folders))


def replay_services(app: Flask) -> tuple[ReplayLibrary, ReplayWorlds]:
    ext = app.extensions
    if REPLAYS not in ext:
        ext[REPLAYS] = (ReplayLibrary(replay_dirs(app.config)), ReplayWorlds())
    return ext[REPLAYS]


def replay_id_of(app: Flask, path: Path | str | None) -> str | None:
    """The id the app's replays know the file at `path` by (None: not among them)."""
    if path is None:
        return None
    wanted = Path(path).resolve()
    for rid, found in replay_services(app)[0].paths().items():
        if found.resolve() == wanted:
            return rid
    return None
