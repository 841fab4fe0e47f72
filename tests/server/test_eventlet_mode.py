"""`asiworld serve --async-mode eventlet` works end to end: a real server process on loopback,
spoken to over real sockets like the browser and outside agents do.

Checked: the pages answer; a spectator gets a keyframe then one delta per tick over polling and
over WebSocket; a player joins and acts; an agent joins, observes and acts on the REST API; a
hosted program runs to its end; a program host that dies is restarted while the world keeps
ticking; the clock keeps to its speed without running ahead; Ctrl-C stops a busy world cleanly
(exit 0, final snapshot saved, no traceback).

eventlet is in the test extra, so these run wherever `make test` does; the tests never import it
themselves (the default-mode tests check that a plain start never imports it).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from asiworld.programs.manager import ACTIVE
from asiworld.realtime import MAX_LAG_SECONDS

from tests.hardening.serving import free_port, http, start_server

SPEED = 20
EVENTLET = ("--async-mode", "eventlet")


def _stop(proc: subprocess.Popen) -> tuple[str, str]:
    """Ctrl-C, then the process's output; killed if it does not stop."""
    proc.send_signal(signal.SIGINT)
    try:
        return proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"the server did not stop on Ctrl-C: {err[-2000:]}")


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[int, subprocess.Popen]]:
    """The module's server: its port and its process."""
    port = free_port()
    proc = start_server(
        port, *EVENTLET, "--ephemeral", "--agents", "forager,planner", "--speed", str(SPEED)
    )
    yield port, proc
    _stop(proc)


@pytest.fixture(scope="module")
def server(served) -> int:
    return served[0]


def _agent(port: int, name: str) -> tuple[int, dict]:
    status, joined = http("POST", port, "/api/agents/join", {"name": name, "label": "tester"})
    assert status == 201, joined
    return joined["character"], {"Authorization": f"Bearer {joined['token']}"}


def _until(check, seconds: float = 10.0, every: float = 0.1):
    """Poll `check()` until it returns something truthy; fails after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(every)
    pytest.fail(f"still waiting after {seconds} s for {check.__doc__ or check}")


def test_the_pages_answer(server):
    status, health = http("GET", server, "/healthz")
    assert status == 200 and health["ok"] and health["running"], health
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{server}/live", timeout=10) as page:
        assert page.status == 200
        assert b"<canvas" in page.read()


def connected(port: int, transport: str):
    """A Socket.IO client on the server over one transport, which lists messages in the order
    they arrive (tests/socket_order.py: a client's own threads listed a delta before the
    keyframe that came first, at load 8-11)."""
    from tests.socket_order import OrderedSimpleClient

    client = OrderedSimpleClient()
    client.connect(f"http://127.0.0.1:{port}", transports=[transport])
    return client


@pytest.mark.parametrize("transport", ["polling", "websocket"])
def test_a_spectator_gets_a_keyframe_then_one_delta_per_tick(server, transport):
    client = connected(server, transport)
    try:
        assert client.client.transport() == transport
        ack = client.call("spectate", {})
        assert ack["ok"], ack
        frames = []
        while len(frames) < 6:
            name, *args = client.receive(timeout=10)
            if name == "frame":
                frames.append(args[0])
    finally:
        client.disconnect()
    assert "keyframe" in frames[0] and frames[0]["tick"] == ack["tick"]
    ticks = [frame["tick"] for frame in frames]
    assert ticks == list(range(ticks[0], ticks[0] + len(ticks))), "no tick skipped or repeated"
    assert all("deltas" in frame and "keyframe" not in frame for frame in frames[1:])


def test_a_spectator_that_never_reads_does_not_delay_the_world_or_the_others(server):
    # Green threads share one OS thread: a send that blocks on a full socket must yield, not
    # hold the world's clock. (The in-process threading test, test_stuck_spectator.py, also
    # checks the drop to keyframes; here the server is another process.)
    from tests.server.test_stuck_spectator import stuck_spectator

    stuck = stuck_spectator(server, keyframes=300)  # megabytes: more than the sockets hold
    watcher = connected(server, "websocket")
    try:
        watcher.call("spectate", {})
        start = http("GET", server, "/api/world")[1]["tick"]
        began = time.monotonic()
        ticks = []
        while time.monotonic() - began < 3.0:
            name, *args = watcher.receive(timeout=10)
            if name == "frame":
                ticks.append(args[0]["tick"])
        advanced = http("GET", server, "/api/world")[1]["tick"] - start
    finally:
        stuck.close()
        watcher.disconnect()
    assert advanced >= SPEED * 3.0 * 0.5, f"{advanced} ticks in 3 s at speed {SPEED}"
    assert ticks[1:] == list(range(ticks[1], ticks[1] + len(ticks) - 1)), "no frame missed"
    assert len(ticks) >= SPEED * 3.0 * 0.5


@pytest.mark.parametrize("transport", ["polling", "websocket"])
def test_a_player_joins_and_acts(server, transport):
    client = connected(server, transport)
    try:
        seat = client.call("join", {"name": f"bob {transport}"})
        assert seat["ok"] and isinstance(seat["char"], int), seat
        wait = client.call("act", {"token": seat["token"], "action": {"type": "wait"}})
        bad = client.call("act", {"token": seat["token"], "action": "north"})
    finally:
        client.disconnect()
    assert wait["ok"] and wait["code"] == "accepted", wait
    assert not bad["ok"] and bad["code"] == "bad_action", "a malformed action is refused"


def test_an_agent_observes_and_acts_over_rest(server):
    cid, auth = _agent(server, "ada")
    status, obs = http("GET", server, f"/api/agents/{cid}/observe", headers=auth)
    assert status == 200 and obs["self"]["id"] == cid
    status, reply = http(
        "POST", server, f"/api/agents/{cid}/act", {"action": {"type": "wait"}}, auth
    )
    assert status == 200 and reply["ok"], reply
    status, refused = http("GET", server, f"/api/agents/{cid}/observe", headers={})
    assert status == 401, "no token, no observation"


def _submit(port: int, cid: int, auth: dict, name: str, source: str) -> int:
    status, reply = http(
        "POST", port, f"/api/agents/{cid}/programs", {"name": name, "source": source}, auth
    )
    assert status == 201, reply
    return reply["id"]


def _program(port: int, cid: int, auth: dict, pid: int) -> dict:
    status, body = http("GET", port, f"/api/agents/{cid}/programs/{pid}", headers=auth)
    assert status == 200, body
    return body


COUNTING = """
def main():
    ticks = []
    for i in range(3):
        wait(2)
        ticks.append(tick())
    log("done")
    return ticks
