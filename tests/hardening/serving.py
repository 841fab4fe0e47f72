"""Helpers to run `asiworld serve` as a real process on a free loopback port."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.served import free_port  # noqa: F401 - the serve tests import it from here

ROOT = Path(__file__).resolve().parents[2]




def start_server(port: int, *args: str, wait: float = 30) -> subprocess.Popen:
    """`asiworld serve` in its own process, once it answers /healthz (within `wait` seconds: a
    resumed study replays its ticks first)."""
    # serve's default --data-dir is ./data: a test names a temporary one or keeps nothing.
    assert "--data-dir" in args or "--ephemeral" in args, "give the server tmp_path or --ephemeral"
    proc = subprocess.Popen(
        [sys.executable, "-m", "asiworld.cli", "serve", "--port", str(port), *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            _, err = proc.communicate()  # read to the end, and its pipes closed
            raise RuntimeError(f"the server exited: {err}")
        try:
            http("GET", port, "/healthz")
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    proc.communicate()
    raise RuntimeError(f"the server did not answer /healthz within {wait:g} s")


def stop_server(proc: subprocess.Popen, timeout: float = 30) -> tuple[str, str]:
    """Ctrl-C the server and wait for it; a server that does not stop in `timeout` is killed
    (and the test fails) rather than left running after the test: (stdout, stderr)."""
    import signal

    proc.send_signal(signal.SIGINT)
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGUSR1)  # serve writes every thread's stack: where it hangs
        try:
            _, err = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            err = ""
        proc.kill()
        _, more = proc.communicate()
        tail = ((err or "") + (more or ""))[-6000:]
        raise AssertionError(f"the server ({' '.join(proc.args[3:6])}...) did not stop within "
                             f"{timeout} s of Ctrl-C; its threads then:\n{tail}") from None


def served_again(port: int, *args: str) -> tuple[dict, str]:
    """The same command line started again (after a crash) on `port`, and stopped once it
    answers: its /healthz then, and what it wrote on stderr."""
    again = start_server(port, *args)
    try:
        status, health = http("GET", port, "/healthz")
        assert status == 200, health
    finally:
        _, err = stop_server(again)
    return health, err


def http(
    method: str, port: int, path: str, body: dict | None = None, headers: dict | None = None
) -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=data, method=method, headers=headers or {}
    )
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=10) as reply:
            return reply.status, json.loads(reply.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")
