"""Run one benchmark and write what it printed into docs/benchmarks.md (issue 35: the
benchmarks write their figures to one file, with the command and the machine's load).

    python benchmarks/record.py -- asiworld bench engine
    python benchmarks/record.py -- python benchmarks/bench_start.py --runs 10

The command's output is shown as it runs. When it succeeds, its last lines (progress lines
redrawn with a carriage return are left out) go into the section "The last run of each
benchmark" of the file, under a heading naming the command, with the date, the machine's load
average before and after, its core count and the run's wall time. A later run of the same command
replaces its entry; every other line of the file stays as it was. A command that fails writes
nothing and `record.py` exits with its status.
"""

from __future__ import annotations

import argparse
import datetime
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
SECTION = "## The last run of each benchmark"
INTRO = ("Written by `python benchmarks/record.py -- COMMAND` (`make bench` runs the quick set "
         "through it): each entry is the command's own output, its last run on this machine.")
KEPT_LINES = 40  # a benchmark's summary, not its whole log


class RecordError(Exception):
    """A mistake in how record.py was called: a stable code and a sentence."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def shown(argv: list[str]) -> str:
    """The command as a reader types it: this venv's interpreter and scripts by their names."""
    words = list(argv)
    here = Path(sys.executable).absolute()
    if words and Path(words[0]).absolute() == here:
        words[0] = "python"
    elif words and Path(words[0]).absolute().parent == here.parent:
        words[0] = Path(words[0]).name
    return shlex.join(words)


def final_text(raw: str) -> list[str]:
    """The lines a terminal would show at the end: a line redrawn with \\r keeps its last form,
    blank lines go, and at most the last KEPT_LINES stay."""
    lines = []
    for line in raw.split("\n"):  # not splitlines(): it splits at \r too
        line = line.rsplit("\r", 1)[-1].rstrip()
        if line:
            lines.append(line)
    return lines[-KEPT_LINES:]


def entry(command: str, lines: list[str], load_before: float, load_after: float,
          seconds: float, now: datetime.datetime) -> str:
    when = now.strftime("%Y-%m-%d %H:%M UTC")
    body = "\n".join(lines) if lines else "(it printed nothing)"
    return (f"### `{command}`\n\n{when} · load {load_before:.1f} → {load_after:.1f} · "
            f"{os.cpu_count()} cores · {seconds:.0f} s\n\n```\n{body}\n```\n")


def write_entry(doc: str, command: str, text: str) -> str:
    """`doc` with the command's entry replaced, or added at the end of the section (the section
    added at the end of the file when it is not there)."""
    heading = f"### `{command}`"
    if SECTION not in doc:
        doc = doc.rstrip("\n") + f"\n\n{SECTION}\n\n{INTRO}\n"
    head, _, section = doc.partition(SECTION)
    # The section runs to the next heading of its level (or the file's end).
    rest_at = section.find("\n## ")
    section, rest = (section, "") if rest_at < 0 else (section[:rest_at + 1], section[rest_at + 1:])
    parts = section.split("\n### ")
    intro, entries = parts[0], ["### " + p for p in parts[1:]]
    kept = [e.rstrip("\n") + "\n" for e in entries if e.split("\n", 1)[0] != heading]
    kept.append(text)
    section = intro.rstrip("\n") + "\n\n" + "\n".join(kept)
    return head + SECTION + section + (("\n" + rest) if rest else "")


def run(argv: list[str]) -> tuple[int, str, float]:
    """Run the command, echoing its output; its status, output and wall seconds."""
    began = time.perf_counter()
    try:
        # Unbuffered: a Python benchmark's lines show as they come, not when it ends.
        # Bytes, not text: text mode would turn a progress line's \r into a new line.
        child = subprocess.Popen(argv, stdout=subprocess.PIPE,
                                 env={**os.environ, "PYTHONUNBUFFERED": "1"})
    except OSError as error:
        raise RecordError("bad_command", f"cannot run {argv[0]!r}: {error.strerror}") from None
    out = bytearray()
    assert child.stdout is not None
    while chunk := child.stdout.read1(4096):
        out += chunk
        sys.stdout.buffer.write(chunk)
        sys.stdout.flush()
    return child.wait(), out.decode("utf-8", "replace"), time.perf_counter() - began


def main(args: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], usage="record.py [--doc FILE] -- COMMAND [ARG ...]")
    parser.add_argument("--doc", type=Path, default=DOC, help="the file (docs/benchmarks.md)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args(args)
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    try:
        if not command:
            raise RecordError("no_command", "give the benchmark to run after --")
        if not options.doc.is_file():
            raise RecordError("no_doc", f"{options.doc} is not a file")
        load_before = os.getloadavg()[0]
        status, output, seconds = run(command)
        if status != 0:
            print(f"record.py: {shown(command)} exited with {status}; nothing written",
                  file=sys.stderr)
            return status
        text = entry(shown(command), final_text(output), load_before, os.getloadavg()[0],
                     seconds, datetime.datetime.now(datetime.UTC))
        doc = options.doc.read_text(encoding="utf-8")
        options.doc.write_text(write_entry(doc, shown(command), text), encoding="utf-8")
    except RecordError as error:
        print(f"record.py: error {error.code}: {error}", file=sys.stderr)
        return 2
    print(f"record.py: written to {options.doc} under {shown(command)!r}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
