"""Every kind of seat in one reproducible world: a lockstep study holding a model seat (the
stand-in model), an SDK script, `asiworld agent`, an MCP client (the `mcp` SDK's stdio client
driving `asiworld mcp`, standing in for a coding agent) and a built-in, run twice, gives the
same state hash; every seat is scored and the replay verifies. The outside seats take their
turns (`next_turn`) and leave cleanly at the horizon (exit 0, with the sentence); the SDK seat
reports the tokens its decisions used, and the clock's `tokens` rule charges them as it charges
the model seat's calls, so the same reported tokens give the same ticks."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import pytest
from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer
from asiworld.cli import main
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.study.test_study_lockstep_external import start

ASIWORLD = str(Path(sys.executable).with_name("asiworld"))
THINK = 2
PER_TICK = 50
SDK_TOKENS = {"input": 500, "output": 100}  # 2 + ceil(100 / 50): every SDK turn is 4 ticks
SDK_CHARGE = 4
OUTSIDE = ("sdk", "agent", "mcp")
SEATS = ("model", *OUTSIDE, "builtin")

SDK_SCRIPT = """\
import sys

from asiworld.agents.sdk import ApiError, Client

url, char, token = sys.argv[1], int(sys.argv[2]), sys.argv[3]
client = Client(url, token=token, character=char)
after, turns = -1, []
while True:
    try:
        turn = client.next_turn(timeout=30, after=after)
        if turn is None:
            continue
        after = turn["tick"]
        turns.append(after)
        client.observe()
        client.act({"type": "move", "dir": "nesw"[len(turns) % 4]},
                   tokens={"input": 500, "output": 100})
    except ApiError as err:
        if err.code != "study_ended":
            raise
        print(" ".join(map(str, turns)))
        print(err.message)
        sys.exit(0)
"""


def study(model_url: str) -> str:
    return ('[world]\nseed = 11\nminutes = 1\nsize = 64\n'
            f'[clock]\nkind = "lockstep"\nthink = "tokens"\nthink_ticks = {THINK}\n'
            f'tokens_per_tick = {PER_TICK}\n'
            '[[configuration]]\nname = "model"\nkind = "openai"\n'
            f'model_url = "{model_url}"\nmodel = "fake-forager"\nbackoff_seconds = 0.0\n'
            + ''.join(f'[[configuration]]\nname = "{name}"\nkind = "external"\n'
                      'turn_seconds = 60\n' for name in OUTSIDE)
            + '[[configuration]]\nname = "builtin"\nkind = "builtin"\nagent = "forager"\n')


def seats_of(lines) -> tuple[str, dict[str, tuple[int, str]]]:
    import re

    url, seats = None, {}
    while len(seats) < len(OUTSIDE) or url is None:
        line = lines.get(timeout=60)
        found = re.search(r"agent API for the external seats: (\S+)", line)
        url = found.group(1) if found else url
        found = re.search(r"external seat (\w+): character (\d+) token (\S+)", line)
        if found:
            seats[found.group(1)] = (int(found.group(2)), found.group(3))
    return url, seats


async def mcp_seat(url: str, char: int, token: str, errlog) -> dict:
    """A coding agent's part, played by the MCP SDK's stdio client: in each turn one move. The
    wrapper shell says how `asiworld mcp` ended (its stderr is the errlog)."""
    command = StdioServerParameters(command="/bin/sh", args=[
        "-c", '"$0" "$@"; echo "rc $?" >&2', ASIWORLD, "mcp", "--server", url,
        f"--token={token}", "--character", str(char)])
    seen: dict = {"turns": [], "moves": []}
    async with stdio_client(command, errlog=errlog) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        names = {tool.name for tool in (await session.list_tools()).tools}
        assert {"next_turn", "move", "observe"} <= names
        after = -1
        while True:
            asked = (await session.call_tool(
                "next_turn", {"timeout_seconds": 30, "after": after})).structured_content
            if not asked["ok"]:
                seen["ended"] = asked
                break
            if asked["turn"] is None:
                continue
            after = asked["turn"]["tick"]
            seen["turns"].append(after)
            moved = (await session.call_tool(
                "move", {"dir": "wsen"[len(seen["moves"]) % 4]})).structured_content
            if moved.get("code") == "study_ended":
                seen["ended"] = moved
                break
            seen["moves"].append(moved)
        # told the study ended, `asiworld mcp` leaves by itself: wait for the wrapper's line
        deadline = time.monotonic() + 120
        while "rc " not in Path(errlog.name).read_text() and time.monotonic() < deadline:
            await anyio.sleep(0.05)
    return seen


def run_apart(fn, *args):
    """anyio.run on a thread of its own: after an e2e module on the same pytest-xdist worker,
    Playwright's sync API leaves its event loop marked running on the worker's main thread, and
    a second loop there refuses to start ("Cannot run the event loop while another loop is
    running")."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, fn, *args).result()


