"""How long the command line takes to start: `asiworld --help` and `asiworld run --help`, each
run as a user runs it (the console script in a new process), N times. Target (issue 35): 0.5 s.

Run: python benchmarks/bench_start.py [--runs 10]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

COMMANDS = (["--help"], ["run", "--help"], ["serve", "--help"], ["study", "run", "--help"])


def console_script() -> str:
    """The `asiworld` script beside this interpreter (a venv's), else the one on PATH."""
    here = Path(sys.executable).with_name("asiworld")
    return str(here) if here.exists() else (shutil.which("asiworld") or "asiworld")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    script = console_script()
    subprocess.run([script, "--help"], capture_output=True, check=True)  # a warm disk cache
    for argv in COMMANDS:
        times = []
        for _ in range(args.runs):
            began = time.perf_counter()
            subprocess.run([script, *argv], capture_output=True, check=True)
            times.append(time.perf_counter() - began)
        print(f"asiworld {' '.join(argv)}: median {statistics.median(times):.3f} s, "
              f"max {max(times):.3f} s over {args.runs} runs (load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
