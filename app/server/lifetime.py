"""The end of an app's life: stop its world, then close what it kept open.

An app keeps files and connections for as long as it lives: the live recording, the replay
files the viewer opened, the fan-out's Redis connection, the program host's process. `serve`
stops in two steps so that a saving server snapshots a stopped world before the rest closes;
an app made for a while (a test, a notebook, an embedding) calls `close_app` when done. Left to
the garbage collector, its replay files were reported unclosed in whichever test ran next.
"""

from __future__ import annotations

from asiworld.server.extensions import RECORDING, REPLAYS, STUDY, services
from flask import Flask


def stop_world(app: Flask) -> None:
    """Stop the world's clock and write the live replay's index (a clean stop leaves a complete
    replay). A study stopped before its horizon closes its replay and writes no results."""
    study = app.extensions.get(STUDY)
    if study is not None:
        study.stop()
        return
    services(app).runner.stop()
    recording = app.extensions.get(RECORDING)
    if recording is not None:
        recording.close()


def release(app: Flask) -> None:
    """Close the replay files, the fan-out's connection and the program host the app holds.
    Calling it again is harmless (tested: tests/replay_viewer/test_app_lifetime.py)."""
    if REPLAYS in app.extensions:  # made by the first answer that read a replay
        app.extensions[REPLAYS][0].close()
    svc = services(app)
    fanout, svc.live.fanout = svc.live.fanout, None
    if fanout is not None:
        fanout.close()
    svc.runner.pipeline.close()


def close_app(app: Flask) -> None:
    """Stop the app's world and close everything it kept open."""
    stop_world(app)
    release(app)
