"""One server per data folder (issue 21): a second `asiworld serve` on a folder another server
holds fails at once with `error: data_in_use: ...`, naming the folder and the holder's pid, and
the first keeps running; the lock goes with its holder, even one killed by SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request

import pytest
from asiworld.server import datalock

from tests.served import free_port


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
            return True
    except OSError:
        return False


def _serve(port: int, data, cwd) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "asiworld.cli", "serve", "--port", str(port), "--speed", "20",
         "--data-dir", str(data)],
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _wait_listening(proc: subprocess.Popen, port: int) -> None:
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline and proc.poll() is None:
        if _answers(port):
            return
        time.sleep(0.1)
    raise AssertionError(f"the server did not start: {proc.poll()}")


@pytest.mark.timeout(120)
def test_a_second_serve_on_a_held_folder_is_refused_and_the_first_keeps_running(tmp_path):
    data = tmp_path / "data"
    first_port, second_port = free_port(), free_port()
    first = _serve(first_port, data, tmp_path)
    try:
        _wait_listening(first, first_port)
        second = subprocess.run(
            [sys.executable, "-m", "asiworld.cli", "serve", "--port", str(second_port),
             "--data-dir", str(data)],
            cwd=tmp_path, capture_output=True, text=True, timeout=60,
        )
        assert second.returncode == 2 and "Traceback" not in second.stderr
        assert second.stderr.startswith("error: data_in_use: ")
        assert str(data.resolve()) in second.stderr and f"pid {first.pid}" in second.stderr
        assert second.stdout == ""  # no banner, no admin token
        assert not _answers(second_port)
        assert first.poll() is None and _answers(first_port)

        # The same port as well: the folder is named, not the port.
        again = subprocess.run(
            [sys.executable, "-m", "asiworld.cli", "serve", "--port", str(first_port),
             "--data-dir", str(data)],
            cwd=tmp_path, capture_output=True, text=True, timeout=60,
        )
        assert again.returncode == 2 and again.stderr.startswith("error: data_in_use: ")

        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
        datalock.acquire(data).release()  # a killed holder leaves no stale lock
    finally:
        if first.poll() is None:
            first.kill()
        first.communicate()


def test_a_lock_goes_with_a_holder_killed_by_sigkill(tmp_path):
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from asiworld.server import datalock; "
         "datalock.acquire(sys.argv[1]); print('held', flush=True); time.sleep(60)",
         str(tmp_path)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(datalock.DataInUse) as refused:
            datalock.acquire(tmp_path)
        assert f"pid {holder.pid}" in refused.value.message
        assert refused.value.code == "data_in_use"
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=10)
        lock = datalock.acquire(tmp_path)
        assert (tmp_path / datalock.LOCK_NAME).read_text().strip() == str(os.getpid())
        lock.release()
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.stdout.close()


def test_a_released_lock_can_be_taken_again_in_the_same_process(tmp_path):
    datalock.acquire(tmp_path).release()
    lock = datalock.acquire(tmp_path)
    with pytest.raises(datalock.DataInUse):
        datalock.acquire(tmp_path)  # flock is per open file: the same process is refused too
    lock.release()
