"""A study shows its progress on stderr: off a terminal a line per simulated minute with the tick,
the minute of the horizon, the ETA and each seat's calls, failures, incidents and state; on a
terminal one line rewritten in place; `--quiet` silences it."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys

import pytest
from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer, Fault
from asiworld.cli import main

NO_FIGURES = ["--figures", "none"]  # the report's tables only: a fast study
LINE = re.compile(r"^tick (\d+)/120 minute (\d)/2 [\d.]+ ticks/s ETA \d+m\d\ds \| (.*)$", re.M)


@pytest.fixture(scope="module")
def fake():
    with FakeModelServer(FakeModel([Fault("5xx", 2, 2)])) as server:  # one failed call a seat
        yield server


def study(tmp_path, url: str):
    (tmp_path / "walker.py").write_text(
        "class Walker:\n    def observe(self, o): pass\n"
        "    def decide(self): return {'type': 'move', 'dir': 'e'}\n")
    path = tmp_path / "s.toml"
    path.write_text(
        '[world]\nseed = 3\nminutes = 2\nsize = 64\n[clock]\nkind = "lockstep"\n'
        f'[[configuration]]\nname = "m"\nkind = "openai"\nmodel_url = "{url}"\n'
        'model = "fake-forager"\nbackoff_seconds = 0.0\n'
        '[[configuration]]\nname = "mine"\nkind = "python"\nagent = "walker:Walker"\n'
        '[[configuration]]\nname = "b"\nkind = "builtin"\nagent = "forager"\n')
    return path


def test_off_a_terminal_each_simulated_minute_has_a_line_with_every_seat(fake, tmp_path, capsys):
    path = study(tmp_path, fake.url)
    assert main(["study", "run", str(path), "--out", str(tmp_path / "out"), *NO_FIGURES]) == 0
    lines = LINE.findall(capsys.readouterr().err)
    assert [(tick, minute) for tick, minute, _ in lines] == [("60", "1"), ("120", "2")]
    seats = lines[-1][2].split(" | ")
    model = re.fullmatch(r"m: (\d+) calls (\d+) failed (\d+) incidents, (.+)", seats[0])
    assert model and int(model[1]) > 2 and model[2] == "1" and int(model[3]) >= 1
    assert model[4] in ("idle", "its turn", "pausing", "waiting for its model") or \
        model[4].startswith("thinking until tick")
    assert re.fullmatch(r"mine: 40 calls 0 failed, (its turn|idle)", seats[1])
    assert seats[2] == "b: built-in"
    assert "\r" not in capsys.readouterr().err


def test_quiet_shows_no_progress(fake, tmp_path, capsys):
    path = study(tmp_path, fake.url)
    assert main(["study", "run", str(path), "--out", str(tmp_path / "out"), "--quiet",
                 *NO_FIGURES]) == 0
    err = capsys.readouterr().err
    assert not LINE.search(err) and "wrote " in err


def test_on_a_terminal_one_line_is_rewritten_in_place(fake, tmp_path):
    path = study(tmp_path, fake.url)
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "asiworld.cli", "study", "run", str(path),
                             "--out", str(tmp_path / "out"), *NO_FIGURES],
                            stdout=subprocess.DEVNULL, stderr=follower, cwd=tmp_path)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the pseudo-terminal closed with the process
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    assert proc.wait(60) == 0
    text = seen.decode()
    assert "\r\x1b[Ktick 1/120 minute 0/2 ETA ? | m: " in text  # the first tick
    assert "\r\x1b[Ktick 120/120 minute 2/2" in text  # the last, over the line before
    assert not LINE.search(text)  # no line a minute: the one line is rewritten
