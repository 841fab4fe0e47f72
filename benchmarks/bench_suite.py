"""The test suite's wall time and its slowest tests (issue 35: the suite in minutes, idle and at a
load of 8; the slowest 20 tests listed).

Runs `make test`'s pytest (three workers, each module whole on one, the slow whole-run checks
on) and prints its wall time, the machine's load, the slowest tests (setup, call and teardown
together), the modules that take longest, the tests and modules that cost the most CPU (their
own process's and what the processes they started spent: benchmarks/suite_cpu.py), and where
the CPU went: how busy the machine was, and the CPU of each kind of process (pytest's workers,
Chromium, the model's server, the servers and commands the tests start), sampled once a second.
`--busy N` starts N busy loops beside it for the run, the way a shared machine is loaded
(`--busy 2` on this 2-core machine gives a load of about 8 with pytest's workers).

    python benchmarks/bench_suite.py                 # idle
    python benchmarks/bench_suite.py --busy 2        # loaded
    python benchmarks/bench_suite.py tests/engine    # a part of it
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.suite_cpu import FOLDER, read  # noqa: E402

BUSY = "while True: pass"


def timings(junit: Path) -> tuple[dict[str, float], dict[str, int], dict[str, str]]:
    """Each test's seconds (all its phases) by id, the counts by outcome, and each failure's
    first line by id."""
    seconds: dict[str, float] = {}
    counts: dict[str, int] = defaultdict(int)
    failures: dict[str, str] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        path = case.get("classname", "").replace(".", "/")
        test = f"{path}.py::{case.get('name')}"
        seconds[test] = float(case.get("time") or 0)
        found = next((c for c in case if c.tag in ("failure", "error", "skipped")), None)
        counts["passed" if found is None else found.tag] += 1
        if found is not None and found.tag != "skipped":
            failures[test] = (found.get("message") or "").split("\n")[0][:300]
    return seconds, dict(counts), failures


def sample_load(samples: list[float], stop: threading.Event) -> None:
    while not stop.wait(15):
        samples.append(os.getloadavg()[0])


# What kind of process spends the suite's CPU, from its command line (first match wins).
KINDS = (
    (BUSY, "the busy loops (--busy)"),
    ("chromium", "Chromium (the browser tests' pages)"),
    ("chrome_crashpad", "Chromium (the browser tests' pages)"),
    ("run-driver", "Playwright's driver"),
    ("redis-server", "redis-server (front-end tests)"),
    ("raylet", "Ray (fan-out tests)"),
    ("gcs_server", "Ray (fan-out tests)"),
    ("ray::", "Ray (fan-out tests)"),
    ("/ray/", "Ray (fan-out tests)"),
    ("pdflatex", "pdflatex (the paper's tables)"),
    ("exec(eval(", "pytest-xdist workers: the tests' own Python (runs, studies, servers)"),
    ("model serve", "the real model's server (llama.cpp)"),
    ("asiworld.programs.zygote", "the program sandbox's processes"),
    ("spawn_main", "spawned workers (figures)"),
    ("asiworld", "asiworld commands the tests start (serve, study, run, ...)"),
    ("-m pytest", "pytest's controller"),
)
CLOCK = os.sysconf("SC_CLK_TCK")


def kind_of(cmdline: str) -> str:
    return next((kind for key, kind in KINDS if key in cmdline), "other")


def machine_jiffies() -> tuple[int, int]:
    """(busy, idle) CPU time of the whole machine so far, in clock ticks."""
    with open("/proc/stat") as f:
        user, nice, system, idle, iowait, irq, softirq, steal = map(int, f.readline().split()[1:9])
    return user + nice + system + irq + softirq + steal, idle + iowait


def cpu_seconds(pid: int | str) -> float | None:
    """User and system CPU of one process so far, in seconds; None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / CLOCK


