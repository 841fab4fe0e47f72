"""What the study tests share: a study killed with SIGKILL at a saved tick, the text of a
realtime study of model seats and a planner, and of a lockstep study of two built-ins."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

# The demo study gives a model call 5 s. The stand-in answers in milliseconds, but on a loaded
# machine one call timed out in one of two runs compared (load 8-15), and a failed call changes
# its world: the checks that two runs give one world give the calls this long.
SAME_WORLD_TIMEOUT = 120.0


def saved_tick(db: Path) -> int:
    """The last tick a study's store has saved (-1: none yet)."""
    try:  # closing(): a connection's own `with` only commits, and an open one keeps the WAL
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True,
                                                timeout=1)) as con:
            row = con.execute("SELECT value FROM meta WHERE key = 'last_tick'").fetchone()
    except sqlite3.Error:  # not made yet, or its first transaction is under way
        return -1
    return int(row[0]) if row else -1


def kill_mid_study(path: Path, out: Path, at: int,
                   ready: Callable[[Path], bool] | None = None) -> None:
    """`asiworld study run` in a process of its own, SIGKILLed once its store saved tick `at`
    (and `ready(store path)` holds, when given: what the test needs to have happened first).

    The study is stopped (SIGSTOP) while its store is read and runs on only between two reads:
    on a loaded machine this reader can be off the CPU for seconds, and a study left running
    meanwhile went on to its last tick (seen at load 8-15: killed at 360 of 360), so there was
    nothing left to resume."""
    proc = subprocess.Popen([sys.executable, "-m", "asiworld.cli", "study", "run", str(path),
                             "--out", str(out)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        db = out / "world.sqlite3"
        while True:
            assert proc.poll() is None, "the study ended before it could be killed"
            os.kill(proc.pid, signal.SIGSTOP)
            if saved_tick(db) >= at and (ready is None or ready(db)):
                break
            assert time.monotonic() < deadline, "the study did not get to the kill tick"
            os.kill(proc.pid, signal.SIGCONT)
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        if proc.poll() is None:  # a failed check above: the study must not outlive the test
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    assert proc.returncode == -signal.SIGKILL


def journal(db: Path) -> list[tuple[str, dict]]:
    """A study store's journal rows so far: (kind, body), read without disturbing the study."""
    import json

    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True,
                                                timeout=1)) as con:
            rows = con.execute("SELECT kind, body FROM journal ORDER BY seq").fetchall()
    except sqlite3.Error:
        return []
    return [(kind, json.loads(body)) for kind, body in rows]


def realtime_text(url: str, seats: dict[str, tuple[str, int, bool]], minutes: int,
                  speed: float, seed: int = 3, title: str = "realtime clock") -> str:
    """A realtime study: `seats` name -> (model, pause_ticks, may host programs) through the
    fake model at `url`, and a built-in planner."""
    text = (f'title = "{title}"\n[world]\nseed = {seed}\nminutes = {minutes}\nsize = 64\n'
            f'[clock]\nkind = "realtime"\nspeed = {speed}\n')
    for name, (model, pause, programs) in seats.items():
        text += (f'[[configuration]]\nname = "{name}"\nkind = "openai"\nmodel_url = "{url}"\n'
                 f'model = "{model}"\npause_ticks = {pause}\nmax_retries = 8\n'
                 f"programs = {str(programs).lower()}\n"
                 "backoff_seconds = 0.0\nrequest_timeout = 5.0\n")
    return text + '[[configuration]]\nname = "planner"\nkind = "builtin"\nagent = "planner"\n'


def builtins_text(title: str, seed: int, minutes: int) -> str:
    """A lockstep study of the built-in planner and forager on a 48-tile map: no model, no
    program host, the quickest whole study."""
    return (f'title = "{title}"\n[world]\nseed = {seed}\nminutes = {minutes}\nsize = 48\n\n'
            '[clock]\nkind = "lockstep"\n\n'
            '[[configuration]]\nname = "planner"\nkind = "builtin"\nagent = "planner"\n\n'
            '[[configuration]]\nname = "forager"\nkind = "builtin"\nagent = "forager"\n')
