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
def app(apps, replay_dir):
    return apps.create({"SEED": 7, "SPEED": 10, "REPLAY_DIRS": [str(replay_dir)]})


@pytest.fixture
def client(app):
    return app.test_client()
