"""An external seat's think time from the tokens it reports, and turns over Socket.IO.

On a lockstep study whose clock charges by tokens, a seat's decision that reports
`tokens: {input, output}` acts `clock.charge(output)` ticks after its turn, as a model seat's
call would; one that reports none is charged the clock's least. A seat connected to the agent
API's Socket.IO namespace is pushed its observation when its turn opens (it says so: `turn`),
and can ask for the turn with a `next_turn` event whose acknowledgement is GET next_turn's answer.
A decision's answer carries the seat's next turn (one round trip a turn).

Bad inputs tried: tokens that are not counts (refused at the edge, nothing acts), a next_turn
wait longer than the agent API allows."""

from __future__ import annotations

import json
import threading

import pytest
import socketio
from asiworld.study.spec import parse_study
from asiworld.study.turns import ExternalTurns

from tests.study.test_study_lockstep_external import seat_of, start

THINK = 2
PER_TICK = 50
REPORTED = {"input": 900, "output": 120}  # charge: 2 + ceil(120 / 50) = 5 ticks
CHARGE = 5


def clock_text() -> str:
    return (f'[clock]\nkind = "lockstep"\nthink = "tokens"\nthink_ticks = {THINK}\n'
            f'tokens_per_tick = {PER_TICK}\n')


def study() -> str:
    return ('[world]\nseed = 5\nminutes = 1\nsize = 64\n' + clock_text() +
            '[[configuration]]\nname = "planner"\nkind = "builtin"\nagent = "planner"\n'
            '[[configuration]]\nname = "outside"\nkind = "external"\nturn_seconds = 30\n')


def test_the_clock_rule_charges_a_decision_by_its_reported_completion_tokens():
    clock = parse_study('[world]\nseed = 1\nminutes = 1\n' + clock_text() +
                        '[[configuration]]\nname = "b"\nkind = "builtin"\nagent = "forager"\n'
                        ).clock
    assert clock.charge(REPORTED["output"]) == CHARGE
    turns = ExternalTurns(clock.charge(0), clock.charge)
    turns.add("outside", 7, turn_seconds=30, tick=0)
    answers: list = []
    opened = threading.Thread(target=turns.before_tick,
                              args=(0, lambda fn: fn(), lambda char: True, None))
    opened.start()
    assert turns.wait_for_turn(7, timeout=10)["tick"] == 0
    decided = threading.Thread(
        target=lambda: answers.append(turns.decide(7, lambda: "moved", REPORTED)))
    decided.start()
    opened.join(10)
    for tick in range(1, CHARGE):  # not at the least charge: at the reported tokens' charge
        turns.before_tick(tick, lambda fn: fn(), lambda char: True, None)
    assert answers == []
    due = threading.Thread(target=turns.before_tick,
                           args=(CHARGE, lambda fn: fn(), lambda char: True, None))
    due.start()
    decided.join(10)
    assert answers == ["moved"] and turns.wait_for_turn(7, 10, after=0)["tick"] == CHARGE
    turns.end(CHARGE)
    due.join(10)


def play_over_socket(url: str, cid: int, token: str) -> dict:
    """In each turn: ask for it with `next_turn`, move, report the tokens; try the bad inputs
    once. What was pushed and answered is kept."""
    seen: dict = {"pushed": [], "turns": [], "answers": [], "refused": {}}
    client = socketio.Client(reconnection=False)
    client.on("observation", lambda obs: seen["pushed"].append(obs.get("turn")),
              namespace="/agent")
    client.connect(url, auth={"token": token}, namespaces=["/agent"],
                   transports=["polling"], wait_timeout=30)
    try:
        after = -1
        while True:
            reply = client.call("next_turn", {"timeout": 30, "after": after},
                                namespace="/agent", timeout=60)
            if "error" in reply:
                seen["ended"] = reply["error"]
                return seen
            after = reply["turn"]["tick"]
            seen["turns"].append(after)
            if not seen["refused"]:
                for name, payload in (
                        ("tokens", {"action": {"type": "wait"}, "tokens": {"output": -3}}),
                        ("wait", {"timeout": 500})):
                    event = "act" if name == "tokens" else "next_turn"
                    answer = client.call(event, payload, namespace="/agent", timeout=60)
                    seen["refused"][name] = answer["error"]["code"]
            answer = client.call("act", {"action": {"type": "move", "dir": "ne"[after % 2]},
                                         "tokens": REPORTED}, namespace="/agent", timeout=60)
            if answer.get("error", {}).get("code") == "study_ended":
                seen["ended"] = answer["error"]
                return seen
            seen["answers"].append(answer)
    finally:
        client.disconnect()


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    out = tmp_path_factory.mktemp("socket-turns")
    thread, lines, done = start(study(), out / "study")
    url, cid, token = seat_of(lines)
    seen = play_over_socket(url, cid, token)
    thread.join(120)
    assert "error" not in done, done.get("error")
    events = [json.loads(line) for line in (out / "study" / "events.jsonl").read_text()
              .splitlines()]
    return done["results"], seen, cid, events


