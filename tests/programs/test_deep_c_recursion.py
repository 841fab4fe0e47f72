"""Work in C that recurses deep cannot crash the process that hosts programs in-process (issue
32, item 6): a tuple nested 300,000 deep, put in a set (hashed), killed the whole process (rc 139), and with it
the Gymnasium env or `asiworld program run --in-process` that ran it.

Each attack runs in a child process (`asiworld program run --in-process`), so a crash shows as
its return code instead of taking this test's worker down."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

NESTED_TUPLE_HASH = (
    "t = ()\nfor i in range(300000):\n    t = (t,)\nlog('set', len({t}))\n"
)
NESTED_MAPS = (
    "m = [1]\nfor i in range(300000):\n    m = map(abs, m)\nlog('list', list(m))\n"
)


def run_in_process(tmp_path, source: str) -> dict:
    program = tmp_path / "deep.py"
    program.write_text(source)
    done = subprocess.run(
        [sys.executable, "-m", "asiworld.cli", "program", "run", str(program), "--in-process",
         "--minutes", "6"],
        capture_output=True, text=True, timeout=280, cwd=tmp_path,
    )
    assert done.returncode >= 0, f"the process died of signal {-done.returncode}"
    return json.loads(done.stdout)


@pytest.mark.timeout(300)
def test_a_tuple_nested_300000_deep_can_be_put_in_a_set(tmp_path):
    # CPython hashes a tuple's items with no depth check: on an 8 MB stack this was SIGSEGV.
    report = run_in_process(tmp_path, NESTED_TUPLE_HASH)
    assert report["status"]["status"] == "finished", report["status"]
    assert "set 1" in report["logs"], report["logs"]


@pytest.mark.timeout(300)
def test_nested_maps_whose_depth_python_checks_end_as_too_deep(tmp_path):
    # Taking an item calls abs at every level, and that call is depth-checked: a clean end.
    report = run_in_process(tmp_path, NESTED_MAPS)
    assert report["status"]["status"] == "failed", report["status"]
    assert report["outcome"]["error"]["code"] == "too_deep"
