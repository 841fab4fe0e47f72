"""A server killed with SIGKILL mid-run loses nothing it acknowledged.

One real `asiworld serve` process with two built-in agents, an agent on the REST API and a
browser player on Socket.IO; both send actions and keep every acknowledgement; the process is
killed without warning; the data directory must then hold a world that (1) contains every
acknowledged input at the tick it was acknowledged for, (2) equals an uninterrupted
re-simulation of its input log from the seed, and (3) resumes at the last saved tick when served
again, with the old tokens still working.
"""

from __future__ import annotations

import signal
import time

import pytest
import socketio
from asiworld.engine.resim import replay_inputs
from asiworld.server.persistence import WorldStore

from tests.hardening.serving import free_port, http, start_server

SEED = 11


def _send_actions(port: int, seconds: float) -> tuple[list, int, str, dict]:
    status, joined = http("POST", port, "/api/agents/join", {"name": "ada", "label": "tester"})
    assert status == 201, joined
    ada, token = joined["character"], joined["token"]
    auth = {"Authorization": f"Bearer {token}"}
    # Disconnected before the server is killed: a client left connected would try to reconnect
    # to the dead server for the rest of the test session.
    player = socketio.SimpleClient()
    player.connect(f"http://127.0.0.1:{port}", transports=["polling"])
    try:
        seat = player.call("join", {"name": "bob"})
        assert seat["ok"], seat
        acks = []  # (char, tick, action) of every accepted action
        end = time.monotonic() + seconds
        i = 0
        while time.monotonic() < end:
            action = {"type": "move", "dir": "nsew"[i % 4]}
            status, reply = http("POST", port, f"/api/agents/{ada}/act", {"action": action}, auth)
            if status == 200 and reply["ok"]:
                acks.append((ada, reply["tick"], action))
            move = {"type": "move", "dir": "ewns"[i % 4]}
            reply = player.call("act", {"token": seat["token"], "action": move})
            if reply["ok"]:
                acks.append((seat["char"], reply["tick"], move))
            i += 1
    finally:
        player.disconnect()
    return acks, ada, token, seat


@pytest.mark.timeout(90)
def test_a_killed_server_resumes_with_every_acknowledged_input(tmp_path):
    data = tmp_path / "world"
    port = free_port()
    first = start_server(
        port,
        *("--data-dir", str(data), "--seed", str(SEED), "--agents", "forager,random"),
        *("--speed", "20", "--snapshot-every", "25", "--admin-token", "admin-secret"),
    )
    try:
        acks, ada, token, seat = _send_actions(port, seconds=3.0)
    finally:
        first.send_signal(signal.SIGKILL)  # no goodbye: whatever was saved is all there is
        first.communicate(timeout=10)
    assert len(acks) >= 10, "the test needs acknowledged actions to check"

    store = WorldStore(data)
    assert store.newest_snapshot_tick() > 0, "a snapshot after the first should exist"
    world = store.load_world()
    resume_tick = store.last_tick()
    size = store.meta("size")
    store.close()
    assert world.tick == resume_tick > max(tick for _, tick, _ in acks)
    logged = {
        (tick, char, action["type"], action.get("dir")) for tick, char, action in world.input_log
    }
    missing = [a for a in acks if (a[1], a[0], a[2]["type"], a[2]["dir"]) not in logged]
    assert missing == [], f"acknowledged but lost: {missing[:5]}"
    resim = replay_inputs(SEED, world.input_log, world.tick, size=size)
    assert resim.state_hash() == world.state_hash()

    second = start_server(port, "--data-dir", str(data), "--admin-token", "admin-secret")
    try:
        header = [second.stdout.readline() for _ in range(3)]
        assert f"(tick {resume_tick})" in header[2], header
        status, obs = http(
            "GET", port, f"/api/agents/{ada}/observe", headers={"Authorization": f"Bearer {token}"}
        )
        assert status == 200 and obs["self"]["id"] == ada
        player = socketio.SimpleClient()
        player.connect(f"http://127.0.0.1:{port}", transports=["polling"])
        again = player.call("join", {"token": seat["token"]})
        assert again["ok"] and again["char"] == seat["char"]
        player.disconnect()
        # The built-in agents decide on the world clock: let it run 40 ticks past the resume
        # (the checks above can take less than one of their think times on an idle machine).
        deadline = time.monotonic() + 20
        while http("GET", port, "/healthz")[1]["tick"] < resume_tick + 40:
            assert time.monotonic() < deadline, "the resumed world does not tick"
            time.sleep(0.05)
    finally:
        second.send_signal(signal.SIGINT)
        second.communicate(timeout=20)
    assert second.returncode == 0

    store = WorldStore(data)
    resumed = store.load_world()
    builtin = {seat["char"] for seat in store.meta("builtin")}
    store.close()
    assert len(builtin) == 2
    later = {char for tick, char, _ in resumed.input_log if tick >= resume_tick}
    assert builtin & later, "the built-in agents act again after the restart"


def _events(port: int, char: int, auth: dict, after: int = 0) -> list[dict]:
    status, reply = http("GET", port, f"/api/agents/{char}/events?after={after}&limit=500",
                         headers=auth)
    assert status == 200, reply
    return reply["events"]


