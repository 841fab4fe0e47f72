"""A model seat's prompt, transcript, cost and budget in a study, on small seeded real worlds
through the stand-in model on loopback:

- every request a seat sent is rebuilt byte for byte from the study folder (`asiworld study
  turn`), compared with what a recording endpoint received;
- a prompt template and extra instructions are what the model is sent, and the prompt's source
  and sha256 are in results.json and Table 2;
- prices give dollars in the cost table; a budget stops a seat at its cap with a
  `budget_exhausted` incident while its character stays and the study goes on to its horizon;
- `asiworld study estimate` bounds a study's calls, tokens and dollars before it starts.

Bad input tried, each refused before the study starts with nothing written: a missing template
file, an unknown placeholder, a negative price, a cap of 0, an infinite request_timeout, and a
model server that is down."""

from __future__ import annotations

import hashlib
import io
import json
import socket
import sys
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from asiworld.agents.clients.transcript import read_transcript
from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer
from asiworld.cli import main

from tests.agents.recording import RecordingProxy

TEMPLATE = "# Play well\n\nYou are {{instructions}}\n\n{{tasks}}\n\n{{tools}}\n"


def study_text(url: str, minutes: int = 3, seats: str = "", extra: str = "") -> str:
    return (f'title = "prompts"\n[world]\nseed = 5\nminutes = {minutes}\nsize = 64\n\n'
            '[clock]\nkind = "lockstep"\nthink = "fixed"\nthink_ticks = 3\n\n'
            f'{seats or default_seats(url, extra)}'
            '[[configuration]]\nname = "planner"\nkind = "builtin"\nagent = "planner"\n')


def default_seats(url: str, extra: str = "") -> str:
    return (
        '[[configuration]]\nname = "guided"\nkind = "openai"\n'
        f'model_url = "{url}"\nmodel = "fake-forager"\npause_ticks = 10\nhistory_turns = 2\n'
        'tool_choice = "auto"\ntext_actions = "parse"\n'
        'price = { input = 3.0, output = 15.0, cached_input = 0.3 }\n\n'
        '[[configuration]]\nname = "templated"\nkind = "openai"\n'
        f'model_url = "{url}"\nmodel = "fake-programmer"\npause_ticks = 15\n'
        'text_actions = "json"\n'
        'prompt = "prompts/mine.md"\ninstructions = "a careful forager."\n'
        f'{extra}\n'
    )


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """One study through a recording endpoint: its folder, results and the bodies received."""
    root = tmp_path_factory.mktemp("prompt")
    (root / "prompts").mkdir()
    (root / "prompts" / "mine.md").write_text(TEMPLATE)
    with FakeModelServer(FakeModel()) as fake, RecordingProxy(fake.url) as proxy:
        path = root / "study.toml"
        path.write_text(study_text(proxy.url))
        out = root / "out"
        assert run("study", "run", str(path), "--out", str(out), "--figures", "none")[0] == 0
        bodies = list(proxy.bodies)
    return out, json.loads((out / "results.json").read_text()), bodies


def test_every_request_is_rebuilt_byte_for_byte_from_the_study_folder(recorded):
    out, results, bodies = recorded
    rebuilt = []
    for name in ("guided", "templated"):
        calls = read_transcript(out / "transcripts" / f"{name}.jsonl")
        assert calls, name
        for call in calls:
            code, printed, _ = run_bytes("study", "turn", str(out), name, str(call["call"]))
            assert code == 0
            rebuilt.append(printed.rstrip(b"\n"))
    assert len(bodies) == len(rebuilt) > 10
    assert Counter(rebuilt) == Counter(bodies)


def run_bytes(*argv: str) -> tuple[int, bytes, str]:
    """`main` with stdout as bytes (study turn writes the request's bytes as they were)."""
    buffer = io.BytesIO()
    wrapper = io.TextIOWrapper(buffer, encoding="utf-8")
    err = io.StringIO()
    saved = sys.stdout
    sys.stdout = wrapper
    try:
        with redirect_stderr(err):
            code = main(list(argv))
        wrapper.flush()
    finally:
        sys.stdout = saved
    return code, buffer.getvalue(), err.getvalue()


def test_the_system_prompt_and_tools_are_kept_once_under_their_sha256(recorded):
    out, results, _ = recorded
    prompts = sorted((out / "transcripts" / "prompts").iterdir())
    tools = sorted((out / "transcripts" / "tools").iterdir())
    assert len(prompts) == 2 and len(tools) == 1  # two prompts, both seats offer every tool
    for path in prompts + tools:
        assert hashlib.sha256(path.read_bytes()).hexdigest() == path.stem
    by_name = {p["name"]: p for p in results["meta"]["prompts"]}
    assert {p.stem for p in prompts} == {by_name["guided"]["sha256"],
                                         by_name["templated"]["sha256"]}


