"""External seats: a study serves the agent API of its own world on a loopback port, prints each
external seat's token, and holds its clock until every external seat has made its first call;
nobody else can join, watch the whole world or touch the clock; the seat is scored like any
other. Played here by `asiworld agent --builtin forager` in a process of its own, which is told
the study ended at its horizon and exits 0.

On the live server (`serve --study`) the seat plays on the server's own agent API, with the
same synchronised entry and closed world.

Bad inputs tried: a seat that never calls (the entry
timeout, on `study run` and on the server), a port already in use, a bad --port, a join and a
whole-world view without the tokens on the server."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from asiworld.cli import main
from asiworld.evaluation import longform

from tests.hardening.serving import free_port, start_server, stop_server

ASIWORLD = [sys.executable, "-m", "asiworld.cli"]


def study(clock: str = 'kind = "realtime"\nspeed = 40', minutes: int = 1, timeout: float = 180,
          port: int = 0) -> str:
    return (f'[world]\nseed = 3\nminutes = {minutes}\nsize = 64\n[clock]\n{clock}\n'
            f'[serve]\nport = {port}\nentry_timeout = {timeout}\n'
            '[[configuration]]\nname = "planner"\nkind = "builtin"\nagent = "planner"\n'
            '[[configuration]]\nname = "outside"\nkind = "external"\nlabel = "visitor"\n')


def get(url: str, body: dict | None = None, token: str | None = None) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def end(proc: subprocess.Popen) -> None:
    """A process this test started: killed if still running, its pipes read and closed."""
    if proc.poll() is None:
        proc.kill()
    proc.communicate()


def read_until(stream, pattern: str, seen: list[str], timeout: float = 60) -> re.Match:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        seen.append(line)
        found = re.search(pattern, line)
        if found:
            return found
    raise AssertionError(f"no line matching {pattern!r} in:\n{''.join(seen)}")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """The study in a process of its own; the outside agent connects only after the study has
    been waiting a while. Returns the study's output folder and what was seen meanwhile."""
    tmp = tmp_path_factory.mktemp("external")
    path, out = tmp / "s.toml", tmp / "out"
    path.write_text(study())
    seen: list[str] = []
    run = subprocess.Popen([*ASIWORLD, "study", "run", str(path), "--out", str(out), "--figures", "none"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    agent = None
    try:
        url = read_until(run.stderr, r"agent API for the external seats: (\S+)", seen).group(1)
        seat = read_until(run.stderr, r"external seat outside: character (\d+) token (\S+)", seen)
        spectate = read_until(run.stderr, r"spectate: (\S+)", seen).group(1)
        read_until(run.stderr, r"waiting for 1 external seat", seen)
        time.sleep(1.5)  # the world must not start while the seat is away
        before = {
            "health": get(f"{url}/healthz")[1],
            "join": get(f"{url}/api/agents/join", {"name": "intruder"}),
            "world": get(f"{url}/api/world"),
            "watched": get(spectate.replace("/live?", "/api/world?")),
            "pause": get(f"{url}/admin/pause", {}),
        }
        agent = subprocess.Popen(
            [*ASIWORLD, "agent", "--server", url, "--character", seat.group(1), "--token",
             seat.group(2), "--builtin", "forager", "--think", "0.05"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        read_until(run.stderr, r"every external seat has called", seen)
        # one call of the seat's answered with an error: a failure of its row of the costs
        before["malformed"] = get(f"{url}/api/agents/{seat.group(1)}/programs",
                                  {"name": "broken", "source": "def ("}, token=seat.group(2))
        _, err = run.communicate(timeout=120)
        seen.append(err)
        # told the study ended, the agent stops by itself
        said, _ = agent.communicate(timeout=30)
        before["agent"] = (agent.returncode, said)
    finally:
        for proc in (run, agent):  # only the processes this test started
            if proc is not None:
                end(proc)
    assert run.returncode == 0, "".join(seen)
    return out, before, int(seat.group(1)), "".join(seen)


def test_the_world_waits_for_the_external_seat_before_its_first_tick(played):
    out, before, cid, _ = played
    assert before["health"]["tick"] == 0 and before["health"]["running"]
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    joins = [e for e in events if e["kind"] == "joined"]
    assert {e["name"] for e in joins} == {"planner", "outside"} and {e["tick"] for e in joins} == {0}
    # The seat acted from the first ticks on: the clock started when it came, not before.
    first = min(e["tick"] for e in events if e["kind"] == "action" and e["char"] == cid)
    assert first <= 5


def test_the_agent_is_told_the_study_ended_and_exits_cleanly_at_the_horizon(played):
    _, before, _, _ = played
    returncode, said = before["agent"]
    assert returncode == 0, said
    assert said.splitlines()[-1] == "the study ended at tick 60"


def test_nobody_else_joins_watches_or_touches_the_clock(played):
    _, before, _, _ = played
    assert before["join"][0] == 403 and before["join"][1]["error"]["code"] == "join_closed"
    assert before["world"][0] == 403 and before["world"][1]["error"]["code"] == "not_spectator"
    status, summary = before["watched"]
    assert status == 200 and {c["name"] for c in summary["characters"]} == {"planner", "outside"}
    assert before["pause"][0] in (401, 403)


def test_the_external_seat_is_scored_like_any_other(played):
    out, _, _, _ = played
    results = json.loads((out / "results.json").read_text())
    rows = {c["name"]: c for c in results["configurations"]}
    assert set(rows) == {"planner", "outside"} and rows["outside"]["label"] == "visitor"
    assert sum(rows["outside"]["actions"].values()) > 0
    costs = {r["name"]: r for r in results["costs"]}
    assert costs["outside"]["kind"] == "external" and costs["outside"]["api_calls"] > 0
    assert results["ticks"] == 60
    assert main(["replay", "verify", str(out / "replay.asirep")]) == 0


def test_the_report_shows_the_external_seats_calls_and_failures(played):
    out, before, _, _ = played
    assert before["malformed"][0] == 422
    results = json.loads((out / "results.json").read_text())
    row = next(r for r in results["costs"] if r["name"] == "outside")
    assert row["calls"] == row["api_calls"] > 0 and row["failures"] >= 1
    report = (out / "report.md").read_text()
    assert f"| outside | external | {row['calls']} | — | — | — | — | — | {row['failures']} | — |" \
        in report
    assert "| planner | builtin | — |" in report
    values = {(r["configuration"], r["measure"]): r["value"] for r in longform.rows([results])}
    assert values["outside", "cost.calls"] == row["calls"]
    assert values["outside", "cost.failures"] == row["failures"]


def test_a_seat_that_never_calls_stops_the_study_with_a_clear_error(tmp_path, capsys):
    path = tmp_path / "s.toml"
    path.write_text(study(timeout=0.5))
    assert main(["study", "run", str(path), "--out", str(tmp_path / "out"), "--figures", "none"]) == 2
    err = capsys.readouterr().err
    assert "error: external_absent: external seat(s) outside made no call within 0.5 s" in err
    assert "Traceback" not in err


def test_a_port_in_use_or_a_bad_port_starts_nothing(tmp_path, capsys):
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    try:
        path, out = tmp_path / "s.toml", tmp_path / "out"
        path.write_text(study())
        port = holder.getsockname()[1]
        assert main(["study", "run", str(path), "--out", str(out), "--figures", "none", "--port", str(port)]) == 2
        assert capsys.readouterr().err.startswith("error: port_unavailable: ")
        assert not out.exists()
        assert main(["study", "run", str(path), "--out", str(out), "--figures", "none", "--port", "70000"]) == 2
        assert "error: bad_port: " in capsys.readouterr().err
        path.write_text(study(port=port))
        assert main(["study", "run", str(path), "--out", str(out), "--figures", "none"]) == 2
        assert "port_unavailable" in capsys.readouterr().err and not out.exists()
    finally:
        holder.close()


@pytest.mark.timeout(240)
def test_the_live_server_seats_an_external_agent_and_waits_for_it(tmp_path):
    """`serve --study` with an external seat: the seat's token is printed, the seat plays on
    the server's own agent API, the clock starts only once it has called, nobody else joins
    or watches the whole world without the printed spectator token, and at the horizon the
    folder has the seat's row like `study run`'s."""
    path, out, port = tmp_path / "s.toml", tmp_path / "out", free_port()
    path.write_text(study())
    server = start_server(port, "--ephemeral", "--study", str(path), "--out", str(out),
                          "--figures", "none")
    agent = None
    seen: list[str] = []
    try:
        seat = read_until(server.stdout, r"external seat outside: character (\d+) token (\S+)", seen)
        spectate = read_until(server.stdout, r"spectate: \S+\?spectator_token=(\S+)", seen).group(1)
        url = f"http://127.0.0.1:{port}"
        time.sleep(1.0)  # the world must not start while the seat is away
        assert get(f"{url}/healthz")[1]["tick"] == 0
        status, body = get(f"{url}/api/agents/join", {"name": "intruder"})
        assert status == 403 and body["error"]["code"] == "join_closed"
        assert get(f"{url}/api/world")[0] == 403
        status, body = get(f"{url}/api/evaluation?spectator_token={spectate}")
        assert status == 200 and body["meta"]["study"]["waiting_for"] == ["outside"]
        agent = subprocess.Popen(
            [*ASIWORLD, "agent", "--server", url, "--character", seat.group(1), "--token",
             seat.group(2), "--builtin", "forager", "--think", "0.05"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline, state = time.monotonic() + 120, {}
        while time.monotonic() < deadline and not state.get("finished"):
            time.sleep(0.2)
            state = get(f"{url}/api/evaluation?spectator_token={spectate}")[1]["meta"]["study"]
        assert state["finished"] and state["problem"] is None and state["waiting_for"] == [], state
    finally:
        if agent is not None:
            end(agent)
        stop_server(server)
    results = json.loads((out / "results.json").read_text())
    costs = {r["name"]: r for r in results["costs"]}
    assert costs["outside"]["kind"] == "external" and costs["outside"]["api_calls"] > 0
    rows = {c["name"]: c for c in results["configurations"]}
    assert sum(rows["outside"]["actions"].values()) > 0 and results["ticks"] == 60


def test_on_the_live_server_a_seat_that_never_calls_is_said_and_the_world_never_starts(tmp_path):
    path, out, port = tmp_path / "s.toml", tmp_path / "out", free_port()
    path.write_text(study(timeout=0.5))
    server = start_server(port, "--ephemeral", "--study", str(path), "--out", str(out),
                          "--figures", "none", "--spectator-token", "watcher-token-1234")
    try:
        url = f"http://127.0.0.1:{port}"
        deadline, state = time.monotonic() + 30, {}
        while time.monotonic() < deadline and not state.get("problem"):
            time.sleep(0.2)
            state = get(f"{url}/api/evaluation?spectator_token=watcher-token-1234")[1]["meta"]["study"]
        assert state["problem"].startswith("external seat(s) outside made no call within 0.5 s")
        assert get(f"{url}/healthz")[1]["tick"] == 0
    finally:
        _, err = stop_server(server)
    assert "external_absent" in err and "Traceback" not in err


def test_a_killed_study_with_an_external_seat_resumes_with_a_new_token_and_counts_every_call(
        tmp_path):
    """SIGKILL mid-study (the seat's agent dies with its token); run again, the study prints a
    new token, waits for the seat again, and its cost row counts the calls of both runs (those
    of the minute before the kill aside)."""
    import os
    import signal

    from asiworld.server.persistence import WorldStore

    from tests.study.helpers import saved_tick

    path, out = tmp_path / "s.toml", tmp_path / "out"
    path.write_text(study(minutes=3))

    def play() -> tuple[subprocess.Popen, subprocess.Popen, list[str], str]:
        seen: list[str] = []
        run = subprocess.Popen([*ASIWORLD, "study", "run", str(path), "--out", str(out), "--figures", "none"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        url = read_until(run.stderr, r"agent API for the external seats: (\S+)", seen).group(1)
        seat = read_until(run.stderr, r"external seat outside: character (\d+) token (\S+)",
                          seen)
        agent = subprocess.Popen(
            [*ASIWORLD, "agent", "--server", url, "--character", seat.group(1),
             f"--token={seat.group(2)}", "--builtin", "forager", "--think", "0.05"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return run, agent, seen, seat.group(2)

    run, agent, _, first_token = play()
    try:
        deadline = time.monotonic() + 120
        while saved_tick(out / "world.sqlite3") < 100:  # past the first minute's count
            assert run.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        os.kill(run.pid, signal.SIGKILL)
    finally:
        for proc in (run, agent):
            end(proc)
    store = WorldStore(out)
    counted = store.meta("external_calls")["outside"]
    store.close()
    assert counted > 0

    run, agent, seen, token = play()
    try:
        _, err = run.communicate(timeout=120)
        seen.append(err)
    finally:
        for proc in (run, agent):
            end(proc)
    said = "".join(seen)
    assert run.returncode == 0, said
    assert "resuming the interrupted realtime study" in said and token != first_token
    results = json.loads((out / "results.json").read_text())
    assert results["meta"]["resumed"] and results["ticks"] == 180
    row = next(r for r in results["costs"] if r["name"] == "outside")
    assert row["api_calls"] > counted  # the calls before the kill, and the resumed run's
