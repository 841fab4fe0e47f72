"""A researcher's script that runs a study through `asiworld.cli.main` at its top level, without
`if __name__ == "__main__":`. The study's figure workers are spawned processes, and spawning
runs the parent's main script again in each of them before it works. That script then began the
study again inside each worker: with `--force` it cleared the outputs the script's own study
was writing (its replay and figures were gone at the end), and each worker printed a traceback
when it tried to spawn workers of its own, which broke the pool. Now a call made while a worker
runs the script again is refused at once (`main_in_a_worker`, said on stderr), the workers work,
and the study's outputs are whole."""

from __future__ import annotations

import subprocess
import sys

from asiworld.replay.reader import Replay

from tests.study.helpers import builtins_text

STUDY = builtins_text("from a script", seed=3, minutes=30)

# 30 minutes of world: long enough for the study to start its figure workers
# (asiworld.study.run.FIGURE_WORKERS_FROM_MINUTES).
SCRIPT = """from asiworld.cli import main

code = main(["study", "run", "study.toml", "--out", "out", "--force", "--quiet"])
print("exit", code)
"""


def test_a_script_without_a_main_guard_runs_its_study_once_and_keeps_its_outputs(tmp_path):
    (tmp_path / "study.toml").write_text(STUDY)
    (tmp_path / "script.py").write_text(SCRIPT)
    done = subprocess.run([sys.executable, "script.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    # The script's own call ran the study; each worker's run of the script was refused.
    assert done.stdout.count("exit 0") == 1, done.stdout
    assert done.stdout.count("exit 2") == done.stderr.count("error: main_in_a_worker: ") == 2
    assert "figure workers unavailable" not in done.stderr  # the workers drew the figures
    out = tmp_path / "out"
    assert (out / "results.json").is_file()
    assert sorted(p.name for p in (out / "figures").glob("*.png")) == [
        "F4_dungeon_performance.png", "F5_actions.png", "F6_progress.png", "F7_profiles.png"]
    with Replay.open(out / "replay.asirep") as replay:
        assert replay.last_tick == 30 * 60
