"""Whole runs that several test modules read, played once per test session.

pytest-xdist hands each worker whole modules, so a session fixture would still be played once
per worker. The workers share the session's temporary root: the first to ask plays the run
there while the others wait on a lock, and everyone reads the same folder."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


def played_once(tmp_path_factory: pytest.TempPathFactory, name: str,
                play: Callable[[Path], object]) -> Path:
    """The folder `play(folder)` wrote, played by the first test of the session to ask. Read it
    only: a test that changes it copies it first (the other workers read it too)."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # this session's
    folder = root / f"played-once-{name}"
    with open(root / f"played-once-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = root / f"played-once-{name}.done"
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # left by a worker that died half-way
            play(folder)
            done.touch()
    return folder
