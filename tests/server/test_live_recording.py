"""Every live world records its replay as it runs: listed in /replays while it runs and after,
readable and verifiable up to its last complete segment when the server is killed, complete when
it stops cleanly, and begun mid-run (from a world snapshot) when a saved world is resumed."""

from __future__ import annotations

import signal
import time

import pytest
from asiworld.cli import main
from asiworld.replay import Replay
from asiworld.replay.verify import verify_replay
from asiworld.server import services

from tests.hardening.serving import free_port, http, start_server
from tests.server.conftest import SMALL_WORLD


def _recording_row(port: int) -> dict:
    status, body = http("GET", port, "/api/replays")
    assert status == 200, body
    rows = [r for r in body["replays"] if r.get("recording")]
    assert len(rows) == 1, body["replays"]
    return rows[0]


def _wait_for_tick(port: int, tick: int, timeout: float = 40.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = _recording_row(port)
        if (row["last_tick"] or 0) >= tick:
            return row
        time.sleep(0.2)
    raise AssertionError(f"the recording did not reach tick {tick}: {row}")


@pytest.mark.timeout(120)
def test_a_killed_server_leaves_a_cut_off_replay_that_verifies(tmp_path, capsys):
    port = free_port()
    record = tmp_path / "recordings"
    proc = start_server(
        port,
        *("--ephemeral", "--record-dir", str(record), "--seed", "3"),
        *("--agents", "forager,planner", "--speed", "200", "--admin-token", "t"),
    )
    try:
        row = _wait_for_tick(port, 130)  # listed while it runs, past two complete segments
        assert row["complete"] is False
        assert len(row["characters"]) == 2
        status, page = 200, None
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{port}/replays", timeout=10) as reply:
            page = reply.read().decode()
        assert status == 200 and "data-recording" in page
    finally:
        proc.send_signal(signal.SIGKILL)  # no goodbye: no index is written
        proc.communicate(timeout=10)
    [path] = sorted(record.glob("*.asirep"))
    with Replay.open(path) as replay:
        assert replay.complete is False
        assert replay.last_tick >= 119
        assert replay.integrity() == []
        verdict = verify_replay(replay)
        assert verdict.ok, verdict.message
        assert verdict.checked >= 2
    capsys.readouterr()
    assert main(["replay", "info", str(path)]) == 0
    assert "cut off" in capsys.readouterr().out
    assert main(["replay", "verify", str(path)]) == 0


@pytest.mark.timeout(120)
def test_a_resumed_world_is_recorded_mid_run_and_a_clean_stop_completes_it(tmp_path):
    data = tmp_path / "world"
    port = free_port()
    args = ("--data-dir", str(data), "--seed", "3", "--speed", "200", "--admin-token", "t")
    first = start_server(port, *args, "--agents", "forager,random")
    try:
        _wait_for_tick(port, 200)
    finally:
        first.send_signal(signal.SIGKILL)
        first.communicate(timeout=10)
    port = free_port()
    second = start_server(port, *args)
    try:
        row = _wait_for_tick(port, 400)
        assert len(row["characters"]) == 2  # there before the recording began
    finally:
        second.send_signal(signal.SIGINT)
        out, err = second.communicate(timeout=30)
    assert second.returncode == 0, err
    first_file, resumed = sorted((data / "replays").glob("*.asirep"))
    with Replay.open(resumed) as replay:
        assert replay.complete is True
        start = replay.header.start
        assert start["tick"] == replay.first_tick > 0
        assert {c["id"] for c in replay.characters()} == {c["id"] for c in start["characters"]}
        verdict = verify_replay(replay)
        assert verdict.ok, verdict.message
        assert verdict.last_tick >= 360
    with Replay.open(first_file) as replay:
        assert replay.header.start == {}  # began at tick 0: verified from the seed
        assert verify_replay(replay).ok


def test_the_replays_page_lists_the_live_recording_as_it_grows(apps, tmp_path):
    app = apps.create({**SMALL_WORLD, "TESTING": True, "RECORD_DIR": str(tmp_path),
                      "REPLAY_DIRS": [], "AGENTS": ["forager"]})
    runner = services(app).runner
    client = app.test_client()
    runner.step(61)  # the first segment (ticks 0-59) is complete on disk
    [row] = client.get("/api/replays").get_json()["replays"]
    assert row["recording"] is True and row["last_tick"] == 59
    runner.step(60)
    [row] = client.get("/api/replays").get_json()["replays"]
    assert row["last_tick"] == 119
    assert client.get(f"/replay/{row['id']}").status_code == 200
    app.extensions["asiworld_recording"].close()
    [row] = client.get("/api/replays").get_json()["replays"]
    assert row["recording"] is False and row["complete"] is True and row["last_tick"] == 121


def test_a_fork_closes_the_recording_and_begins_the_next_from_its_snapshot(apps, tmp_path):
    from asiworld.engine import World
    from asiworld.server.fork import install

    app = apps.create({**SMALL_WORLD, "TESTING": True, "RECORD_DIR": str(tmp_path),
                      "REPLAY_DIRS": [], "AGENTS": ["random"]})
    runner = services(app).runner
    runner.step(30)
    fork = World.create(seed=3, size=48)
    fork.add_character("eve", "human")
    for _ in range(70):
        fork.step()
    with app.app_context():
        runner.call(lambda: install(app, fork, None))
    runner.step(130)
    app.extensions["asiworld_recording"].close()
    first, second = app.extensions["asiworld_recording"].paths
    with Replay.open(first) as before, Replay.open(second) as after:
        assert before.complete and before.last_tick == 30
        assert after.header.start["tick"] == 70 == after.first_tick
        assert after.last_tick == 200
        verdict = verify_replay(after)
    assert verdict.ok and verdict.checked >= 3, verdict.message


def test_serve_refuses_a_record_dir_that_is_a_file(tmp_path, capsys):
    afile = tmp_path / "a-file"
    afile.write_text("")
    assert main(["serve", "--ephemeral", "--record-dir", str(afile)]) == 2
    assert "not_a_folder" in capsys.readouterr().err
