"""benchmarks/record.py and bench_suite.py: a benchmark's figures go into docs/benchmarks.md
with the command, the date and the machine's load; a later run of the same command replaces its entry and nothing
else. Bad calls tried: no command, a command that does not exist, a file that does not exist, a
benchmark that fails. Each is refused with a code and a sentence and the file is unchanged."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

RECORD = Path(__file__).resolve().parents[1] / "benchmarks" / "record.py"
DOC = """# Benchmarks

## The engine

| what | command | figure |
|---|---|---|
| engine | `asiworld bench engine` | 1,000 ticks/s |
"""


def record(doc: Path, *command: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(RECORD), "--doc", str(doc), "--", *command],
                          capture_output=True, text=True, timeout=60)


def bench(*lines: str) -> list[str]:
    """A stand-in benchmark printing `lines` (a progress line redrawn with \\r first)."""
    script = "import sys; sys.stdout.write('running ...\\r'); print(*sys.argv[1:], sep='\\n')"
    return [sys.executable, "-c", script, *lines]


def test_a_benchmark_s_figures_go_under_its_command_with_the_load(tmp_path):
    doc = tmp_path / "benchmarks.md"
    doc.write_text(DOC)
    done = record(doc, *bench("9 characters: 1,800 ticks/s", "observation: 0.1 ms"))
    assert done.returncode == 0, done.stderr
    assert "9 characters: 1,800 ticks/s" in done.stdout  # shown as it runs, too
    text = doc.read_text()
    assert text.startswith(DOC)  # the curated tables stay as they were
    assert "## The last run of each benchmark" in text
    entry = text.split("### `python -c ")[1]
    assert " · load " in entry and " cores · " in entry and " UTC" in entry
    assert "9 characters: 1,800 ticks/s\nobservation: 0.1 ms\n```" in entry
    assert "running ..." not in entry.split("```")[1]  # a progress line redrawn by \r is not a figure


def test_a_second_run_of_the_same_command_replaces_its_entry_only(tmp_path):
    doc = tmp_path / "benchmarks.md"
    doc.write_text(DOC)
    assert record(doc, *bench("first")).returncode == 0
    assert record(doc, sys.executable, "-c", "print('other benchmark')").returncode == 0
    assert record(doc, *bench("first")).returncode == 0  # same command: same entry
    text = doc.read_text()
    assert text.count("\nother benchmark\n") == 1 and text.count("\nfirst\n") == 1
    assert text.count("## The last run of each benchmark") == 1
    assert text.startswith(DOC)


def test_a_section_after_the_entries_stays_where_it_is(tmp_path):
    doc = tmp_path / "benchmarks.md"
    doc.write_text(DOC + "\n## The last run of each benchmark\n\nintro\n\n## Later\n\nkept\n")
    assert record(doc, *bench("figure")).returncode == 0
    text = doc.read_text()
    assert text.index("figure") < text.index("## Later") and text.endswith("## Later\n\nkept\n")


def test_bad_calls_are_refused_and_write_nothing(tmp_path):
    doc = tmp_path / "benchmarks.md"
    doc.write_text(DOC)
    for command, code in (((), "no_command"), (("no-such-benchmark-xyz",), "bad_command")):
        done = record(doc, *command)
        assert done.returncode == 2 and f"error {code}: " in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    missing = record(tmp_path / "nowhere.md", *bench("x"))
    assert missing.returncode == 2 and "error no_doc: " in missing.stderr
    failing = record(doc, sys.executable, "-c", "print('half'); raise SystemExit(3)")
    assert failing.returncode == 3 and "nothing written" in failing.stderr
    assert doc.read_text() == DOC


SPIN = "import time\nt = time.process_time()\nwhile time.process_time() - t < {}: pass\n"


def test_the_suite_benchmark_names_its_failures_and_slowest_and_costliest_tests(tmp_path):
    """Slow by the clock (a wait) and costly in CPU (a loop, or a process it starts) are told
    apart: on a machine the suite keeps busy, the CPU is what a test costs."""
    (tmp_path / "test_sample.py").write_text(
        "import subprocess, sys, time\n\n"
        "def test_passes():\n    assert True\n\n"
        "def test_waits():\n    time.sleep(2)\n\n"
        f"def test_spins():\n    exec({SPIN.format(0.2)!r})\n\n"
        "def test_starts():\n"
        f"    subprocess.run([sys.executable, '-c', {SPIN.format(0.4)!r}], check=True)\n\n"
        "def test_fails():\n    assert 1 == 2\n")
    suite = RECORD.with_name("bench_suite.py")
    done = subprocess.run([sys.executable, str(suite), "--workers", "0", "--slowest", "2",
                           str(tmp_path / "test_sample.py")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr  # pytest's own status
    out = done.stdout
    assert "4 passed" in out and "1 failure" in out and "0 busy loops" in out
    assert "FAILED " in out and "test_fails: assert 1 == 2" in out
    slowest = out.split("the slowest 2 tests")[1].splitlines()[1:3]
    assert any(line.endswith("::test_waits") for line in slowest), slowest
    costliest = out.split("the 2 tests that cost the most CPU")[1].splitlines()[1:3]
    assert costliest[0].endswith("::test_starts") and costliest[1].endswith("::test_spins")
    started = float(costliest[0].split("+")[1].split(")")[0])
    assert started >= 0.4, costliest  # the process it started and waited for
