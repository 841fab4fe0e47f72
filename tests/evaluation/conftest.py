"""One small real study for the tests of files written across worlds (statistics, LaTeX, the
leaderboard): three seeds of five minutes, three built-in configurations, played once per
session. Tests read it; a test that changes results copies it first."""

from __future__ import annotations

import pytest
from asiworld.cli import main

AGENTS = "planner,forager,random"


@pytest.fixture(scope="session")
def seeds_folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("three-seeds")
    assert main(["run", "--seeds", "1,2,3", "--minutes", "5", "--agents", AGENTS,
                 "--out", str(out)]) == 0
    return out
