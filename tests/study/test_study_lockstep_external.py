"""External seats on the lockstep clock: an outside agent (here a deterministic SDK script) is
offered a turn at its decision ticks, the world waits for its one decision, which acts the
clock's think time later; the same study with the same agent gives the same state hash.

Bad inputs tried: a turn decided twice, an action for another seat's character, a token of
another study, a turn left undecided past its deadline (an incident, the character idles on), a
seat that never connects (an incident; the study goes on without it)."""

from __future__ import annotations

import json
import queue
import re
import threading
import time

import pytest
from asiworld.agents.clients.sdk import ApiError, Client, StudyEnded
from asiworld.evaluation.figure_options import FigureOptions
from asiworld.server.errors import ApiError as Refused
from asiworld.study.run import run_study
from asiworld.study.spec import parse_study
from asiworld.study.turns import ExternalTurns

THINK = 3
SKIPPED = 9  # the turn the script leaves undecided
PASSED = 21  # the turn the script passes
MOVES = ["n", "e", "s", "w"]


def study(entry_timeout: float = 60, turn_seconds: float = 1.5) -> str:
    return ('[world]\nseed = 3\nminutes = 1\nsize = 64\n'
            f'[clock]\nkind = "lockstep"\nthink_ticks = {THINK}\n'
            f'[serve]\nentry_timeout = {entry_timeout}\n'
            '[[configuration]]\nname = "planner"\nkind = "builtin"\nagent = "planner"\n'
            '[[configuration]]\nname = "outside"\nkind = "external"\n'
            f'turn_seconds = {turn_seconds}\n')


NO_FIGURES = FigureOptions(formats=())


