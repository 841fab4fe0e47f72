"""E2E (issue 36): a person takes a human seat of a lockstep study in Chromium. The study prints
the seat's join link; /play opened from it shows the study's minute of its horizon and the seat's
turn with the seconds left of its (generous) deadline; the player's keys are the seat's
decisions, turn by turn, and the study's results count the seat's calls under the kind "human".

Bad input tried on the page first: no token (the page asks for one), a token the study never gave
(unknown_token) and the seat's token under another character (wrong_seat), each said on the page
with its code."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request

import pytest
from playwright.sync_api import expect

from e2e.conftest import REPO, free_port

pytestmark = pytest.mark.e2e

THINK = 6  # ticks per turn: ten turns in the one-minute horizon
STUDY = f"""title = "one person and a planner"
[world]
seed = 3
minutes = 1
size = 64
[clock]
kind = "lockstep"
think_ticks = {THINK}
[serve]
entry_timeout = 60
[[configuration]]
name = "planner"
kind = "builtin"
agent = "planner"
[[configuration]]
name = "ada"
kind = "human"
"""


class StudyProcess:
    """`asiworld study run` in its own process (or, `served`, `asiworld serve --study` on a free
    port); the lines it says are kept as they come."""

    def __init__(self, path, out, served: bool = False) -> None:
        if served:
            argv = ["serve", "--ephemeral", "--port", str(free_port()), "--speed", "50",
                    "--study", str(path), "--out", str(out), "--figures", "none"]
        else:
            argv = ["study", "run", str(path), "--out", str(out), "--figures", "none", "--quiet"]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "asiworld.cli", *argv], cwd=REPO,
            stdout=subprocess.PIPE if served else subprocess.DEVNULL,
            stderr=subprocess.DEVNULL if served else subprocess.PIPE, text=True,
            env=dict(os.environ, PYTHONUNBUFFERED="1"))
        self.served = served
        self.lines: list[str] = []
        self.link = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout if self.served else self.proc.stderr:
            self.lines.append(line)
            # the server prints the seat's link while the study is prepared, before it listens
            if ("is live" if self.served else "/play?") in line:
                self.link.set()

    def join_link(self) -> str:
        assert self.link.wait(30), "".join(self.lines)
        link = re.search(r"open (http://\S+/play\?\S+) in a browser", "".join(self.lines)).group(1)
        if self.served:  # "is live" is said just before the server listens: wait for it to answer
            deadline = time.monotonic() + 30
            while True:
                try:
                    urllib.request.urlopen(link.split("/play?")[0] + "/healthz", timeout=2).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline, "".join(self.lines)
                    time.sleep(0.1)
        return link

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT) if self.served else self.proc.kill()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc.wait(10)
        self._reader.join(10)  # the process is gone: its pipe has ended
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


def play_turns(page) -> int:
    """On the seat's page: a wait (Space) in each of its turns until the study ends."""
    line = page.locator("#study-line")
    expect(line).to_have_attribute("data-turn", re.compile("open|ended"), timeout=30000)
    turns = 0
    while line.get_attribute("data-turn") != "ended":
        expect(line).to_have_attribute("data-turn", re.compile("open|ended"), timeout=15000)
        if line.get_attribute("data-turn") == "ended":
            break
        was = line.get_attribute("data-tick")
        page.keyboard.press("Space")
        turns += 1
        # the next turn may open before this is looked at (the server runs at 50 ticks/s)
        page.wait_for_function(
            f"(l => l.dataset.turn === 'ended' || l.dataset.tick !== '{was}')"
            "(document.getElementById('study-line'))", timeout=15000)
    expect(line).to_contain_text("the study has ended")
    return turns


def test_a_person_plays_a_human_seat_of_a_lockstep_study_on_the_server(page, tmp_path):
    """The same seat on `serve --study`: the server steps the lockstep study turn by turn, and
    its own /play is the seat's page; at the horizon the folder is written."""
    path = tmp_path / "study.toml"
    path.write_text(STUDY)
    study = StudyProcess(path, tmp_path / "out", served=True)
    try:
        page.goto(study.join_link())
        turns = play_turns(page)
        results = tmp_path / "out" / "results.json"
        deadline = time.monotonic() + 60
        while not results.exists():
            assert time.monotonic() < deadline, "".join(study.lines)
            time.sleep(0.1)
    finally:
        study.stop()
    assert turns == 60 // THINK
    (row,) = [r for r in json.loads(results.read_text())["costs"] if r["name"] == "ada"]
    assert row["kind"] == "human" and row["calls"] >= 2 * turns


def test_a_person_plays_a_human_seat_of_a_lockstep_study(page, tmp_path, shot):
    path = tmp_path / "study.toml"
    path.write_text(STUDY)
    study = StudyProcess(path, tmp_path / "out")
    try:
        link = study.join_link()
        base, token = link.split("/play?")[0], re.search(r"token=([^&]+)", link).group(1)
        char = int(re.search(r"character=(\d+)", link).group(1))

        page.goto(base + "/play")  # a study's world: a seat's token is asked for, not a name
        expect(page.locator("#seat")).to_be_visible()
        expect(page.locator("#join")).to_be_hidden()
        page.fill("#seat-token", "not-a-token-the-study-gave")
        page.click("#seat-button")
        expect(page.locator("#seat-error")).to_contain_text("not a seat of this world")
        expect(page.locator("#seat-error")).to_contain_text("unknown_token")
        page.goto(f"{base}/play?character={char + 1}&token={token}")
        expect(page.locator("#seat-error")).to_contain_text("another seat's")
        expect(page.locator("#seat-error")).to_contain_text("wrong_seat")

        page.goto(link)
        line = page.locator("#study-line")
        expect(line).to_contain_text("Study · minute 0 of 1")
        expect(line).to_have_attribute("data-turn", "open", timeout=15000)
        expect(line).to_contain_text("your turn:")
        assert int(line.get_attribute("data-seconds-left")) > 250  # a human's turn: 300 s
        expect(page.locator("#me-name")).to_have_text("ada")
        shot(page, "human-seat-turn")

        turns = play_turns(page)  # wait 5 ticks (Space): the seat's decision of each turn
        expect(line).to_contain_text("minute 1 of 1")
        assert study.proc.wait(30) == 0, "".join(study.lines)
    finally:
        study.stop()

    assert turns == 60 // THINK  # a decision at each of the seat's turns, none missed
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    (row,) = [r for r in results["costs"] if r["name"] == "ada"]
    assert row["kind"] == "human"
    assert row["calls"] >= 2 * turns  # an observation and a decision each turn, at least
    report = (tmp_path / "out" / "report.md").read_text()
    assert re.search(rf"\| ada \| human \| {row['calls']} \|", report), report
    events = [json.loads(e) for e in (tmp_path / "out" / "events.jsonl").read_text().splitlines()]
    assert not [e for e in events if e.get("kind") == "incident" and e.get("char") == char]
    assert (tmp_path / "out" / "replay.asirep").is_file()
