"""`asiworld serve` starts quietly in the default threading mode and stops cleanly on Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
import warnings

import pytest

from tests.served import free_port


def test_default_start_emits_no_deprecation_warning(apps):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        from tests.server.conftest import SMALL_WORLD

        app = apps.create(SMALL_WORLD)
        assert app.extensions["socketio"].server.async_mode == "threading"
    deprecations = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    assert deprecations == [], [str(w.message) for w in deprecations]
    assert "eventlet" not in sys.modules


@pytest.mark.timeout(60)
def test_serve_prints_the_url_and_ctrl_c_stops_without_a_traceback(tmp_path):
    port = free_port()
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
        deadline = time.monotonic() + 120  # a loaded machine starts it in 10 s and more
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
    assert (tmp_path / "data" / "world.sqlite3").stat().st_size > 0  # saved where it was told


def test_serve_refuses_a_speed_of_zero():
    from asiworld.cli import main

    assert main(["serve", "--speed", "0"]) == 2


def _serve_until_listening(port: int, *argv: str, cwd) -> tuple[int, str, str]:
    """Start `asiworld serve`, wait until it answers, Ctrl-C it; (exit code, stdout, stderr)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "asiworld.cli", "serve", "--port", str(port), *argv],
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 120  # a loaded machine starts it in 10 s and more
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                    break
            except OSError:
                time.sleep(0.1)
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, out, err


@pytest.mark.timeout(120)
def test_agents_on_a_saved_world_are_refused_and_new_starts_fresh_with_them(tmp_path):
    """Issue 19: `make serve ARGS="--agents ..."` resumed an old world and dropped the agents."""
    from asiworld.server.persistence import WorldStore

    data = tmp_path / "data"
    port = free_port()
    code, _out, err = _serve_until_listening(port, "--data-dir", str(data), cwd=tmp_path)
    assert code == 0, err
    saved = (data / "world.sqlite3").read_bytes()

    code, out, err = _serve_until_listening(
        port, "--data-dir", str(data), "--agents", "planner,forager", cwd=tmp_path
    )
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.startswith("error: world_exists: ") and "--new" in err
    assert (data / "world.sqlite3").read_bytes() == saved  # refused: nothing changed

    code, out, err = _serve_until_listening(
        port, "--data-dir", str(data), "--agents", "planner,forager", "--new", cwd=tmp_path
    )
    assert code == 0, err
    aside = [p for p in data.iterdir() if p.name.startswith("previous-")]
    assert len(aside) == 1 and f"moved to {aside[0]}" in out
    assert (aside[0] / "world.sqlite3").exists()  # the old world is kept, not deleted
    store = WorldStore(data)
    try:
        labels = sorted(c.label for c in store.load_world().characters())
    finally:
        store.close()
    assert labels == ["forager", "planner"]


def test_a_loopback_or_every_address_bind_is_shown_as_localhost():
    from asiworld.server.settings import shown_host

    assert shown_host("127.0.0.1") == shown_host("0.0.0.0") == "localhost"
    assert shown_host("192.168.1.5") == "192.168.1.5"


def test_a_server_starts_without_the_statistics_and_figure_libraries():
    """scipy.stats and matplotlib take seconds to import on this machine: the live evaluation
    needs neither until a study aggregates across worlds or draws its figures."""
    probe = ("import sys; from asiworld.server import create_app; "
             "print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy', 'matplotlib'}))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("parent", ["default", "ignores_sigint"])
def test_ctrl_c_while_serve_starts_stops_it_without_a_traceback(tmp_path, parent):
    """Ctrl-C can come before the server listens, while it is still importing: a sentence and
    exit 130 (as a shell reports an interrupted command), never a KeyboardInterrupt's traceback.
    Also when its parent ignores SIGINT (a background job of a script, as CI's can be): it was
    ignored until the server set its handlers, and a Ctrl-C before that was lost (seen under
    load: the server never stopped)."""
    def ignore_sigint() -> None:  # what a non-interactive shell does for a background job
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    proc = subprocess.Popen(
        [sys.executable, "-m", "asiworld.cli", "serve", "--port", str(free_port()),
         "--data-dir", str(tmp_path / "data"), "--no-record"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONPROFILEIMPORTTIME="1"),  # a line per import: we see it start
        preexec_fn=ignore_sigint if parent == "ignores_sigint" else None,
    )
    try:
        started = False
        for line in proc.stderr:
            if "import time:" in line and "asiworld.server" in line:  # serve's own start
                started = True
                break
        assert started, "serve never started"
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-2000:]
    assert proc.returncode in (0, 130), err[-2000:]
    assert proc.returncode == 0 or err.rstrip().endswith("stopped (Ctrl-C)")


def test_usr1_writes_every_threads_stack_and_the_server_goes_on(tmp_path):
    """What a server that hangs is doing, without stopping it: `kill -USR1 PID`."""
    from tests.hardening.serving import free_port, http, start_server, stop_server

    port = free_port()
    server = start_server(port, "--ephemeral", "--no-record")
    try:
        server.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + 60
        while True:  # it still answers after the dump
            # Once at load 8 it answered nothing for 30 s: say whether it had died or hung.
            assert server.poll() is None, f"the server died on USR1: {server.communicate()[1]}"
            try:
                if http("GET", port, "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the server stopped answering after USR1 (alive)"
            time.sleep(0.1)
    finally:
        if server.returncode is None:  # also on a failure above: no server outlives the test
            _, err = stop_server(server)
    assert "Thread 0x" in err and "most recent call first" in err


@pytest.mark.parametrize("how", ["sigint-ignored-by-its-parent", "sigterm"])
def test_a_server_stops_cleanly_on_sigint_even_if_ignored_and_on_sigterm(how):
    """A background job of a non-interactive shell inherits SIGINT ignored (CI once saw a front
    end that never stopped); a supervisor stops with SIGTERM. Both stop the server as Ctrl-C
    does: "stopped", exit 0."""
    from tests.hardening.serving import ROOT, free_port, http

    port = free_port()
    ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if how != "sigterm" else None
    proc = subprocess.Popen([sys.executable, "-m", "asiworld.cli", "serve", "--port", str(port),
                             "--ephemeral", "--no-record"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=ignore,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if http("GET", port, "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.1)
        proc.send_signal(signal.SIGTERM if how == "sigterm" else signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "stopped" in out and "Traceback" not in err
