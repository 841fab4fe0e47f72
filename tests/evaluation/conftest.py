"""One small real study for the tests of files written across worlds (statistics, LaTeX, the
leaderboard): three seeds of five minutes, three built-in configurations, played once per
session (tests/played_once.py: also across pytest-xdist's workers). Tests read it; a test that
changes results copies it first."""

from __future__ import annotations

import pytest
from asiworld.cli import main

from tests.played_once import played_once

AGENTS = "planner,forager,random"


@pytest.fixture(scope="session")
def seeds_folder(tmp_path_factory):
    def play(out):
        assert main(["run", "--seeds", "1,2,3", "--minutes", "5", "--agents", AGENTS,
                     "--out", str(out)]) == 0

    return played_once(tmp_path_factory, "three-seeds", play)
