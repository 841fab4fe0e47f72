"""Model turns in a replay (chunk T): a transcript's calls become turns (retries folded in, a
failed turn kept), the recorder stores one chunk per configuration before the index, the reader
and the viewer's API give them back, and a study's replay carries exactly its transcripts'
turns. Bad inputs tried: an unknown character or turn number (`unknown_turn`), a torn last
transcript line, a transcript that is missing."""

from __future__ import annotations

import json

import pytest
from asiworld.agents.clients.transcript import prompt_summary, read_transcript
from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer, Fault
from asiworld.engine import World
from asiworld.engine.frames import FrameBuilder
from asiworld.evaluation.figure_options import FigureOptions
from asiworld.pipeline import Pipeline
from asiworld.replay import Replay, ReplayError
from asiworld.replay.library import ReplayLibrary
from asiworld.replay.session import RunRecording
from asiworld.replay.turns import transcript_chunks, turns_of
from asiworld.replay.verify import verify_replay
from asiworld.study.demo import MODEL_SEATS, demo_text
from asiworld.study.run import run_study
from asiworld.study.spec import parse_study

NO_FIGURES = FigureOptions(formats=())  # the runs are checked here, not their figures

CALLS = [
    {"call": 1, "turn": 1, "attempt": 1, "tick_sent": 1, "tick_answered": 5, "latency_ms": 10,
     "prompt_tokens": 100, "completion_tokens": 5, "prompt": "## Now\nhungry",
     "tool_calls": [{"name": "move", "arguments": "{\"dir\":\"n\"}"}],
     "results": ["move({\"dir\":\"n\"}) -> {\"ok\":true}"], "error": None, "content": "north"},
    {"call": 2, "turn": 2, "attempt": 1, "tick_sent": 9, "tick_answered": None,
     "latency_ms": 3, "prompt_tokens": 0, "completion_tokens": 0, "prompt": "## Now\nagain",
     "tool_calls": [], "results": [], "error": {"cause": "5xx", "detail": "503"}},
    {"call": 3, "turn": 2, "attempt": 2, "tick_sent": 9, "tick_answered": 14, "latency_ms": 7,
     "prompt_tokens": 120, "completion_tokens": 6, "prompt": "",
     "tool_calls": [{"name": "eat", "arguments": "{}"}], "results": ["eat({}) -> refused"],
     "error": None, "content": None},
    {"call": 4, "turn": 3, "attempt": 1, "tick_sent": 20, "tick_answered": None,
     "latency_ms": 1, "prompt_tokens": 0, "completion_tokens": 0, "prompt": "## Now\nx",
     "tool_calls": [], "results": [], "error": {"cause": "timeout", "detail": "slow"}},
]


def test_a_transcripts_calls_become_turns_with_their_retries_folded_in():
    first, second, third = turns_of(CALLS)
    assert (first["tick_sent"], first["tick_answered"], first["text"]) == (1, 5, "north")
    assert first["results"] == ["move({\"dir\":\"n\"}) -> {\"ok\":true}"]
    assert second["calls"] == 2 and second["errors"] == ["5xx"]
    assert second["prompt"] == "## Now\nagain"  # the first attempt's summary
    assert second["tool_calls"][0]["name"] == "eat" and second["tick_answered"] == 14
    assert second["prompt_tokens"] == 120
    assert third["errors"] == ["timeout"] and third["tool_calls"] == []
    assert third["tick_answered"] == 20  # never answered: marked where it was sent


def test_a_prompt_summary_keeps_each_section_short_and_the_last_results():
    recent = "\n".join(f"move(n) -> ok {i}" for i in range(10))
    user = (f"## Now\n{'x' * 5000}\n\n## Memory\nseen 3 tiles\n\n"
            f"## Your recent tool calls and their results\n{recent}")
    summary = prompt_summary([{"role": "system", "content": "rules " * 900},
                              {"role": "user", "content": user}])
    assert summary.startswith("## Now\n") and "rules" not in summary
    assert "## Memory\nseen 3 tiles" in summary
    assert len(summary) < 1100
    assert "ok 9" in summary and "ok 5" not in summary


def _recorded(tmp_path, calls_by_name: dict[str, list[dict]]) -> Replay:
    folder = tmp_path / "transcripts"
    folder.mkdir()
    world = World.create(seed=3, size=48)
    ids = {name: world.add_character(name, label=name) for name in calls_by_name}
    for name, calls in calls_by_name.items():
        lines = [json.dumps(c) for c in calls]
        (folder / f"{name}.jsonl").write_text("\n".join(lines) + "\n{\"call\": 9, \"tur")
    recording = RunRecording.start(tmp_path / "r.asirep", world, FrameBuilder(world))
    pipeline = Pipeline(world)
    pipeline.add_observer("recorder", recording.on_tick)
    pipeline.run_until(130)
    expected = sum(len({c["turn"] for c in calls}) for calls in calls_by_name.values())
    assert recording.add_turns(folder, {**ids, "missing": 99}) == expected
    recording.close()
    return Replay.open(tmp_path / "r.asirep")


