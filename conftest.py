"""The whole suite's rule: tests write only into temporary folders, never into the checkout.

At the start of a session the checkout's `git status` is taken, ignored entries included (the
folders a stray write creates, `data/`, `out/`, `build/`, are in .gitignore, so the plain status
would not show them); at the end a difference fails the run and names the entries. Python's and
pytest's own caches are not the tests' writes and are left out. Outside a git checkout (an
unpacked sdist) there is nothing to compare and the guard is off.

Hypothesis keeps its example database under the current folder by default; it is kept in the
system's temporary folder instead, so it still remembers failing examples between runs.

The processes the tests start (servers, studies, browsers) get a temporary folder of the
session's own (TMPDIR), removed at its end: `asiworld serve` records the live world into a new
temporary folder by default, and a suite starts dozens of them. The tests' own tmp_path stays in
the system's folder, where pytest keeps the last runs' for a look after a failure.
"""

from __future__ import annotations

import asyncio
import gc
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis.configuration import set_hypothesis_home_dir

ROOT = Path(__file__).resolve().parent
CACHES = {"__pycache__", ".pytest_cache", ".ruff_cache"}
STATUS = pytest.StashKey[set[str] | None]()
set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "asiworld-hypothesis")
# gettempdir() above fixed this process's folder; from here on only its children use this one.
# One folder for the session: the xdist workers inherit the controller's (a folder per worker,
# nested, made Ray's socket paths longer than a Unix socket's 107 bytes). Short: the same.
SPAWNED_TMP = os.environ.get("ASIWORLD_TESTS_TMPDIR") or tempfile.mkdtemp(prefix="awt-")
OWN_TMP = "ASIWORLD_TESTS_TMPDIR" not in os.environ  # the process that made it removes it
os.environ["ASIWORLD_TESTS_TMPDIR"] = os.environ["TMPDIR"] = SPAWNED_TMP


def checkout_status() -> set[str] | None:
    """`git status` of the checkout as a set of lines; None when this is no git checkout."""
    try:
        done = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--ignored"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    # Lines are "XY path": a cache anywhere in the path is the interpreter's, not a test's.
    return {line for line in done.stdout.splitlines() if not CACHES & set(Path(line[3:]).parts)}


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[STATUS] = checkout_status()


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    before = session.config.stash.get(STATUS, None)
    if before is None:
        return
    after = checkout_status() or set()
    appeared, vanished = sorted(after - before), sorted(before - after)
    if not appeared and not vanished:
        return
    lines = [f"  now:  {line}" for line in appeared] + [f"  gone: {line}" for line in vanished]
    report = session.config.pluginmanager.get_plugin("terminalreporter")
    if report is not None:
        report.write_sep("=", "the tests changed the checkout", red=True)
        report.write_line("git status differs from the session's start (tests must write")
        report.write_line("only into tmp_path; an edit of yours during the run shows too):")
        for line in lines:
            report.write_line(line)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_unconfigure(config: pytest.Config) -> None:
    if OWN_TMP:
        shutil.rmtree(SPAWNED_TMP, ignore_errors=True)


class Apps:
    """The server apps a test makes, each closed (asiworld.server.close_app) when the test ends:
    its clock stopped, its replay files, fan-out connection and program host closed. An app
    left to the garbage collector reported its open replay files in whichever test ran next."""

    def __init__(self) -> None:
        self.made: list = []

    def create(self, config: dict | None = None):
        """asiworld.server.create_app(config)."""
        from asiworld.server import create_app

        return self.keep(create_app(config))

    def build(self, settings, live_study=None):
        """asiworld.server.wsgi.build_app(settings): (app, store); the test closes the store."""
        from asiworld.server.wsgi import build_app

        app, store = build_app(settings, live_study)
        return self.keep(app), store

    def keep(self, app):
        self.made.append(app)
        return app

    def close(self) -> None:
        from asiworld.server import close_app

        for app in reversed(self.made):
            close_app(app)


@pytest.fixture
def apps():
    """`apps.create(config)`, `apps.build(settings)`: server apps closed when the test ends."""
    made = Apps()
    yield made
    made.close()


@pytest.fixture
def run_async():
    """`run_async(coroutine)`: asyncio.run on a thread of its own. The browser tests' Playwright
    (sync API) leaves its event loop marked running in the main thread for as long as it lives,
    and asyncio.run refuses to start there; with pytest-xdist an e2e module may run before an
    asyncio test on the same worker."""

    def run(coroutine):
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, coroutine).result()

    return run


# The modules that take longest (twenty seconds or more each in the suite, longest first), handed
# out first: pytest-xdist gives whole modules out in order (the Makefile's --no-loadscope-reorder:
# by default it orders modules by their number of tests, which put these few-test modules last),
# so none of them starts late and keeps one worker busy while the others have nothing left.
SLOWEST_FIRST = (
    "tests/local_model/test_study_real_model.py",  # the real model: four calls of one core
    "tests/configurations/test_cohort.py",  # two 300-minute cohorts (ASIWORLD_SLOW=1)
    "e2e/test_play_guide.py",  # first games played at the world's pace
    "e2e/test_layouts.py",
    "tests/study/test_study_run.py",
    "e2e/test_pages_accessibility.py",
    "tests/server/test_serve_study.py",
    "e2e/test_compare.py",
    "tests/replay/test_untrusted_replays.py",
    "tests/evaluation/test_across_worlds.py",
    "tests/study/test_study_external.py",
    "e2e/test_connection.py",
    "tests/evaluation/test_evaluation_report.py",
    "e2e/test_live_story.py",
    "tests/test_docs_snippets.py",
    "tests/study/test_study_sigterm.py",
    "tests/evaluation/test_figure_workers.py",
    "e2e/test_play.py",
    "e2e/test_human_seat.py",
    "e2e/test_study_on_server.py",
    "tests/evaluation/test_report_golden.py",
    "tests/study/test_study_ray.py",
)


def pytest_collection_finish(session: pytest.Session) -> None:
    """The collected modules and test items live until the session ends: frozen out of the
    cycle collector's sight, its full collections walk only what the tests make (they took
    about 10 % of a worker's CPU, and half as much frozen; `asiworld serve` does the same
    with its start-up's objects)."""
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    """Two tests with one node id are one test to pytest-xdist (it keeps one item per id), so
    the suite refuses them instead of running a part of them unseen. The slowest modules go
    first (SLOWEST_FIRST), the rest keep their order."""
    rank = {path: i for i, path in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))
    seen: set[str] = set()
    twice = sorted({item.nodeid for item in items if item.nodeid in seen or seen.add(item.nodeid)})
    if twice:
        raise pytest.UsageError("tests share a node id (pytest-xdist would run one of each): "
                                + ", ".join(twice))
