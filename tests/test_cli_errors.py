"""A user's mistake on the command line is one line `error: code: sentence` on stderr, exit 2, and
no traceback: every bad input issue 19 found, in a fresh `asiworld` process each.

Bad inputs tried: a port out of range, a port in use, a missing replays folder, a negative think
latency, a folder where a file is needed (score, replay info, replay verify), `run --out` naming
a file and an unwritable place, an unwritable `serve --data-dir`, a PNG export to an unwritable
path, a server address that is no URL, an unknown or empty `run --agents`, a map too small or too large, bench counts that are not whole numbers of 1 or more,
`--seeds` that are not numbers or disagree with `--runs`, `--agents` on a saved world, and a closed pipe.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "replays" / "three-configurations-30min.asirep"
UNWRITABLE = "/proc/asiworld-nowhere/out"  # refused even to root


def asiworld(*argv: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "asiworld.cli", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "ASIWORLD_DATA_DIR": str(cwd / "data")},
    )


@pytest.fixture
def busy_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def _saved_world(tmp_path: Path) -> Path:
    from asiworld.server.persistence import DB_NAME

    data = tmp_path / "saved"
    data.mkdir()
    (data / DB_NAME).write_bytes(b"")  # only its presence is asked about before start-up
    return data


BAD_INPUTS = [
    # (argv, code); "{tmp}" is the test's folder, "{file}" a file in it
    (["serve", "--port", "99999"], "bad_port"),
    (["serve", "--port", "http"], "bad_argument"),
    (["serve", "--replays", "/nonexistent-asiworld"], "folder_not_found"),
    (["serve", "--data-dir", UNWRITABLE], "not_writable"),
    (["serve", "--speed", "0"], "bad_argument"),
    (["run", "--think-ticks", "-1"], "bad_argument"),
    (["run", "--minutes", "0"], "bad_argument"),
    (["run", "--out", "{file}"], "not_a_folder"),
    (["run", "--out", UNWRITABLE], "not_writable"),
    (["score", "{tmp}"], "not_a_file"),
    (["score", "{tmp}/missing.csv"], "file_not_found"),
    (["replay", "info", "{tmp}"], "not_a_file"),
    (["replay", "verify", "{tmp}"], "not_a_file"),
    (["replay", "export", str(SAMPLE), "--at", "5", "--png", UNWRITABLE + ".png"], "folder_not_found"),
    (["replay", "export", str(SAMPLE), "--at", "5", "--png", "{tmp}"], "not_a_file"),
    (["agent", "--server", "notaurl", "--builtin", "forager"], "bad_url"),
    (["agent", "--server", "http://127.0.0.1:1", "--model-url", "nope"], "bad_url"),
    (["bench", "engine", "--ticks", "-5"], "bad_argument"),
    # checked after parsing (they once printed `error [code]: ...`)
    (["run", "--agents", "nosuch"], "unknown_configuration"),
    (["run", "--agents", ","], "bad_argument"),
    (["run", "--size", "10"], "bad_argument"),
    (["run", "--size", "99999"], "bad_argument"),
    (["bench", "engine", "--size", "20"], "bad_argument"),
    (["bench", "engine", "--counts", "1,x"], "bad_argument"),
    (["bench", "engine", "--counts", "0"], "bad_argument"),
    (["run", "--seeds", "1,a"], "bad_argument"),
    (["run", "--seeds", "1,2", "--runs", "3"], "bad_argument"),
    (["serve", "--no-such-flag"], "bad_argument"),
]


@pytest.mark.parametrize(("argv", "code"), BAD_INPUTS, ids=[" ".join(a) for a, _ in BAD_INPUTS])
def test_a_bad_input_is_one_coded_line_and_exit_2(tmp_path, argv, code):
    (tmp_path / "results.csv").write_text("name\n")
    argv = [a.replace("{tmp}", str(tmp_path)).replace("{file}", str(tmp_path / "results.csv"))
            for a in argv]
    done = asiworld(*argv, cwd=tmp_path)
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"error: {code}: "), lines[0]
    assert len(lines[0]) > len(f"error: {code}: ") + 10  # a sentence, not just a code
    assert done.stdout == ""  # nothing started: no banner, no token
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.csv"]  # nothing written


def test_serve_on_a_port_in_use_fails_before_the_banner_and_token(tmp_path, busy_port):
    done = asiworld("serve", "--port", str(busy_port), "--ephemeral", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("error: port_unavailable: ") and "Traceback" not in done.stderr
    assert "admin token" not in done.stdout and "live" not in done.stdout


def test_agents_on_a_saved_world_are_refused_with_the_way_to_start_fresh(tmp_path):
    data = _saved_world(tmp_path)
    done = asiworld("serve", "--data-dir", str(data), "--agents", "planner", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: world_exists: ")
    assert "--new" in done.stderr and "--data-dir" in done.stderr
    assert done.stdout == ""
    assert (data / "world.sqlite3").read_bytes() == b""  # untouched


def test_a_closed_pipe_ends_quietly(tmp_path):
    csv = tmp_path / "cohort.csv"
    rows = "\n".join(f"c{i},Y,3,N,{i},1,10,5,2,1" for i in range(3000))
    csv.write_text("name,outfit,depth,hero,kills,bosses,crafts,coins,trial,downs\n" + rows + "\n")
    reader = subprocess.Popen(["head", "-1"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    done = subprocess.run(
        [sys.executable, "-m", "asiworld.cli", "score", str(csv), "--json"],
        stdout=reader.stdin,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
    )
    reader.stdin.close()
    reader.wait(timeout=10)
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert done.stderr == ""
