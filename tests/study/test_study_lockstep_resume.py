"""A lockstep study with an external seat, killed mid-run and run again, ends in the world the
same study ends in when nothing stopped it: the seat's turns go on from where the store left
them, so an agent whose decisions depend only on what it sees (here a script that moves round the
compass by the turn's tick) gives the same state hash either way. (An agent that keeps its own
memory cannot be restarted into the same state; that is the agent's, not the study's.)"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from asiworld.agents.clients.sdk import Client, StudyEnded

from tests.study.helpers import saved_tick
from tests.study.test_study_external import read_until

THINK = 3
MOVES = ["n", "e", "s", "w"]
STUDY = ('[world]\nseed = 3\nminutes = 2\nsize = 64\n'
         f'[clock]\nkind = "lockstep"\nthink_ticks = {THINK}\n'
         '[serve]\nentry_timeout = 120\n'
         '[[configuration]]\nname = "planner"\nkind = "builtin"\nagent = "planner"\n'
         '[[configuration]]\nname = "outside"\nkind = "external"\nturn_seconds = 60\n')


def compass(url: str, character: int, token: str) -> threading.Thread:
    """The outside agent, on a thread: one move a turn, chosen by the turn's tick alone."""

    def play() -> None:
        client = Client(url, token=token, character=character)
        after = -1
        while True:
            try:
                turn = client.next_turn(timeout=60, after=after)
                if turn is None:
                    continue
                after = turn["tick"]
                client.act({"type": "move", "dir": MOVES[(after // THINK) % 4]})
            except StudyEnded:
                return
            except OSError:  # the study was killed under it
                return
            except Exception:  # noqa: BLE001 - the study's own answer decides the test
                return

    thread = threading.Thread(target=play, daemon=True)
    thread.start()
    return thread


def start(path, out) -> tuple[subprocess.Popen, list[str]]:
    run = subprocess.Popen(
        [sys.executable, "-m", "asiworld.cli", "study", "run", str(path), "--out", str(out),
         "--figures", "none"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen: list[str] = []
    url = read_until(run.stderr, r"agent API for the external seats: (\S+)", seen).group(1)
    seat = read_until(run.stderr, r"external seat outside: character (\d+) token (\S+)", seen)
    compass(url, int(seat.group(1)), seat.group(2))
    return run, seen


def finish(run: subprocess.Popen, seen: list[str]) -> str:
    try:
        err = run.stderr.read()  # the rest, after what start() read (its buffer included)
        run.wait(timeout=240)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    said = "".join(seen) + err
    assert run.returncode == 0, said
    return said


@pytest.mark.timeout(600)
def test_a_killed_lockstep_study_resumed_ends_in_the_same_world(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text(STUDY)

    whole = tmp_path / "whole"
    finish(*start(path, whole))
    expected = json.loads((whole / "results.json").read_text())

    again = tmp_path / "again"
    run, _ = start(path, again)
    try:
        deadline = time.monotonic() + 240
        while saved_tick(again / "world.sqlite3") < 40:
            assert run.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        os.kill(run.pid, signal.SIGKILL)
    finally:
        run.kill()
        run.wait()
    said = finish(*start(path, again))
    results = json.loads((again / "results.json").read_text())

    assert "outside seats' decisions kept" in said and "caught up at tick" in said
    assert "transcripts/, decisions/" in said  # the folder's list names the kept decisions
    assert results["state_hash"] == expected["state_hash"]
    assert results["ticks"] == expected["ticks"] == 120
