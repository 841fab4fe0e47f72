"""A pytest plugin for `bench_suite.py`: each test's CPU, written as JSON lines into the folder
named by ASIWORLD_SUITE_CPU (one file per process, so pytest-xdist's workers never share one).

A test's CPU is what its process spent in it (user and system) and what the processes it started
and waited for spent (RUSAGE_CHILDREN grows when a child is reaped). So a module's fixtures count
in the test that set them up or tore them down, and a process shared by many tests (a worker's
browser, a server of a module) counts where it ended: read them by module. On a machine the suite
keeps busy, CPU and not wall time says what a test costs: a test that waits for a model's server
is slow by the clock and cheap on its own worker."""

from __future__ import annotations

import json
import os
import resource
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

FOLDER = "ASIWORLD_SUITE_CPU"


def spent() -> tuple[float, float]:
    """(this process's CPU, its reaped children's CPU) so far, in seconds."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: Any) -> Iterator[None]:
    own, children = spent()
    yield
    own_after, children_after = spent()
    folder = os.environ.get(FOLDER)
    if folder:
        row = {"test": item.nodeid, "own": round(own_after - own, 3),
               "children": round(children_after - children, 3)}
        with (Path(folder) / f"{os.getpid()}.jsonl").open("a") as f:
            f.write(json.dumps(row) + "\n")


def read(folder: Path) -> dict[str, tuple[float, float]]:
    """Each test's (own, children) CPU from the rows the processes wrote into `folder`."""
    out: dict[str, tuple[float, float]] = {}
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            row = json.loads(line)
            out[row["test"]] = (row["own"], row["children"])
    return out