"""


def test_a_hosted_program_runs_to_its_end(server):
    cid, auth = _agent(server, "cy")
    pid = _submit(server, cid, auth, "counting", COUNTING)

    def finished() -> dict | None:
        """the program to finish"""
        body = _program(server, cid, auth, pid)
        return body if body["status"] not in ACTIVE else None

    body = _until(finished)
    assert body["status"] == "finished", body
    ticks = body["outcome"]["value"]
    assert len(ticks) == 3 and ticks == sorted(ticks) and ticks[0] > body["submitted"]
    assert body["logs"] == ["done"]


def _children(pid: int) -> list[int]:
    children: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        children += [int(c) for c in (task / "children").read_text().split()]
    return children


def _program_hosts(pid: int) -> list[int]:
    """The server's program hosts (Linux /proc): its children started as hosts, and the children
    of its zygote (forked hosts, asiworld.programs.zygote)."""
    hosts = []
    for child in _children(pid):
        command = Path(f"/proc/{child}/cmdline").read_bytes()
        if b"asiworld.programs.host" in command:
            hosts.append(child)
        elif b"asiworld.programs.zygote" in command:
            hosts += _children(child)
    return hosts


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_a_program_host_that_died_is_restarted_and_the_world_keeps_ticking():
    # Own server: this test kills its program host. Under eventlet's green os.write a dead
    # host's broken pipe was retried forever and the world clock froze.
    port = free_port()
    proc = start_server(port, *EVENTLET, "--ephemeral", "--speed", str(SPEED))
    try:
        cid, auth = _agent(port, "dee")
        idle = _submit(port, cid, auth, "idle", "def main():\n    while True:\n        wait(1)\n")
        hosts = _until(lambda: _program_hosts(proc.pid))
        for host in hosts:
            os.kill(host, signal.SIGKILL)

        def failed() -> dict | None:
            """the killed host's program to fail"""
            body = _program(port, cid, auth, idle)
            return body if body["status"] == "failed" else None

        _until(failed)
        before = http("GET", port, "/healthz")[1]["tick"]
        _until(lambda: http("GET", port, "/healthz")[1]["tick"] >= before + 5)
        again = _submit(port, cid, auth, "counting", COUNTING)
        _until(lambda: _program(port, cid, auth, again)["status"] == "finished")
        assert set(_program_hosts(proc.pid)).isdisjoint(hosts), "a new host runs it"
    finally:
        out, err = _stop(proc)
    assert proc.returncode == 0, err


