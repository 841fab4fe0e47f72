"""Every live world records its replay while it runs: the pipeline's "recorder" observer.

`LiveRecording.attach(app)` (create_app, when config RECORD_DIR is set) opens
`RECORD_DIR/live-seed<S>-<YYYYMMDD-HHMMSS>.asirep` and appends to it tick by tick; RECORD_DIR is
one of the folders /replays lists, so the recording is there while it runs and after. The
recorder flushes each segment (60 ticks) to the OS when it closes, so a killed server leaves a
replay readable up to its last complete segment (`replay info` says cut off; `replay verify`
passes on what is there); a clean stop closes it with its index.

A world that is not at tick 0 when recording starts (a resumed `--data-dir` world, whose early
inputs the store no longer has) and a world a fork put in place are recorded mid-run: the file
starts from a world snapshot of that tick (asiworld.replay.session.RunRecording.start). A fork
closes the running file and starts the next one.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

from asiworld.pipeline import Pipeline, Tick
from asiworld.replay.format import EXTENSION, ReplayError
from asiworld.replay.session import RunRecording, header_for_world
from asiworld.server.extensions import RECORDING, services

log = logging.getLogger(__name__)


def recording_path(folder: Path, seed: int) -> Path:
    """A new file name in `folder` for a live world of `seed` (never an existing file's)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"live-seed{seed}-{stamp}{EXTENSION}"
    n = 1
    while path.exists():
        n += 1
        path = folder / f"live-seed{seed}-{stamp}-{n}{EXTENSION}"
    return path


class LiveRecording:
    """The live world's replay file, kept by the runner thread (an observer never blocks: a
    segment is compressed and written once every 60 ticks)."""

    def __init__(self, folder: str | Path, title: str = "live world", horizon: int = 0) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.title = title
        self.horizon = horizon
        self.recording: RunRecording | None = None
        self.paths: list[Path] = []  # every file this server wrote, the current one last
        self._lock = threading.Lock()

    @property
    def path(self) -> Path | None:
        return self.paths[-1] if self.paths else None

    def start(self, pipeline: Pipeline, mid_run: bool | None = None) -> Path:
        """Open a new file for the pipeline's world (mid-run unless it is at tick 0)."""
        world = pipeline.world
        mid_run = world.tick > 0 if mid_run is None else mid_run
        path = recording_path(self.folder, int(world.seed))
        header = header_for_world(world, [], horizon=self.horizon or 18_000, title=self.title)
        header.extra["live"] = True
        with self._lock:
            self.recording = RunRecording.start(
                path, world, pipeline.frames, header, mid_run=mid_run
            )
            self.paths.append(path)
        log.info("recording the live world to %s", path)
        return path

    def on_tick(self, info: Tick) -> None:
        if self.recording is not None:
            self.recording.on_tick(info)

    def on_replace(self, pipeline: Pipeline) -> None:
        """A fork or a resume put another world in place: close this file, begin the next."""
        self.close()
        try:
            self.start(pipeline, mid_run=True)
        except ReplayError as exc:  # actions waiting: the new world is not recorded
            log.warning("the new world is not recorded: %s", exc)

    def close(self) -> None:
        """Write the index (a clean stop); the file stays listed."""
        with self._lock:
            recording, self.recording = self.recording, None
        if recording is not None:
            recording.close()


def attach(app: Any) -> LiveRecording | None:
    """Record the app's live world into config RECORD_DIR (nothing when it is not set)."""
    folder = app.config.get("RECORD_DIR")
    if not folder:
        return None
    runner = services(app).runner
    live = LiveRecording(folder, title=app.config.get("RECORD_TITLE") or "live world",
                         horizon=int(app.config.get("RECORD_HORIZON") or 0))
    try:
        live.start(runner.pipeline)
    except ReplayError as exc:
        log.warning("the live world is not recorded: %s", exc)
        return None
    runner.pipeline.add_observer("recorder", live.on_tick, live.on_replace)
    app.extensions[RECORDING] = live
    return live