def run_once(out: Path, model_url: str) -> dict:
    thread, lines, done = start(study(model_url), out / "study")
    url, seats = seats_of(lines)
    script = out / "sdk_seat.py"
    script.write_text(SDK_SCRIPT)
    procs = {
        "sdk": subprocess.Popen([sys.executable, str(script), url, str(seats["sdk"][0]),
                                 seats["sdk"][1]], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True),
        "agent": subprocess.Popen([ASIWORLD, "agent", "--server", url, "--character",
                                   str(seats["agent"][0]), f"--token={seats['agent'][1]}",
                                   "--builtin", "forager", "--think", "0"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
    }
    said = {}
    try:
        with open(out / "mcp.err", "w") as errlog:
            mcp = run_apart(mcp_seat, url, *seats["mcp"], errlog)
        for name, proc in procs.items():
            said[name] = (*proc.communicate(timeout=120), proc.returncode)
    finally:
        for proc in procs.values():
            if proc.poll() is None:  # the processes this test started
                proc.kill()
                proc.wait()
    thread.join(120)
    assert "error" not in done, done.get("error")
    events = [json.loads(line) for line in (out / "study" / "events.jsonl").read_text()
              .splitlines()]
    return {"results": done["results"], "out": out / "study", "said": said, "mcp": mcp,
            "mcp_err": (out / "mcp.err").read_text(), "seats": seats, "events": events}


@pytest.fixture(scope="module")
def twice(tmp_path_factory):
    with FakeModelServer(FakeModel()) as fake:
        runs = []
        for label in ("first", "second"):
            fake.model = FakeModel()  # a fresh count: the same answers in the same order
            runs.append(run_once(tmp_path_factory.mktemp(label), fake.url))
    return runs


def test_the_same_study_and_agents_give_the_same_state_hash(twice):
    one, two = (run["results"] for run in twice)
    assert one["ticks"] == two["ticks"] == 60
    assert one["state_hash"] == two["state_hash"]


def test_every_seat_is_scored_and_the_replay_verifies(twice):
    for run in twice:
        rows = {c["name"]: c for c in run["results"]["configurations"]}
        assert sorted(rows) == sorted(SEATS)
        for name in SEATS:
            assert isinstance(rows[name]["score"], (int, float)), rows[name]
        for name in OUTSIDE:
            assert rows[name]["incidents"] == [], (name, rows[name]["incidents"])
        costs = {r["name"]: r for r in run["results"]["costs"]}
        assert all(costs[name]["api_calls"] > 0 for name in OUTSIDE)
        assert main(["replay", "verify", str(run["out"] / "replay.asirep")]) == 0
        replayed = {e["char"] for e in run["events"] if e["kind"] == "action"}
        assert {char for char, _ in run["seats"].values()} <= replayed


def test_an_mcp_client_plays_its_turns_until_the_end_and_asiworld_mcp_exits_0(twice):
    for run in twice:
        mcp = run["mcp"]
        assert mcp["turns"] == list(range(0, 60, THINK))  # no tokens reported: the least
        assert not [m for m in mcp["moves"] if not m.get("ok") and m.get("code") != "blocked"]
        assert mcp["ended"]["code"] == "study_ended"
        assert run["mcp_err"].splitlines()[-2:] == ["the study ended at tick 60", "rc 0"]


def test_the_sdk_and_the_agent_leave_at_the_end_with_rc_0(twice):
    for run in twice:
        for name in ("sdk", "agent"):
            out, err, rc = run["said"][name]
            assert rc == 0, (name, err)
            assert out.splitlines()[-1] == "the study ended at tick 60", (name, out, err)


def test_the_same_reported_tokens_give_the_same_ticks(twice):
    turns = []
    acted = []
    for run in twice:
        out = run["said"]["sdk"][0]
        turns.append([int(t) for t in out.splitlines()[0].split()])
        char = run["seats"]["sdk"][0]
        acted.append([e["tick"] for e in run["events"]
                      if e["kind"] == "action" and e.get("char") == char])
    assert turns[0] == turns[1] == list(range(0, 60, SDK_CHARGE))  # charged by its tokens
    assert acted[0] == acted[1] and acted[0][0] >= SDK_CHARGE  # its think time after its turn