def test_the_clock_keeps_its_speed_and_never_runs_ahead(served):
    """The clock keeps to its schedule through a stall: the server's process stopped for half a
    second (a loaded machine stops it so) owes ten ticks, which it catches up, and the world is
    never ahead of its schedule: over any stretch, at most the speed's ticks plus those it may
    owe (MAX_LAG_SECONDS of them; beyond that it forgets them). Right after a catch-up the
    rate of the last 64 ticks (`measured_tps`) is above the speed: that is not running ahead,
    and this test once failed a loaded CI run by reading it as if it were."""
    server, proc = served

    def tick() -> int:
        return http("GET", server, "/api/world")[1]["tick"]

    began = time.monotonic()  # before the first read: the stretch measured is at most this long
    start = tick()
    proc.send_signal(signal.SIGSTOP)
    time.sleep(0.5)  # the stall itself, not a wait for something
    proc.send_signal(signal.SIGCONT)
    _until(lambda: tick() >= start + 5 * SPEED)
    ticks = tick() - start
    seconds = time.monotonic() - began
    world = http("GET", server, "/api/world")[1]
    assert world["speed"] == SPEED and not world["paused"] and world["measured_tps"] > 0
    assert ticks <= SPEED * (seconds + MAX_LAG_SECONDS) + 1, (ticks, seconds)
    # Loose: a loaded machine may lag, but the stall's ticks are caught up, not lost.
    assert ticks >= SPEED / 2 * seconds, (ticks, seconds)


def test_ctrl_c_stops_a_busy_world_cleanly_and_saves_it(tmp_path):
    # At --speed 1000 the world is always behind its schedule, so Ctrl-C lands while it steps:
    # it must still stop the server (it used to end only the world's green thread) and the
    # server must keep answering meanwhile (the clock used to starve every other green thread).
    from asiworld.server.persistence import WorldStore

    port = free_port()
    data = tmp_path / "world"
    proc = start_server(
        port, *EVENTLET, "--data-dir", str(data), "--agents", "forager,planner", "--speed", "1000"
    )
    try:
        first = http("GET", port, "/healthz")[1]
        _until(lambda: http("GET", port, "/healthz")[1]["tick"] > first["tick"] + 20)
        assert http("GET", port, "/healthz")[1]["running"]
    finally:
        out, err = _stop(proc)
    assert proc.returncode == 0, err
    assert "Traceback" not in err, err
    assert "monkey_patching" not in err, "eventlet patched before Flask was imported"
    stopped = int(out.rsplit("stopped at tick", 1)[1])
    store = WorldStore(data)
    try:
        assert store.last_tick() == stopped
    finally:
        store.close()


@pytest.mark.parametrize(
    "argv, env",
    [
        (["serve", "--async-mode", "eventlet"], {}),
        (
            [
                *("serve", "--async-mode", "eventlet", "--ephemeral", "--fsync", "--seed", "3"),
                *("--speed", "2.5", "--agents", "forager,planner", "--admin-token", "a b"),
                *("--spectator-token", "s", "--replays", "one", "--replays", "two"),
                *("--host", "0.0.0.0", "--snapshot-every", "7", "--data-dir", "world", "--new"),
                *("--port", "9", "--message-queue", "redis://127.0.0.1:9/0", "--no-record"),
                *("--max-characters", "12", "--programs-memory", "300", "--join-token", "j"),
            ],
            {},
        ),
        # what the environment gave comes back as flags: the new interpreter gets the same world
        # even were its environment another
        (
            ["serve", "--async-mode", "eventlet"],
            {"ASIWORLD_SEED": "4", "ASIWORLD_AGENTS": "forager", "ASIWORLD_FSYNC": "1",
             "ASIWORLD_MAX_CONNECTIONS": "9", "ASIWORLD_RECORD_DIR": "rec"},
        ),
    ],
)
def test_the_restarted_interpreter_gets_the_same_serve_settings(argv, env, tmp_path, monkeypatch):
    # eventlet mode runs `serve` again in a fresh interpreter from serve_argv(): every setting
    # must come back the same, defaults and repeated ones included. The folders are checked at
    # parse time, so they exist (in a temporary folder).
    import argparse

    monkeypatch.chdir(tmp_path)
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()

    from asiworld.server import commands
    from asiworld.server.eventlet_mode import serve_argv
    from asiworld.server.settings import ServerSettings

    parser = argparse.ArgumentParser()
    commands.register(parser.add_subparsers())
    settings = ServerSettings.from_args(parser.parse_args(argv), env)
    again = ServerSettings.from_args(parser.parse_args(serve_argv(settings)), {})
    assert again == settings
