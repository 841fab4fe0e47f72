"""E2E fixtures: a live server in-process on a free loopback port, and Debian's Chromium.

Chromium comes from the system (/usr/bin/chromium); nothing is downloaded. Screenshots go to
$ASIWORLD_ARTIFACTS, else to `artifacts/` in pytest's temporary folder of the run (tests never
write into the checkout); the folder is printed at the end of the run.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
RID = "three-configurations-30min"  # the sample replay the viewer tests open
CHROMIUM = os.environ.get("ASIWORLD_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def live_server():
    """The real engine at 20 ticks/s, served by werkzeug in a thread (threading async mode)."""
    from asiworld.server import create_app, services
    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no per-request lines
    app = create_app({"SEED": 7, "SPEED": 20})
    runner = services(app).runner
    port = free_port()
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    runner.start()
    yield {"url": f"http://127.0.0.1:{port}", "app": app, "runner": runner}
    runner.stop()
    server.shutdown()


@pytest.fixture(scope="module")
def replay_server():
    """Each module its own server reading the sample replays: a fork replaces the live world,
    which other e2e tests must not see."""
    from asiworld.server import create_app, services
    from werkzeug.serving import make_server

    # The sample replays are committed (replays/): a missing one fails, never skips.
    assert (REPO / "replays" / f"{RID}.asirep").exists(), "run `asiworld replay samples`"
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    app = create_app({"SEED": 7, "SPEED": 20, "REPLAY_DIRS": [str(REPO / "replays")]})
    runner = services(app).runner
    port = free_port()
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    runner.start()
    yield {"url": f"http://127.0.0.1:{port}", "app": app, "runner": runner}
    runner.stop()
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    # `make test` installs Debian's chromium: a missing browser fails the browser tests.
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: run `make install-browser`")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    context.close()
    assert not errors, f"the page raised: {errors}"


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