def test_the_replay_stores_one_turn_chunk_per_configuration_and_still_verifies(tmp_path):
    with _recorded(tmp_path, {"ann": CALLS, "bob": CALLS[:1] + CALLS[1:3]}) as replay:
        stored = replay.turns()
        assert [c["config"] for c in stored] == ["ann", "bob"]
        assert [t["turn"] for t in stored[0]["turns"]] == [1, 2, 3]
        assert replay.complete and replay.integrity() == []
        assert verify_replay(replay).ok
        kinds = [r.kind for r in replay.index]
        assert kinds.count("T") == 2


def test_the_viewer_api_gives_markers_and_one_turn_in_full(tmp_path):
    _recorded(tmp_path, {"ann": CALLS}).close()
    with ReplayLibrary([tmp_path]) as library:
        [conf] = library.turns("r")["configurations"]
        assert conf["config"] == "ann"
        assert [m["tools"] for m in conf["markers"]] == [["move"], ["eat"], []]
        assert [m["failed"] for m in conf["markers"]] == [False, False, True]
        full = library.turn("r", conf["char"], 2)
        assert full["config"] == "ann" and full["results"] == ["eat({}) -> refused"]
        for char, number in ((conf["char"], 7), (conf["char"] + 1, 1)):
            with pytest.raises(ReplayError) as err:
                library.turn("r", char, number)
            assert err.value.code == "unknown_turn"


OUTCOMES = CALLS + [
    {"call": 5, "turn": 4, "attempt": 1, "tick_sent": 30, "tick_answered": 33, "latency_ms": 4,
     "prompt_tokens": 90, "completion_tokens": 9, "prompt": "## Now\nfar",
     "tool_calls": [{"name": "move_to", "arguments": "{\"x\":1,\"y\":2}"}, {"name": "eat", "arguments": "{}"}],
     "results": ["move_to({\"x\":1,\"y\":2}) -> {\"ok\":false,\"code\":\"no_path\",\"message\":\"no way\"}",
                 "eat({}) -> {\"ok\":true}"], "error": None, "content": ""},
    {"call": 6, "turn": 5, "attempt": 1, "tick_sent": 40, "tick_answered": 41, "latency_ms": 2,
     "prompt_tokens": 80, "completion_tokens": 20, "prompt": "## Now\nthink",
     "tool_calls": [], "results": [], "error": None, "content": "I will wait."},
]


def test_the_turn_reader_gets_every_turn_with_its_outcome_and_no_prompt(tmp_path):
    _recorded(tmp_path, {"ann": OUTCOMES}).close()
    with ReplayLibrary([tmp_path]) as library:
        [conf] = library.transcript("r")["configurations"]
    assert conf["config"] == "ann"
    outcomes = {t["turn"]: t["outcome"] for t in conf["turns"]}
    assert outcomes == {
        1: {"kind": "ok", "codes": []},
        2: {"kind": "ok", "codes": []},  # "refused" as plain text carries no code: not a refusal
        3: {"kind": "failed", "codes": []},
        4: {"kind": "refused", "codes": ["no_path"]},
        5: {"kind": "text-only", "codes": []},
    }
    assert all("prompt" not in t for t in conf["turns"])
    assert conf["turns"][3]["tool_calls"][0]["name"] == "move_to"


def test_the_timelines_marks_carry_each_turns_outcome(tmp_path):
    """The model-turn lane is coloured by outcome: the marks say the reader's outcome kind."""
    _recorded(tmp_path, {"ann": OUTCOMES}).close()
    with ReplayLibrary([tmp_path]) as library:
        [conf] = library.turns("r")["configurations"]
    assert [m["outcome"] for m in conf["markers"]] == ["ok", "ok", "failed", "refused", "text-only"]


def test_a_replay_without_turns_has_none(tmp_path):
    assert transcript_chunks(tmp_path, {"nobody": 1}) == []
    world = World.create(seed=3, size=48)
    with RunRecording.start(tmp_path / "plain.asirep", world, FrameBuilder(world)):
        pass
    with Replay.open(tmp_path / "plain.asirep") as replay:
        assert replay.turns() == []


def test_a_studys_replay_carries_exactly_its_transcripts_turns(tmp_path):
    out = tmp_path / "study"
    with FakeModelServer(FakeModel([Fault("5xx", 3, 3)])) as fake:
        text = demo_text(fake.url, minutes=2)
        run_study(parse_study(text), text, out, say=lambda line: None, figures=NO_FIGURES)
    with Replay.open(out / "replay.asirep") as replay:
        stored = {c["config"]: c for c in replay.turns()}
        chars = {c["name"]: c["id"] for c in replay.characters()}
    assert sorted(stored) == sorted(MODEL_SEATS)
    for name, conf in stored.items():
        calls = read_transcript(out / "transcripts" / f"{name}.jsonl")
        assert conf["char"] == chars[name]
        assert [t["turn"] for t in conf["turns"]] == sorted({c["turn"] for c in calls})
        assert sum(t["calls"] for t in conf["turns"]) == len(calls)
        answered = [t for t in conf["turns"] if t["tool_calls"]]
        assert answered and all(t["prompt"].startswith("## Clock") for t in conf["turns"])
        assert all(len(t["results"]) == len(t["tool_calls"]) for t in answered)