def test_a_template_and_instructions_are_what_the_model_is_sent(recorded):
    out, results, bodies = recorded
    templated = next(json.loads(b) for b in bodies if b'"user":"seed5/templated"' in b)
    system = templated["messages"][0]["content"]
    assert system.startswith("# Play well\n\nYou are ## Further instructions\n\na careful")
    assert "travel outfit" in system.lower() and "Shadow King" in system
    assert "## Your tools" in system and "## Programs" not in system  # not in the template
    guided = next(json.loads(b) for b in bodies if b'"user":"seed5/guided"' in b)
    assert "## Programs" in guided["messages"][0]["content"]
    record = {p["name"]: p for p in results["meta"]["prompts"]}
    assert record["templated"]["source"] == "prompts/mine.md"
    assert record["guided"]["source"] == "default"
    assert record["templated"]["sha256"] == hashlib.sha256(system.encode()).hexdigest()


def test_table_2_names_each_seats_prompt_and_how_it_was_asked(recorded):
    out, results, _ = recorded
    report = (out / "report.md").read_text()
    row = next(line for line in report.splitlines() if line.startswith("| Model prompts |"))
    sha = {p["name"]: p["sha256"][:12] for p in results["meta"]["prompts"]}
    assert f"guided: default prompt (sha256 {sha['guided']}" in row
    assert f"templated: prompts/mine.md prompt (sha256 {sha['templated']}" in row
    assert "2 turns kept" in row and "tool_choice auto" in row and "text actions parse" in row


def test_prices_give_dollars_in_the_cost_table(recorded):
    out, results, _ = recorded
    costs = {row["name"]: row for row in results["costs"]}
    guided = costs["guided"]
    calls = read_transcript(out / "transcripts" / "guided.jsonl")
    expected = sum(((c["prompt_tokens"] - c["cached_tokens"]) * 3.0 + c["cached_tokens"] * 0.3
                    + c["completion_tokens"] * 15.0) / 1e6 for c in calls)
    assert guided["dollars"] == pytest.approx(expected, abs=1e-6) and guided["dollars"] > 0
    assert costs["templated"]["dollars"] is None  # no price, no dollars
    report = (out / "report.md").read_text()
    line = next(ln for ln in report.split("## Model costs", 1)[1].splitlines()
                if ln.startswith("| guided |"))
    assert f"| {guided['dollars']:.4f} |" in line


def test_a_budget_stops_the_seat_at_its_cap_and_the_study_goes_on(tmp_path):
    seats = (
        '[[configuration]]\nname = "thrifty"\nkind = "openai"\n'
        'model_url = "URL"\nmodel = "fake-programmer"\npause_ticks = 10\n'
        'budget = { calls = 3 }\n\n'
    )
    with FakeModelServer(FakeModel()) as fake:
        path = tmp_path / "study.toml"
        path.write_text(study_text(fake.url, minutes=4, seats=seats.replace("URL", fake.url)))
        assert run("study", "run", str(path), "--out", str(tmp_path / "out"), "--figures", "none")[0] == 0
        asked = fake.stats()["by_character"]["thrifty"]["requests"]
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    row = next(r for r in results["costs"] if r["name"] == "thrifty")
    assert row["calls"] == asked == 3
    assert row["budget_exhausted"] == "calls: 3 of 3"
    events = [json.loads(line) for line in
              (tmp_path / "out" / "events.jsonl").read_text().splitlines()]
    spent = [e for e in events if e["kind"] == "incident" and e["cause"] == "budget_exhausted"]
    assert len(spent) == 1 and spent[0]["start"] < 4 * 60
    char = spent[0]["char"]
    ended = [e for e in events if e.get("char") == char and e["kind"].startswith("program_")
             and e["kind"] != "program_started"]
    started = [e for e in events if e.get("char") == char and e["kind"] == "program_started"]
    assert started and len(ended) == len(started)  # its program ended with its budget
    assert results["ticks"] == 4 * 60  # the study went on to its horizon
    assert any(c["name"] == "thrifty" for c in results["configurations"])


