"""A hostile model endpoint costs its seat incidents, never the study.

One lockstep study, one seat per hostile behaviour, all on one loopback server that answers by
the model's name: a server that trickles a byte at a time, one that streams server-sent events
for ever, a 1 GB answer, usage counts of NaN, Infinity, text and 10**30 (with `think =
"tokens"`, which charges by them), a tool call with a megabyte of arguments, and a `say` and a
text holding a lone surrogate. Before, the trickle and the stream hung the study, the usage
counts crashed it with no results, the 1 GB answer took 4.2 GB of memory and the surrogate
poisoned the replay writer. Now the study ends at its horizon with results, every seat's
trouble is an incident, and memory and transcripts stay small."""

from __future__ import annotations

import json
import resource

import pytest
from asiworld.agents.clients.transcript import read_transcript
from asiworld.evaluation.figure_options import FigureOptions
from asiworld.replay.reader import Replay
from asiworld.replay.verify import verify_replay
from asiworld.study.run import run_study
from asiworld.study.spec import parse_study

from tests.agents.hostile import Hostile, endless_events, trickle

NO_FIGURES = FigureOptions(formats=())  # the runs are checked here, not their figures


def completion(tool: tuple[str, dict] | None, usage: str, content: str = "") -> bytes:
    message = {"role": "assistant", "content": content}
    if tool is not None:
        message["tool_calls"] = [{"id": "c1", "type": "function", "function": {
            "name": tool[0], "arguments": json.dumps(tool[1])}}]
    body = json.dumps({"choices": [{"index": 0, "message": message}]})
    return (body[:-1] + f', "usage": {usage}}}').encode()


def send(handler, body: bytes, length: int | None = None) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body) if length is None else length))
    handler.end_headers()
    handler.wfile.write(body)


def gigabyte(handler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Length", str(10**9))
    handler.end_headers()
    block = b"0" * 65536
    for _ in range(10**9 // len(block)):
        handler.wfile.write(block)


WAIT = ("wait", {"ticks": 5})
BEHAVIOURS = {
    "trickle": trickle,
    "events": endless_events,
    "gigabyte": gigabyte,
    "nan": lambda h: send(h, completion(WAIT, '{"prompt_tokens": NaN, "completion_tokens": NaN}')),
    "infinity": lambda h: send(h, completion(
        WAIT, '{"prompt_tokens": Infinity, "completion_tokens": -Infinity}')),
    "text": lambda h: send(h, completion(WAIT, '{"prompt_tokens": "12", "completion_tokens": "x"}')),
    "huge": lambda h: send(h, completion(WAIT, '{"prompt_tokens": 1, "completion_tokens": '
                                               + "1" + "0" * 30 + "}")),
    "arguments": lambda h: send(h, completion(("say", {"text": "x" * 1_000_000}),
                                              '{"prompt_tokens": 1, "completion_tokens": 1}')),
    "surrogate": lambda h: send(h, completion(("say", {"text": "hi \ud800"}),
                                              '{"prompt_tokens": 1, "completion_tokens": 1}',
                                              content="so \udfff")),
}


def by_model(handler) -> None:
    """Each seat asks for its own model: the behaviour of that name answers it."""
    BEHAVIOURS[json.loads(handler.body)["model"]](handler)


# Only the endpoints that never finish meet the harness's clock: 1 s keeps the test short. Every
# other one answers at once and gets a clock a loaded machine cannot run out: with the suite at a
# load of 8, the 1 GB answer (at 1 s, did not end model_malformed) and the NaN usage (at 1 s, one
# call failed) did, because the server is a thread of this process sharing it with the study.
NEVER_FINISH = ("trickle", "events")


def study_text(url: str) -> str:
    seats = "".join(
        f'[[configuration]]\nname = "{name}"\nkind = "openai"\nmodel_url = "{url}"\n'
        f'model = "{name}"\npause_ticks = 30\n'
        f'request_timeout = {1.0 if name in NEVER_FINISH else 60.0}\nmax_retries = 1\n'
        "backoff_seconds = 0.0\nprograms = false\n\n" for name in BEHAVIOURS)
    return ('title = "hostile endpoints"\n[world]\nseed = 4\nminutes = 2\nsize = 48\n\n'
            '[clock]\nkind = "lockstep"\nthink = "tokens"\nthink_ticks = 2\n\n' + seats
            + '[[configuration]]\nname = "planner"\nkind = "builtin"\nagent = "planner"\n')


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    out = tmp_path_factory.mktemp("hostile")
    server = Hostile(by_model)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        text = study_text(server.url)
        (results,) = run_study(parse_study(text), text, out, say=lambda line: None, figures=NO_FIGURES)
    finally:
        server.close()
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - grown  # KiB on Linux
    return out, results, grown


def test_the_study_ends_at_its_horizon_with_results(played):
    out, results, _ = played
    assert results["ticks"] == 120
    assert (out / "report.md").is_file() and (out / "results.json").is_file()
    with Replay.open(out / "replay.asirep") as replay:
        assert verify_replay(replay).ok


@pytest.mark.parametrize("name, cause", [("trickle", "model_timeout"),
                                         ("events", "model_timeout"),
                                         ("gigabyte", "model_malformed"),
                                         ("arguments", "model_malformed")])
def test_each_hostile_answer_is_its_seats_incident(played, name, cause):
    out, results, _ = played
    calls = read_transcript(out / "transcripts" / f"{name}.jsonl")
    assert calls and all(c["error"] and c["error"]["cause"] == cause for c in calls), calls[:2]
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    char = next(e["char"] for e in events if e["kind"] == "joined" and e["name"] == name)
    causes = {e["cause"] for e in events if e["kind"] == "incident" and e["char"] == char}
    assert cause in causes


@pytest.mark.parametrize("name", ["nan", "infinity", "text", "huge"])
def test_usage_that_is_no_count_is_taken_as_missing(played, name):
    out, results, _ = played
    row = next(r for r in results["costs"] if r["name"] == name)
    assert row["calls"] >= 2 and row["failures"] == 0
    assert row["completion_tokens"] == 0  # NaN, Infinity, text, 10**30: none is a count
    assert row["replies"]["tool_call"] == row["calls"]


def test_a_lone_surrogate_reaches_neither_the_world_nor_a_file(played):
    out, _, _ = played
    calls = read_transcript(out / "transcripts" / "surrogate.jsonl")
    assert calls and all('"code":"bad_text"' in c["results"][0] for c in calls)
    assert all(c["content"] == "so \ufffd" for c in calls)
    for path in out.rglob("*"):
        if path.is_file() and path.suffix in (".jsonl", ".json", ".md"):
            path.read_bytes().decode("utf-8")  # valid UTF-8, every file


def test_memory_and_transcripts_stay_small(played):
    out, _, grown = played
    assert grown < 400 * 1024  # KiB: the 1 GB answer is read to its cap only
    size = sum(p.stat().st_size for p in (out / "transcripts").rglob("*") if p.is_file())
    assert size < 20 * 1024 * 1024
