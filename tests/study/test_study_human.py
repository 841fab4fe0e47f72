"""Human seats (issue 36): `kind = "human"` is an external seat a person plays from /play. The
study prints its join link with the seat's token; the seat's first call is what the study's entry
waits for; `GET /api/agents/seat` tells the page which character the token plays and the study's
clock and horizon; the seat's calls are its row of the cost table under the kind "human".

Bad input tried: an option a human seat does not take (human_seat_option, naming the line and
the keys it takes), a token the study never gave (unknown_token), the seat's token under
another character (wrong_seat), no token at all (missing_token)."""

from __future__ import annotations

import json
import queue
import re
import threading
import urllib.error
import urllib.request

import pytest
from asiworld.agents.clients.sdk import Client, StudyEnded
from asiworld.evaluation.figure_options import FigureOptions
from asiworld.study.run import run_study
from asiworld.study.spec import StudyError, parse_study

THINK = 6
STUDY = ('[world]\nseed = 3\nminutes = 1\nsize = 64\n'
         f'[clock]\nkind = "lockstep"\nthink_ticks = {THINK}\n'
         '[serve]\nentry_timeout = 60\n'
         '[[configuration]]\nname = "planner"\nkind = "builtin"\nagent = "planner"\n'
         '[[configuration]]\nname = "ada"\nkind = "human"\n')


def test_a_human_seat_waits_longer_for_its_turn_than_an_external_one():
    study = parse_study(STUDY + '[[configuration]]\nname = "bot"\nkind = "external"\n')
    _, ada, bot = study.configurations
    assert (ada.kind, ada.turn_seconds) == ("human", 300.0)
    assert (bot.kind, bot.turn_seconds) == ("external", 30.0)
    assert parse_study(STUDY + 'turn_seconds = 1200\n').configurations[1].turn_seconds == 1200


def test_an_option_a_human_seat_does_not_take_is_refused_with_the_keys_it_takes():
    with pytest.raises(StudyError) as refused:
        parse_study(STUDY + 'agent = "forager"\n', "s.toml")
    assert refused.value.code == "human_seat_option"
    assert "s.toml line 17" in refused.value.message
    assert "takes no `configuration[2].agent`" in refused.value.message
    assert "keys: kind, name, label, turn_seconds" in refused.value.message


def test_an_unknown_kind_lists_human_among_the_kinds():
    with pytest.raises(StudyError) as refused:
        parse_study(STUDY.replace('kind = "human"', 'kind = "person"'))
    assert refused.value.code == "unknown_kind" and "external, human" in refused.value.message


def start(out) -> tuple[threading.Thread, queue.Queue, dict]:
    lines: queue.Queue = queue.Queue()
    done: dict = {}

    def run() -> None:
        try:
            (done["results"],) = run_study(parse_study(STUDY), STUDY, out, say=lines.put,
                                           figures=FigureOptions(formats=()))
        except BaseException as exc:  # shown by the test
            done["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, lines, done


def printed_link(lines: queue.Queue) -> tuple[list[str], str]:
    seen = []
    while True:
        seen.append(lines.get(timeout=60))
        found = re.search(r"open (\S+) in a browser to play it", seen[-1])
        if found:
            return seen, found.group(1)


def get(url: str, token: str | None = None) -> tuple[int, dict | str]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as r:
            body = r.read().decode()
            return r.status, json.loads(body) if body.startswith("{") else body
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_the_study_prints_the_seats_join_link_and_counts_its_calls(tmp_path):
    thread, lines, done = start(tmp_path / "out")
    seen, link = printed_link(lines)
    found = re.fullmatch(r"(http://127\.0\.0\.1:\d+)/play\?character=(\d+)&token=(\S+)", link)
    assert found, link
    url, char, token = found.group(1), int(found.group(2)), found.group(3)
    assert f"human seat ada: character {char} token {token}" in seen
    assert not [line for line in seen if "asiworld agent" in line]  # a person, not a program

    status, page = get(f"{url}/play")
    assert status == 200 and 'id="seat" data-study="1"' in page  # the page asks for a token
    assert get(f"{url}/api/agents/seat")[1]["code"] == "missing_token"
    assert get(f"{url}/api/agents/seat", "a-token-nobody-gave")[1]["code"] == "unknown_token"
    status, wrong = get(f"{url}/api/agents/seat?character={char - 1}", token)
    assert (status, wrong["code"]) == (403, "wrong_seat") and str(char) in wrong["message"]

    status, mine = get(f"{url}/api/agents/seat?character={char}", token)
    assert status == 200 and (mine["character"], mine["name"]) == (char, "ada")
    assert mine["study"] == {"title": "", "clock": "lockstep", "minutes": 1,
                             "ticks_per_minute": 60, "horizon_tick": 60}
    client = Client(url, token=token, character=char)
    turn = client.next_turn(timeout=30)
    assert turn["tick"] == 0 and 250 < turn["seconds_left"] <= 300  # a person's five minutes
    full = get(f"{url}/api/agents/{char}/observe?full_memory=1", token)[1]
    assert full["memory"]["tiles"] and "ticks" not in full["memory"]

    decisions = 0
    try:
        while True:
            client.next_turn(timeout=30)
            client.act({"type": "wait", "ticks": 5})
            decisions += 1
    except StudyEnded:
        pass
    thread.join(60)
    assert "error" not in done, done.get("error")
    (row,) = [r for r in done["results"]["costs"] if r["name"] == "ada"]
    # a decision's answer carries the next turn (no call to ask for it): a call a decision
    assert row["kind"] == "human" and row["calls"] >= decisions > 0