def start(text: str, out) -> tuple[threading.Thread, queue.Queue, dict]:
    """The study on a thread of its own; its printed lines arrive on the queue."""
    lines: queue.Queue = queue.Queue()
    done: dict = {}

    def run() -> None:
        try:
            (done["results"],) = run_study(parse_study(text), text, out, say=lines.put,
                                           figures=NO_FIGURES)  # none checked here
        except BaseException as exc:  # shown by the test
            done["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, lines, done


def seat_of(lines: queue.Queue) -> tuple[str, int, str]:
    url = None
    while True:
        line = lines.get(timeout=60)
        found = re.search(r"agent API for the external seats: (\S+)", line)
        url = found.group(1) if found else url
        found = re.search(r"external seat outside: character (\d+) token (\S+)", line)
        if found:
            return url, int(found.group(1)), found.group(2)


def play(client: Client) -> dict:
    """The outside agent: in each turn one move, round the compass; it lets the turn at tick
    SKIPPED go by undecided, passes the turn at PASSED, and tries the bad inputs once."""
    seen: dict = {"turns": [], "refused": {}}
    after = -1
    while True:
        try:
            turn = client.next_turn(timeout=30, after=after)
        except StudyEnded as ended:
            seen["ended"] = ended.tick
            return seen
        assert turn is not None
        after = turn["tick"]
        seen["turns"].append(after)
        if after == SKIPPED:  # thinks too long: the turn closes by its deadline
            while (client.observe()["turn"] or {}).get("tick") == SKIPPED:
                time.sleep(0.05)
            continue
        try:
            obs = client.observe()
        except StudyEnded as ended:
            seen["ended"] = ended.tick
            return seen
        assert obs["turn"]["tick"] == after and obs["tick"] == after
        if after == PASSED:
            continue  # asking for a later turn passes this one
        action = {"type": "move", "dir": MOVES[(after // THINK) % 4]}
        if after == 12:
            seen["refused"] = bad_inputs(client, action)
            continue
        try:
            client.act(action)
        except StudyEnded as ended:
            seen["ended"] = ended.tick
            return seen


def bad_inputs(client: Client, action: dict) -> dict:
    refused = {}
    other = Client(client.base_url, token=client.token, character=client.character - 1)
    try:
        other.act(action)  # the planner's character, seated just before
    except ApiError as err:
        refused["other_character"] = (err.status, err.code)
    refused["first"] = client.act(action)["ok"]
    return refused


def test_a_turn_is_decided_once(tmp_path):
    """Two decisions in one turn (the first one's answer comes at its due tick, so the second
    can only be sent meanwhile): the second is refused, the first acts at the due tick."""
    turns = ExternalTurns(charge=THINK)
    turns.add("outside", 7, turn_seconds=30, tick=0)
    steps = threading.Thread(target=turns.before_tick,
                             args=(0, lambda fn: fn(), lambda char: True, None))
    steps.start()
    assert turns.wait_for_turn(7, timeout=10) == turns.offer(7) and turns.offer(7)["tick"] == 0
    answers: list = []
    first = threading.Thread(target=lambda: answers.append(turns.decide(7, lambda: "moved")))
    first.start()
    steps.join(10)  # the world goes on once the turn is decided
    assert not steps.is_alive() and turns.offer(7) is None
    with pytest.raises(Refused) as twice:
        turns.decide(7, lambda: "moved again")
    assert (twice.value.status, twice.value.code) == (409, "not_your_turn")
    assert "tick 0" in twice.value.message and "decided already" in twice.value.message
    for tick in range(1, THINK):
        turns.before_tick(tick, lambda fn: fn(), lambda char: True, None)
    assert answers == []  # the decision acts the think time after its turn
    due = threading.Thread(target=turns.before_tick,
                           args=(THINK, lambda fn: fn(), lambda char: True, None))
    due.start()
    first.join(10)
    assert answers == ["moved"] and turns.wait_for_turn(7, 10, after=0)["tick"] == THINK
    turns.end(THINK)  # the study's end closes the open turn: the world's thread goes on
    due.join(10)
    assert not due.is_alive()


def played(tmp_path, name: str, stranger: str | None = None) -> tuple[dict, dict, str, dict]:
    thread, lines, done = start(study(), tmp_path / name)
    url, cid, token = seat_of(lines)
    refused = {}
    if stranger is not None:
        try:
            Client(url, token=stranger, character=cid).observe()
        except ApiError as err:
            refused["stranger"] = (err.status, err.code)
    seen = play(Client(url, token=token, character=cid))
    thread.join(120)
    assert "error" not in done, done.get("error")
    return done["results"], seen, token, refused


@pytest.fixture(scope="module")
def twice(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lockstep-external")
    first = played(tmp, "first")
    second = played(tmp, "second", stranger=first[2])
    return tmp, first, second


def test_the_same_study_and_agent_give_the_same_state_hash(twice):
    _, (one, *_), (two, *_) = twice
    assert one["state_hash"] == two["state_hash"] and one["ticks"] == two["ticks"] == 60, \
        (twice[1][1], twice[2][1])


def test_the_seat_is_offered_a_turn_every_think_charge_and_told_the_end(twice):
    _, (_, seen, _, _), _ = twice
    assert seen["turns"] == list(range(0, 60, THINK))
    assert seen["ended"] == 60


def test_the_decision_acts_the_think_time_after_its_turn(twice):
    tmp, (results, _, _, _), _ = twice
    events = [json.loads(line) for line in (tmp / "first" / "events.jsonl").read_text()
              .splitlines()]
    outside = next(e["char"] for e in events if e["kind"] == "joined" and e["name"] == "outside")
    mine = [e["tick"] for e in events if e["kind"] == "action" and e.get("char") == outside]
    assert mine and min(mine) >= THINK  # the decision of the turn at tick 0 acts at tick 3


def test_an_action_for_another_seats_character_is_refused(twice):
    _, (_, seen, _, _), _ = twice
    refused = seen["refused"]
    assert refused["other_character"] == (403, "not_your_character")
    assert refused["first"] is True


def test_a_token_of_another_study_is_unknown(twice):
    _, _, (_, _, _, refused) = twice
    assert refused["stranger"] == (401, "unknown_token")


def test_a_missed_turn_is_an_incident_and_the_character_idles_on(twice):
    _, (results, *_), _ = twice
    rows = {c["name"]: c for c in results["configurations"]}
    (missed,) = rows["outside"]["incidents"]
    assert missed["cause"] == "turn_missed" and missed["start"] == SKIPPED


def test_a_seat_that_never_connects_is_an_incident_and_the_study_goes_on(tmp_path):
    thread, lines, done = start(study(entry_timeout=0.3), tmp_path / "absent")
    thread.join(120)
    assert "error" not in done, done.get("error")
    results = done["results"]
    assert results["ticks"] == 60
    rows = {c["name"]: c for c in results["configurations"]}
    (absent,) = rows["outside"]["incidents"]
    assert absent["cause"] == "absent" and absent["start"] == 0


def test_asiworld_agent_plays_in_turns_and_exits_0_at_the_end(tmp_path):
    import subprocess
    import sys

    thread, lines, done = start(study(), tmp_path / "agent")
    url, cid, token = seat_of(lines)
    agent = subprocess.Popen(
        [sys.executable, "-m", "asiworld.cli", "agent", "--server", url, "--character",
         str(cid), f"--token={token}", "--builtin", "forager"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        said, _ = agent.communicate(timeout=120)
    finally:
        if agent.poll() is None:  # the process this test started
            agent.kill()
            agent.wait()
    thread.join(120)
    assert agent.returncode == 0 and said.splitlines()[-1] == "the study ended at tick 60"
    stats = json.loads(said.splitlines()[-2])
    assert stats["errors"] == 0 and stats["decisions"] == 60 // THINK  # one per turn
    rows = {c["name"]: c for c in done["results"]["configurations"]}
    assert rows["outside"]["incidents"] == []  # no turn missed
