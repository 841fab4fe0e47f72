"""Starting `asiworld model serve` as a user does, for the tests that need the real model: a
subprocess on `--port 0`, its URL read from its one ready line."""

from __future__ import annotations

import json
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from asiworld.local_model import MODEL_NAME

READY = re.compile(
    rf"^serving {MODEL_NAME} at (?P<url>http://127\.0\.0\.1:\d+/v1) \(1 thread, context 8192\)$"
)
START_DEADLINE = 120.0  # seconds: a loaded CI machine, not what it takes (about 2)
STOP_DEADLINE = 5.0

@dataclass
class Served:
    proc: subprocess.Popen
    lines: queue.Queue  # stdout, line by line, read by a thread (None once it closes)
    url: str  # ".../v1"
    stderr: Path

    @property
    def address(self) -> str:
        return self.url.removesuffix("/v1")


def start(folder: Path, *argv: str) -> Served:
    """Start `asiworld model serve --port 0` and wait for its ready line."""
    stderr = folder / "stderr.txt"
    proc = subprocess.Popen(
        [sys.executable, "-m", "asiworld.cli", "model", "serve", "--port", "0", *argv],
        cwd=folder,  # nothing it writes lands in the checkout
        stdout=subprocess.PIPE,
        stderr=stderr.open("w"),  # a file: llama.cpp's log (--verbose) can never fill a pipe
        text=True,
    )
    lines: queue.Queue = queue.Queue()

    def read() -> None:
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    try:
        line = lines.get(timeout=START_DEADLINE)
    except queue.Empty:
        proc.kill()
        pytest.fail(f"no ready line in {START_DEADLINE} s; stderr: {stderr.read_text()}")
    ready = READY.match((line or "").rstrip("\n"))
    if not ready:
        proc.kill()
        pytest.fail(f"not a ready line: {line!r}; stderr: {stderr.read_text()}")
    return Served(proc, lines, ready["url"], stderr)


def stop(served: Served, sig: signal.Signals) -> float:
    """Send `sig`; the seconds until the process ended (it is killed past the deadline)."""
    began = time.monotonic()
    served.proc.send_signal(sig)
    try:
        served.proc.wait(timeout=STOP_DEADLINE)
    except subprocess.TimeoutExpired:
        served.proc.kill()
        served.proc.wait()
        pytest.fail(f"{sig.name} did not stop it within {STOP_DEADLINE} s")
    return time.monotonic() - began


def post(url: str, body: dict) -> dict:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=120) as reply:
        assert reply.status == 200
        return json.load(reply)


