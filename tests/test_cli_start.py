"""`asiworld --help` and a command's `--help` start without what only running a command needs
(issue 35: they took 1.6-3.0 s importing every command module). Each layer's flags live in a
light module, and the heavy packages (the server, the evaluation, the replay reader) import their
names when first used. Checked by what is imported, not by a clock; the time is a benchmark's
(benchmarks/bench_start.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("flask", "flask_socketio", "socketio", "numpy", "tcod", "matplotlib", "scipy",
         "openai", "mcp", "asiworld.server.app", "asiworld.evaluation.report",
         "asiworld.replay.reader", "asiworld.engine.world", "asiworld.study.run")

PROBE = """
import sys
sys.argv = ["asiworld", *{argv!r}]  # as the console script starts
from asiworld.cli import main
try:
    main({argv!r})
except SystemExit:
    pass
print("IMPORTED", *sorted(m for m in {heavy!r} if m in sys.modules))
"""


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["serve", "--help"],
                                  ["report", "--help"], ["study", "run", "--help"],
                                  ["replay", "--help"], ["fake-model", "--help"]])
def test_help_imports_nothing_heavy(argv):
    done = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last == "IMPORTED", f"asiworld {' '.join(argv)} imported {last.split()[1:]}"


def test_the_probe_sees_a_heavy_import(tmp_path):
    """The same probe on a command that runs: `asiworld score` imports its evaluation."""
    table = tmp_path / "m.csv"
    table.write_text("name,outfit,depth,hero,kills,bosses,crafts,coins,trial,downs\n"
                     "a,Y,2,N,3,1,5,10,N,1\n")
    argv = ["score", str(table)]
    done = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "asiworld.evaluation.report" in done.stdout.strip().splitlines()[-1].split()
