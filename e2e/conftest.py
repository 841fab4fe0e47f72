"""E2E fixtures: a live server in-process on a free loopback port, and Debian's Chromium.

Chromium comes from the system; nothing is downloaded. The tests drive Debian's
chromium-headless-shell (/usr/bin/chromium-headless-shell): the same Chromium build as Debian's
`chromium`, without the desktop browser's parts a headless test never shows. On the same 46 layout
and replay-viewer tests it spent a third of the full browser's CPU (16-17 s against 52-53 s,
docs/benchmarks.md), and the browser was a third of the whole suite's CPU. ASIWORLD_CHROMIUM=PATH
runs them on another build (`/usr/bin/chromium`, the full browser a person uses). Screenshots go to
$ASIWORLD_ARTIFACTS, else to `artifacts/` in pytest's temporary folder of the run (tests never
write into the checkout); the folder is printed at the end of the run.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.served import free_port, served  # noqa: F401 - the e2e modules import them from here

REPO = Path(__file__).resolve().parent.parent
RID = "three-configurations-30min"  # the sample replay the viewer tests open
CHROMIUM = os.environ.get("ASIWORLD_CHROMIUM", "/usr/bin/chromium-headless-shell")
# The full browser a person uses: what the benchmarks of a page's own cost measure
DESKTOP_CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# Flask-SocketIO has one SocketIO object, and it answers the sockets of the app made last only
# (events of an older app's clients are ignored). So every module whose pages use sockets serves
# them from an app made for that module (live_server, replay_server) or for the test (served()):
# a module's tests run one after another, in whatever order and on whichever pytest-xdist worker
# the modules are given out. Servers in their own process (ServeProcess) are free.
@pytest.fixture(scope="module")
def live_server():
    """The real engine at 20 ticks/s."""
    with served({"SEED": 7, "SPEED": 20}) as server:
        yield server


@pytest.fixture(scope="module")
def replay_server():
    """Each module its own server reading the sample replays: a fork replaces the live world,
    which other e2e tests must not see."""
    # The sample replays are committed (replays/): a missing one fails, never skips.
    assert (REPO / "replays" / f"{RID}.asirep").exists(), "run `asiworld replay samples`"
    with served({"SEED": 7, "SPEED": 20, "REPLAY_DIRS": [str(REPO / "replays")]}) as server:
        yield server


@pytest.fixture(scope="module")
def study_server(tmp_path_factory):
    """The demo study (three minutes, its language-model seats answered by the stand-in model)
    run once per module, and a server reading its replay as `demo`, with the model turns."""
    from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer
    from asiworld.evaluation.figure_options import FigureOptions
    from asiworld.study.demo import demo_text
    from asiworld.study.run import run_study
    from asiworld.study.spec import parse_study

    out = tmp_path_factory.mktemp("turns") / "demo"
    with FakeModelServer(FakeModel()) as fake:
        text = demo_text(fake.url, minutes=3)
        run_study(parse_study(text), text, out, say=lambda line: None,
                  figures=FigureOptions(formats=()))  # the viewer reads the replay, not these
    config = {"SEED": 3, "WORLD_SIZE": 48, "SPEED": 5, "REPLAY_DIRS": [str(out)]}
    with served(config, clock=False) as server:
        yield {"url": server["url"], "out": out}


class ServeProcess:
    """`asiworld serve` in its own process on a fixed port and data dir: stopped and started
    again, it resumes the same world (the same characters and ids)."""

    def __init__(self, data: Path, first_args: list[str] = (), args: list[str] = ()) -> None:
        self.first_args, self.args = list(first_args), list(args)
        self.port = free_port()
        self.data = data
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None
        self.first = True

    def answers(self) -> bool:
        try:
            with urllib.request.urlopen(self.url + "/healthz", timeout=2):
                return True
        except OSError:
            return False

    def start(self) -> None:
        argv = [sys.executable, "-m", "asiworld.cli", "serve", "--port", str(self.port),
                "--speed", "20", "--data-dir", str(self.data), "--replays", str(REPO / "replays")]
        argv += self.args + (self.first_args if self.first else [])
        self.first = False
        self.proc = subprocess.Popen(argv, cwd=self.data.parent, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"serve stopped: {self.proc.stderr.read()}")
            if self.answers():
                return
            time.sleep(0.1)
        raise AssertionError("serve did not start")

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stderr.close()
        self.proc = None


@pytest.fixture(scope="session")
def browser():
    # `make test` installs Debian's chromium-headless-shell: a missing browser fails the
    # browser tests.
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: run `make install-browser`")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@contextmanager
def browser_page(browser, width: int = 1280, height: int = 800, **options):
    """A page in a browser context of its own, `width` x `height` (`options`: Playwright's
    `new_context`, e.g. device_scale_factor, has_touch); the test fails if the page raised an
    uncaught error. Every page of the browser tests is made here."""
    context = browser.new_context(viewport={"width": width, "height": height}, **options)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield page
    finally:
        context.close()
    assert not errors, f"the page raised: {errors}"


@pytest.fixture
def page(browser):
    with browser_page(browser) as pg:
        yield pg


SCREENSHOTS = pytest.StashKey[Path]()


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory, request) -> Path:
    chosen = os.environ.get("ASIWORLD_ARTIFACTS")
    folder = Path(chosen) if chosen else tmp_path_factory.getbasetemp() / "artifacts"
    folder.mkdir(parents=True, exist_ok=True)
    request.config.stash[SCREENSHOTS] = folder
    return folder


def pytest_terminal_summary(terminalreporter, config) -> None:
    folder = config.stash.get(SCREENSHOTS, None)
    if folder is not None:
        terminalreporter.write_line(f"screenshots: {folder}")


@pytest.fixture
def shot(artifacts):
    def save(page, name: str) -> Path:
        path = artifacts / f"{name}.png"
        page.screenshot(path=str(path))
        return path

    return save
