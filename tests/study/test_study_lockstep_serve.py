"""A lockstep study with an outside seat on the live server (`asiworld serve --study`): the server
steps the world turn by turn as `study run` does, so the same study with the same agent gives
the same state hash on both; meanwhile nobody can tick the world by hand.

Played by `asiworld agent --builtin forager --think 0` in a process of its own (its decisions
depend only on what it is shown), which is told the study ended and exits 0.

Bad inputs tried: an admin's pause, resume and step of the turn-stepped world (409
`turn_stepped`, the tick unchanged)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import pytest
from asiworld.cli import main

from tests.hardening.serving import free_port, http, start_server, stop_server
from tests.study.test_study_external import get, read_until

ASIWORLD = [sys.executable, "-m", "asiworld.cli"]
ADMIN = "admin-token-for-the-test"
SPECTATOR = "spectator-token-for-the-test"


def study() -> str:
    return ('[world]\nseed = 3\nminutes = 1\nsize = 64\n'
            '[clock]\nkind = "lockstep"\nthink_ticks = 4\n'
            '[serve]\nentry_timeout = 120\n'
            '[[configuration]]\nname = "planner"\nkind = "builtin"\nagent = "planner"\n'
            '[[configuration]]\nname = "outside"\nkind = "external"\nturn_seconds = 60\n')


def agent(url: str, char: str, token: str) -> subprocess.Popen:
    return subprocess.Popen([*ASIWORLD, "agent", "--server", url, "--character", char,
                             f"--token={token}", "--builtin", "forager", "--think", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> dict:
    """The study on `serve --study`: what the admin was answered mid-study, the agent's exit,
    and the folder."""
    folder = tmp_path_factory.mktemp("served")
    path, out, port = folder / "s.toml", folder / "out", free_port()
    path.write_text(study())
    server = start_server(port, "--ephemeral", "--study", str(path), "--out", str(out),
                          "--figures", "none", "--speed", "200", "--admin-token", ADMIN,
                          "--spectator-token", SPECTATOR)
    seen: list[str] = []
    player = None
    said: dict = {}
    try:
        seat = read_until(server.stdout, r"external seat outside: character (\d+) token (\S+)",
                          seen)
        url = f"http://127.0.0.1:{port}"
        player = agent(url, seat.group(1), seat.group(2))
        admin = {"Authorization": f"Bearer {ADMIN}"}
        deadline, state = time.monotonic() + 120, {}
        while time.monotonic() < deadline and not state.get("finished"):
            state = get(f"{url}/api/evaluation?spectator_token={SPECTATOR}")[1]["meta"]["study"]
            if state["tick"] > 0 and "pause" not in said:  # stepped turn by turn by now
                before = http("GET", port, "/healthz")[1]["tick"]
                said["health"] = http("GET", port, "/healthz")[1]
                for control in ("pause", "resume", "step"):
                    said[control] = http("POST", port, f"/admin/{control}", {}, admin)
                said["ticked"] = (before, state)
            time.sleep(0.1)
        assert state["finished"] and state["problem"] is None, state
        said["agent"] = (*player.communicate(timeout=60), player.returncode)
    finally:
        if player is not None and player.poll() is None:
            player.kill()
            player.wait()
        stop_server(server)
    return {"out": out, "said": said, "path": path}


def test_nobody_ticks_the_turn_stepped_world_by_hand(served):
    said = served["said"]
    for control in ("pause", "resume", "step"):
        status, body = said[control]
        assert status == 409 and body["error"]["code"] == "turn_stepped", (control, body)
        assert "turn by turn" in body["error"]["message"]
    health = said["health"]
    assert health["paused"] is False  # a spectator's page must not say the world stopped


def test_the_outside_agent_is_told_the_study_ended_and_exits_0(served):
    out, err, returncode = served["said"]["agent"]
    assert returncode == 0, err
    assert out.splitlines()[-1] == "the study ended at tick 60"


@pytest.mark.timeout(300)
def test_the_server_plays_the_study_as_study_run_does(served, tmp_path):
    """The same file and agent on `study run`: the same state hash, both seats scored alike."""
    results = json.loads((served["out"] / "results.json").read_text())
    out = tmp_path / "run"
    lines: list[str] = []
    run = subprocess.Popen([*ASIWORLD, "study", "run", str(served["path"]), "--out", str(out),
                            "--figures", "none"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    player = None
    try:
        seat = read_until(run.stderr, r"external seat outside: character (\d+) token (\S+)",
                          lines)
        url = re.search(r"agent API for the external seats: (\S+)", "".join(lines)).group(1)
        player = agent(url, seat.group(1), seat.group(2))
        _, err = run.communicate(timeout=240)
        assert run.returncode == 0, err
        player.communicate(timeout=60)
    finally:
        for proc in (run, player):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
    again = json.loads((out / "results.json").read_text())
    assert results["state_hash"] == again["state_hash"]
    rows = {c["name"]: c for c in results["configurations"]}
    assert sum(rows["outside"]["actions"].values()) > 0 and results["ticks"] == 60
    assert main(["replay", "verify", str(served["out"] / "replay.asirep")]) == 0