def command_line(pid: int | str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def sample_cpu(seen: dict[int, list], stop: threading.Event) -> None:
    """Each second, every process's CPU so far (user and system) and its kind, by pid: a
    process that lives less than a second is missed, one that ends loses its last second."""
    first = True
    while True:
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            spent = cpu_seconds(name)
            if spent is None:
                continue
            pid = int(name)
            if pid not in seen:  # [kind, CPU when first seen (0 if born during the run), last]
                seen[pid] = [kind_of(command_line(name)), spent if first else 0.0, spent]
            seen[pid][2] = spent
        first = False
        if stop.wait(1):
            return


def suite_environment() -> dict[str, str]:
    """`make test`'s: the whole-run checks on, and Python's bytecode cache on even where the
    shell turns it off (the Makefile unexports PYTHONDONTWRITEBYTECODE): without it every
    process the tests start compiles its modules again, and every worker rewrites the tests'
    asserts again, which is not what the suite costs."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "ASIWORLD_SLOW": "1"}


def with_root(path: str | None) -> str:
    """PYTHONPATH with the checkout first: pytest's workers load benchmarks.suite_cpu."""
    return os.pathsep.join(p for p in (str(ROOT), path) if p)


def print_cpu(cpu: dict[str, tuple[float, float]], count: int) -> None:
    """The tests and the modules that cost the most CPU: their own process's, and the processes
    they started and waited for (a browser or server shared by tests counts where it ended)."""
    total = sum(own + children for own, children in cpu.values())
    print(f"CPU of the tests, their processes' and what they started and waited for: {total:.0f} s "
          f"(the rest is collection, and processes not yet reaped)")
    print(f"the {count} tests that cost the most CPU (own + started):")
    ranked = sorted(cpu.items(), key=lambda kv: -sum(kv[1]))
    for test, (own, children) in ranked[:count]:
        print(f"  {own + children:6.1f} s  ({own:5.1f} + {children:5.1f})  {test}")
    by_module: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for test, (own, children) in cpu.items():
        module = by_module[test.split("::")[0]]
        module[0] += own
        module[1] += children
    print("the 10 modules that cost the most CPU (own + started):")
    for module, (own, children) in sorted(by_module.items(), key=lambda kv: -sum(kv[1]))[:10]:
        print(f"  {own + children:6.1f} s  ({own:5.1f} + {children:5.1f})  {module}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", type=int, default=0, help="busy loops beside the suite")
    parser.add_argument("--workers", default="3", help="pytest-xdist workers (make test's 3)")
    parser.add_argument("--slowest", type=int, default=20)
    parser.add_argument("--log", type=Path, help="pytest's own output, kept in this file")
    parser.add_argument("paths", nargs="*", help="a part of the suite (all of it by default)")
    args = parser.parse_args()
    busy = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(args.busy)]
    loads: list[float] = [os.getloadavg()[0]]
    stop = threading.Event()
    threading.Thread(target=sample_load, args=(loads, stop), daemon=True).start()
    processes: dict[int, list] = {}
    threading.Thread(target=sample_cpu, args=(processes, stop), daemon=True).start()
    busy_before, idle_before = machine_jiffies()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            junit = Path(tmp) / "junit.xml"
            cpu_rows = Path(tmp) / "cpu"
            cpu_rows.mkdir()
            log = open(args.log, "w") if args.log else subprocess.DEVNULL  # noqa: SIM115
            began = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                 "-n", args.workers, "--dist", "loadfile", "--no-loadscope-reorder",
                 f"--junitxml={junit}", "-p", "benchmarks.suite_cpu",
                 "-o", "junit_duration_report=total", *args.paths],
                cwd=ROOT, env={**suite_environment(), FOLDER: str(cpu_rows),
                               "PYTHONPATH": with_root(os.environ.get("PYTHONPATH"))},
                stdout=log, stderr=subprocess.STDOUT)
            wall = time.perf_counter() - began
            if args.log:
                log.close()
            if not junit.exists():
                print(f"pytest wrote no report (exit {done.returncode})", file=sys.stderr)
                return done.returncode or 1
            seconds, counts, failures = timings(junit)
            cpu = read(cpu_rows)
    finally:
        stop.set()
        for loop in busy:
            loop.kill()
    loads.append(os.getloadavg()[0])
    busy_after, idle_after = machine_jiffies()
    busy_ticks, idle_ticks = busy_after - busy_before, idle_after - idle_before
    by_kind: dict[str, float] = defaultdict(float)
    for kind, before, last in processes.values():
        by_kind[kind] += last - before
    by_module: dict[str, float] = defaultdict(float)
    for test, spent in seconds.items():
        by_module[test.split("::")[0]] += spent
    outcome = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))
    print(f"suite: {wall / 60:.1f} min wall ({wall:.0f} s), {outcome}; {args.busy} busy loops "
          f"beside it; load {min(loads):.1f}-{max(loads):.1f} (mean {sum(loads) / len(loads):.1f})")
    for test, message in failures.items():
        print(f"FAILED {test}: {message}")
    print(f"test time in all: {sum(seconds.values()):.0f} s on {args.workers} workers")
    print(f"the slowest {args.slowest} tests (setup, call and teardown):")
    for test, spent in sorted(seconds.items(), key=lambda kv: -kv[1])[:args.slowest]:
        print(f"  {spent:6.1f} s  {test}")
    print("the slowest 10 modules:")
    for module, spent in sorted(by_module.items(), key=lambda kv: -kv[1])[:10]:
        print(f"  {spent:6.1f} s  {module}")
    print_cpu(cpu, args.slowest)
    seen = sum(by_kind.values())
    print(f"the machine was busy {os.cpu_count() * busy_ticks / (busy_ticks + idle_ticks):.2f} "
          f"of its {os.cpu_count()} cores; where the CPU went ({seen:.0f} s seen in processes "
          "that lived a second or more, the busy loops included):")
    for kind, spent in sorted(by_kind.items(), key=lambda kv: -kv[1]):
        if spent >= 1:
            print(f"  {spent:6.0f} s  {100 * spent / seen:4.1f} %  {kind}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
