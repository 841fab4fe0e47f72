"""The demo study (asiworld.study.demo: nine configurations, six language-model seats answered
by the stand-in model) played just long enough to show the rusher's stall: on seed 3 the rusher
clears the Outer Court at 6:39, then enters the Inner Temple at 18:27, 21:45 and 23:30 and is
knocked down each time. 25 simulation minutes take about 5 s here."""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

import pytest

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
    """The demo study copied to `out`, played once per test session: five modules read it, and
    pytest-xdist's workers share the session's temporary root, so the first worker to ask plays
    it while the others wait on a lock (each gets its own copy: a server may write beside a
    replay)."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # this session's
    played = root / f"demo-study-{STALL_MINUTES}"
    with open(root / f"demo-study-{STALL_MINUTES}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (played / "done").exists():
            shutil.rmtree(played, ignore_errors=True)  # a worker that died half-way
            run_demo(played)
            (played / "done").touch()
    shutil.copytree(played, out, ignore=shutil.ignore_patterns("done"))
    return out
