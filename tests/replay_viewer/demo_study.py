"""The demo study (asiworld.study.demo: nine configurations, six language-model seats answered
by the stand-in model) played just long enough to show the rusher's stall: on seed 3 the rusher
clears the Outer Court at 6:39, then enters the Inner Temple at 18:27, 21:45 and 23:30 and is
knocked down each time. 25 simulation minutes take about 5 s here."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.played_once import played_once

STALL_MINUTES = 25


def run_demo(out: Path, minutes: int = STALL_MINUTES) -> Path:
    """The demo study written to `out` (its replay is `out/replay.asirep`); `out`."""
    from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer
    from asiworld.evaluation.figure_options import FigureOptions
    from asiworld.study.demo import demo_text
    from asiworld.study.run import run_study
    from asiworld.study.spec import parse_study

    with FakeModelServer(FakeModel()) as fake:
        text = demo_text(fake.url, minutes=minutes)
        run_study(parse_study(text), text, out, say=lambda line: None,
                  figures=FigureOptions(formats=()))  # the tests read the replay, not these
    return out


def shared_demo(tmp_path_factory: pytest.TempPathFactory, out: Path) -> Path:
    """The demo study copied to `out`, played once per test session (tests/played_once.py):
    five modules read it; each gets its own copy, as a server may write beside a replay."""
    played = played_once(tmp_path_factory, f"demo-study-{STALL_MINUTES}", run_demo)
    shutil.copytree(played, out)
    return out
