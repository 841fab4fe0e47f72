"""`asiworld serve` starts quietly in the default threading mode and stops cleanly on Ctrl-C."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import warnings

import pytest


def test_default_start_emits_no_deprecation_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from asiworld.server import create_app

        from tests.server.conftest import SMALL_WORLD

        app = create_app(SMALL_WORLD)
        assert app.extensions["socketio"].server.async_mode == "threading"
    deprecations = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    assert deprecations == [], [str(w.message) for w in deprecations]
    assert "eventlet" not in sys.modules


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.timeout(60)
def test_serve_prints_the_url_and_ctrl_c_stops_without_a_traceback(tmp_path):
    port = _free_port()
    env = dict(os.environ, PYTHONWARNINGS="error::DeprecationWarning")
    # Its own data dir: the default ./data would be the checkout's, and a world saved there by
    # an older build (another snapshot schema) is refused.
    proc = subprocess.Popen(
        [sys.executable, "-m", "asiworld.cli", "serve", "--port", str(port), "--speed", "20",
         "--data-dir", str(tmp_path / "data")],
        cwd=tmp_path,  # nothing it writes lands in the checkout
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        line = proc.stdout.readline()
        assert f"http://localhost:{port}/" in line
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # wait until it listens: stop a serving server
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                    break
            except OSError:
                time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert "stopped at tick" in out
    assert any((tmp_path / "data").iterdir())  # the final snapshot went where it was told


def test_serve_refuses_a_speed_of_zero():
    from asiworld.cli import main

    assert main(["serve", "--speed", "0"]) == 2