@pytest.mark.timeout(120)
def test_a_program_and_an_incident_acknowledged_before_a_kill_are_there_after_it(tmp_path):
    data = tmp_path / "world"
    port = free_port()
    # No snapshot after the first: what survives comes from the saved inputs alone.
    first = start_server(
        port, "--data-dir", str(data), "--seed", str(SEED), "--speed", "20",
        "--snapshot-every", "100000", "--admin-token", "admin-secret",
    )
    try:
        status, joined = http("POST", port, "/api/agents/join", {"name": "ada", "label": "t"})
        assert status == 201, joined
        ada, auth = joined["character"], {"Authorization": f"Bearer {joined['token']}"}
        source = "while True:\n    wait(5)\n"
        status, reply = http("POST", port, f"/api/agents/{ada}/programs",
                             {"name": "patient", "source": source}, auth)
        assert status == 201 and reply == {"ok": True, "id": 1}, reply
        deadline = time.monotonic() + 20
        while not any(e["kind"] == "program_started" for e in _events(port, ada, auth)):
            assert time.monotonic() < deadline, "the program never started"
            time.sleep(0.05)
        seen = _events(port, ada, auth)
        status, _ = http("POST", port, f"/api/agents/{ada}/incidents",
                         {"cause": "model_error", "detail": "just before the kill"}, auth)
        assert status == 201
    finally:
        first.send_signal(signal.SIGKILL)  # right after the acknowledgement
        first.communicate(timeout=10)

    second = start_server(port, "--data-dir", str(data), "--admin-token", "admin-secret")
    try:
        status, program = http("GET", port, f"/api/agents/{ada}/programs/1", headers=auth)
        assert status == 200, program
        assert program["name"] == "patient" and program["status"] == "interrupted", program
        assert "submit it again" in program["outcome"]["error"]["message"]
        last = seen[-1]["seq"]
        deadline = time.monotonic() + 20
        while not any(e["kind"] == "program_interrupted" for e in _events(port, ada, auth, last)):
            assert time.monotonic() < deadline, "no program_interrupted event after the restart"
            time.sleep(0.05)
        after = _events(port, ada, auth, last)
        assert all(e["seq"] > last for e in after)
        everything = _events(port, ada, auth)
        assert everything[: len(seen)] == seen  # the numbers an agent saw mean the same events
        numbers = [e["seq"] for e in everything]
        assert numbers == sorted(set(numbers))
        incidents = [e for e in everything if e["kind"] == "incident"]
        assert [e["detail"] for e in incidents] == ["just before the kill"]
        # ids are never given twice: ada's next program is 2; bob's own first is 1
        status, reply = http("POST", port, f"/api/agents/{ada}/programs",
                             {"name": "again", "source": source}, auth)
        assert status == 201 and reply["id"] == 2, reply
        status, joined = http("POST", port, "/api/agents/join", {"name": "bob", "label": "t"})
        bob, bob_auth = joined["character"], {"Authorization": f"Bearer {joined['token']}"}
        status, reply = http("POST", port, f"/api/agents/{bob}/programs",
                             {"name": "his", "source": source}, bob_auth)
        assert status == 201 and reply["id"] == 1, reply
        # bob asking for a program id of ada's is told what an unused id gets
        taken = http("GET", port, f"/api/agents/{bob}/programs/2", headers=bob_auth)
        unused = http("GET", port, f"/api/agents/{bob}/programs/3", headers=bob_auth)
        assert taken[0] == unused[0] == 404
        assert taken[1]["error"]["code"] == unused[1]["error"]["code"] == "unknown_program"
    finally:
        second.send_signal(signal.SIGINT)
        second.communicate(timeout=20)
    assert second.returncode == 0


@pytest.mark.timeout(90)
def test_the_same_command_brings_a_killed_server_back(tmp_path):
    """A process supervisor (systemd Restart=, a container's restart policy) runs the very same
    command after a crash: with the same --agents the saved world resumes; other agents are
    refused, naming both lists, and nothing changes."""
    from tests.hardening.serving import served_again

    port = free_port()
    args = ("--data-dir", str(tmp_path / "data"), "--agents", "forager,planner", "--speed", "50")
    first = start_server(port, *args)
    try:
        deadline = time.monotonic() + 30
        while http("GET", port, "/healthz")[1]["tick"] < 20 and time.monotonic() < deadline:
            time.sleep(0.05)
        before = http("GET", port, "/healthz")[1]["tick"]
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    health, err = served_again(port, *args)
    assert health["ok"] and health["tick"] >= before - 1
    assert "holds a saved world with these agents: resuming it" in err
    saved = (tmp_path / "data" / "world.sqlite3").read_bytes()
    import subprocess
    import sys

    other = subprocess.run([sys.executable, "-m", "asiworld.cli", "serve", "--port", str(port),
                            "--data-dir", str(tmp_path / "data"), "--agents", "rusher"],
                           capture_output=True, text=True, timeout=60)
    assert other.returncode == 2 and "Traceback" not in other.stderr
    assert other.stderr.startswith("error: world_exists: ")
    assert "forager, planner, not rusher" in other.stderr
    assert (tmp_path / "data" / "world.sqlite3").read_bytes() == saved  # refused: unchanged
