"""`asiworld study run` stopped by SIGTERM ends every process it started. Killed by the default
handler, the study's process left its two figure workers (spawned at its start to import
matplotlib while the world runs) running on their own. Now SIGTERM stops the study through its
`finally` blocks: the workers and the program host end, it says how to resume, and the same
command resumes it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.study.helpers import builtins_text

# An hour: several seconds of run after the kill below, which comes as soon as the world's
# file is there (the resumed run plays the rest, and draws the figures).
STUDY = builtins_text("stopped", seed=4, minutes=60)


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:
            continue
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0]
    except OSError:
        return False
    return state != "Z"


def test_sigterm_ends_the_figure_workers_and_the_study_can_resume(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text(STUDY)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "asiworld.cli", "study", "run", str(path), "--out", str(out)]
    proc = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        started: set[int] = set()
        while len(started) < 2 and time.monotonic() < deadline and proc.poll() is None:
            started = {c for c in children(proc.pid)
                       if b"multiprocessing" in Path(f"/proc/{c}/cmdline").read_bytes()}
            time.sleep(0.05)
        assert len(started) >= 2, "the figure workers never started"
        while not (out / "world.sqlite3").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err
    assert "stopped by SIGTERM: run the same command again to resume" in err
    assert "Traceback" not in err
    deadline = time.monotonic() + 30
    while any(alive(c) for c in started) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [c for c in started if alive(c)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, "figure workers left running"
    again = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "resuming it" in again.stderr and (out / "results.json").is_file()