def test_the_seat_asks_for_its_turn_over_socketio_every_charge_of_its_tokens(played):
    results, seen, cid, events = played
    assert seen["turns"] == list(range(0, 60, CHARGE))
    assert not [a for a in seen["answers"] if "error" in a]  # the world's answers, no errors
    # each decision's answer carries the seat's next turn, opened at the tick it acted
    assert [a["turn"]["tick"] for a in seen["answers"]] == seen["turns"][1:]
    assert seen["ended"]["code"] == "study_ended" and results["ticks"] == 60
    acted = sorted({e["tick"] for e in events if e["kind"] == "action" and e.get("char") == cid})
    assert acted[:3] == [CHARGE, 2 * CHARGE, 3 * CHARGE]  # each turn's move, its charge later
    rows = {c["name"]: c for c in results["configurations"]}
    assert rows["outside"]["incidents"] == []


def test_the_observation_pushed_when_a_turn_opens_says_it_is_your_turn(played):
    _, seen, _, _ = played
    pushed = [turn["tick"] for turn in seen["pushed"]]
    assert set(seen["turns"][:-1]) <= set(pushed) <= set(seen["turns"])


def test_bad_turn_inputs_over_socketio_are_refused_with_a_code(played):
    _, seen, _, _ = played
    assert seen["refused"] == {"tokens": "bad_argument", "wait": "bad_argument"}


def test_the_tokens_a_seat_reports_are_its_cost_rows_and_kept_with_its_decisions(played):
    results, seen, _, _ = played
    decided = len(seen["answers"])  # each reported REPORTED (the refused one acted nothing)
    (row,) = [r for r in results["costs"] if r["name"] == "outside"]
    assert (row["prompt_tokens"], row["completion_tokens"]) == \
        (REPORTED["input"] * decided, REPORTED["output"] * decided)


def test_an_mcp_seat_reports_its_tokens_with_the_report_tokens_tool(tmp_path):
    """The MCP tools are the harness's (their schemas are part of a model seat's prompt, so
    they take no `tokens`): `report_tokens` says them for the next decision instead. Bad input
    tried: a negative count (a tool error; nothing is reported, nothing acts)."""
    from asiworld.agents.clients.mcp_server import Catalogue
    from asiworld.agents.clients.sdk import Client

    thread, lines, done = start(study(), tmp_path / "study")
    url, cid, token = seat_of(lines)
    tools = Catalogue(Client(url, token=token, character=cid))
    refused, failed = tools.call("report_tokens", {"input": 5, "output": -1})
    assert failed and refused["code"] == "bad_argument"
    turns, after, decided = [], -1, 0
    while True:
        answer, _ = tools.call("next_turn", {"timeout_seconds": 30, "after": after})
        if not answer["ok"]:
            assert answer["code"] == "study_ended"
            break
        if answer["turn"] is None:
            continue
        after = answer["turn"]["tick"]
        turns.append(after)
        assert tools.call("report_tokens", REPORTED)[0]["reported"] == REPORTED
        moved, _ = tools.call("move", {"dir": "ne"[after % 2]})
        if moved.get("code") == "study_ended":
            break
        decided += 1
    thread.join(120)
    assert "error" not in done, done.get("error")
    assert turns == list(range(0, 60, CHARGE))  # each decision charged its reported tokens
    (row,) = [r for r in done["results"]["costs"] if r["name"] == "outside"]
    assert row["completion_tokens"] == REPORTED["output"] * decided
