"""A small real replay (3 built-in characters, 3 simulation minutes) recorded once per session,
and a server app reading it."""

from __future__ import annotations

import pytest
from asiworld.headless.run import Run, RunConfig


@pytest.fixture(scope="session")
def replay_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("replays")
    run = Run(
        RunConfig(seed=3, minutes=3, agents=["forager", "planner", "random"], out=folder / "demo")
    )
    run.title = "Three for three minutes"
    run.run()
    return folder


@pytest.fixture
def app(replay_dir):
    from asiworld.server import create_app, services
    from asiworld.server.extensions import REPLAYS

    app = create_app({"SEED": 7, "SPEED": 10, "REPLAY_DIRS": [str(replay_dir)]})
    yield app
    # The replays the answers opened stay open in the app's library until it is closed: left to
    # the garbage collector, a later test of the same worker was failed for their unclosed files.
    if REPLAYS in app.extensions:  # made by the first answer that reads a replay
        app.extensions[REPLAYS][0].close()
    services(app).runner.pipeline.close()


@pytest.fixture
def client(app):
    return app.test_client()