def test_estimate_bounds_calls_tokens_and_dollars_before_anything_starts(tmp_path):
    seats = (
        '[[configuration]]\nname = "open"\nkind = "openai"\nmodel_url = "http://x/v1"\n'
        'model = "m"\nmax_tokens = 100\nprice = { input = 1.0, output = 2.0 }\n\n'
        '[[configuration]]\nname = "capped"\nkind = "openai"\nmodel_url = "http://x/v1"\n'
        'model = "m"\nbudget = { calls = 50 }\n\n'
    )
    path = tmp_path / "study.toml"
    path.write_text(study_text("http://x/v1", minutes=10, seats=seats))
    code, printed, _ = run("study", "estimate", str(path))
    assert code == 0 and not (tmp_path / "out").exists()
    rows = {line.split()[0]: line.split() for line in printed.splitlines()[2:4]}
    assert rows["open"][1:3] == ["<=", "200"]  # 600 ticks, a call costs at least 3
    assert rows["capped"][1:3] == ["<=", "50"]
    assert "<= $" in rows["open"][-1] or "<=" in printed
    assert "no price" in " ".join(rows["capped"])
    code, printed, _ = run("study", "estimate", str(path), "--seeds", "1..3")
    assert "<= 600" in printed  # three worlds


def bad_study(tmp_path: Path, url: str, line: str, template: str | None = None) -> Path:
    if template is not None:
        (tmp_path / "t.md").write_text(template)
    path = tmp_path / "study.toml"
    seats = ('[[configuration]]\nname = "m"\nkind = "openai"\n'
             f'model_url = "{url}"\nmodel = "fake-forager"\n{line}\n\n')
    path.write_text(study_text(url, seats=seats))
    return path


@pytest.mark.parametrize("line, template, code, says", [
    ('prompt = "absent.md"', None, "template_missing", "study.toml line 17: no prompt template at"),
    ('prompt = "t.md"', "ok\n\n{{tasks}}\n{{scores}}\n", "unknown_placeholder",
     "t.md line 4: unknown placeholder {{scores}}"),
    ("price = { input = -1.0, output = 1.0 }", None, "bad_value", "price.input"),
    ("budget = { calls = 0 }", None, "bad_value", "budget.calls"),
    ("budget = { dollars = 0.0 }", None, "bad_value", "budget.dollars"),
    ("request_timeout = inf", None, "bad_value", "request_timeout"),
    ('text_actions = "maybe"', None, "bad_value", "text_actions"),
])
def test_a_bad_prompt_price_or_budget_is_refused_before_anything_starts(
        tmp_path, line, template, code, says):
    path = bad_study(tmp_path, "http://127.0.0.1:9/v1", line, template)
    for argv in (("study", "check", str(path)),
                 ("study", "run", str(path), "--out", str(tmp_path / "out"), "--figures", "none")):
        rc, _, err = run(*argv)
        assert rc == 2 and err.startswith(f"error: {code}: ") and says in err, err
        assert "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_a_model_server_that_is_down_is_said_before_anything_is_written(tmp_path):
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    path = bad_study(tmp_path, f"http://127.0.0.1:{port}/v1", "")
    rc, _, err = run("study", "run", str(path), "--out", str(tmp_path / "out"), "--figures", "none")
    assert rc == 2 and err.startswith("error: model_unreachable: configuration 'm': cannot reach")
    assert "asiworld model serve" in err
    assert not (tmp_path / "out").exists()


def test_study_turn_refuses_what_it_cannot_rebuild(recorded, tmp_path):
    out, _, _ = recorded
    for argv, code in [((str(tmp_path / "nowhere"), "guided", "1"), "folder_missing"),
                       ((str(out), "nobody", "1"), "unknown_configuration"),
                       ((str(out), "guided", "100000"), "unknown_call")]:
        rc, _, err = run("study", "turn", *argv)
        assert rc == 2 and err.startswith(f"error: {code}: "), err
    rc, _, err = run("study", "turn", str(out), "guided", "0")
    assert rc == 2 and "Traceback" not in err


def test_the_estimate_holds_for_the_study_that_ran(recorded):
    out, results, _ = recorded
    code, printed, _ = run("study", "estimate", str(out.parent / "study.toml"))
    assert code == 0
    rows = {line.split()[0]: line.split() for line in printed.splitlines()[2:4]}
    for row in results["costs"]:
        if row["kind"] != "openai":
            continue
        bound = rows[row["name"]]
        calls = int(bound[2].replace(",", ""))
        tokens = int(bound[8].replace(",", ""))
        assert row["calls"] <= calls and row["prompt_tokens"] + row["completion_tokens"] <= tokens
    # guided waits 10 ticks after each turn: 180 ticks / 13 = 14 turns of up to 7 calls, but
    # never more than one call every 3 ticks
    assert rows["guided"][1:3] == ["<=", "60"]
