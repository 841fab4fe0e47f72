"""A realtime study killed with SIGKILL mid-run and run again on its folder is resumed, as a
restarted live server is: nothing acknowledged is lost (every saved input is in the finished
world's log at its tick, every incident saved before the kill is an event once), the world up to
the kill is the one the killed run had (the replay verifies from tick 0), the transcripts are
appended to and the cost table counts the calls made before the kill, a program running at the
kill ends `interrupted`, and results.json and Table 2 say where the study was resumed.

The study: four model seats through a fake model (in this process) whose calls 3-5 per
character fail with a 5xx, a built-in, at 100 ticks/s; it is killed once its store has saved
tick 180, two seats' incidents and a program that is still running. Bad input tried: the folder run again
with another study file (resume_mismatch, nothing changed)."""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from asiworld.agents.clients.transcript import read_transcript
from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer, Fault
from asiworld.cli import main
from asiworld.replay.reader import Replay
from asiworld.replay.verify import verify_replay
from asiworld.server.persistence import WorldStore

from tests.study.helpers import journal, kill_mid_study, realtime_text

SPEED = 100.0
MINUTES = 6  # 360 ticks
KILL_AT = 180  # the tick the store has saved when the study is killed
# name: (model, pause_ticks, may host programs)
SEATS = {"forager": ("fake-forager", 3, False), "explorer": ("fake-explorer", 5, False),
         "programmer": ("fake-programmer", 8, True), "quiet": ("fake-forager", 12, False)}


def study_text(url: str, seed: int = 3) -> str:
    return realtime_text(url, SEATS, MINUTES, SPEED, seed, title="realtime, interrupted")


def worth_killing(db) -> bool:
    """What the tests below need the kill to interrupt: two seats' incidents saved, and a
    program that has started and not ended."""
    rows = journal(db)
    incidents = {body["event"]["char"] for kind, body in rows if kind == "event"}
    started = {(b["char"], b["id"]) for kind, b in rows if kind == "program_submitted"}
    ended = {(b["char"], b["id"]) for kind, b in rows if kind == "program_ended"}
    return len(incidents) >= 2 and bool(started - ended)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("realtime-resume")
    with FakeModelServer(FakeModel(faults=[Fault.parse("5xx:3-5")])) as server:
        path = root / "study.toml"
        path.write_text(study_text(server.url))
        out = root / "out"
        kill_mid_study(path, out, KILL_AT, ready=worth_killing)
        store = WorldStore(out)
        killed = {"tick": store.last_tick(), "inputs": store.inputs(0),
                  "journal": store.journal_rows()}
        store.close()
        killed["lines"] = {p.stem: read_transcript(p) for p in (out / "transcripts").glob("*.jsonl")}
        other = root / "other.toml"
        other.write_text(study_text(server.url, seed=4))
        said = io.StringIO()
        with contextlib.redirect_stderr(said):
            killed["refused"] = (main(["study", "run", str(other), "--out", str(out), "--figures", "none"]),
                                 said.getvalue())
        said = io.StringIO()
        with contextlib.redirect_stderr(said):
            assert main(["study", "run", str(path), "--out", str(out), "--figures", "none"]) == 0
        killed["said"] = said.getvalue()
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    results = json.loads((out / "results.json").read_text())
    return {"out": out, "killed": killed, "events": events, "results": results}


def test_the_study_was_killed_mid_run_with_calls_written(study):
    killed = study["killed"]
    assert KILL_AT <= killed["tick"] < MINUTES * 60
    assert all(killed["lines"][name] for name in SEATS)


def test_the_second_run_resumes_it_and_finishes_at_the_horizon(study):
    said, results = study["killed"]["said"], study["results"]
    assert "interrupted: resuming it" in said
    assert f"re-applying ticks 0..{study['killed']['tick']}" in said
    assert results["ticks"] == MINUTES * 60
    assert results["meta"]["resumed"] == [study["killed"]["tick"]]


def test_nothing_acknowledged_is_lost(study):
    killed = study["killed"]
    with contextlib.closing(Replay.open(study["out"] / "replay.asirep")) as replay:
        logged = [row for row in replay.inputs() if row[0] < killed["tick"]]
    saved = [row for row in killed["inputs"] if row[0] < killed["tick"]]
    key = lambda row: json.dumps(list(row), sort_keys=True)  # noqa: E731
    assert sorted(map(key, saved)) == sorted(map(key, logged))
    assert any(row[1] is not None for row in saved)


def test_every_incident_saved_before_the_kill_is_an_event_once(study):
    saved = [body["event"] for _, _, kind, body in study["killed"]["journal"] if kind == "event"]
    assert {e["cause"] for e in saved} == {"model_error"}
    assert len({e["char"] for e in saved}) >= 2  # the fault stretch came before the kill
    incidents = [e for e in study["events"] if e["kind"] == "incident"]
    for event in saved:
        same = [e for e in incidents if all(e.get(k) == v for k, v in event.items())]
        assert len(same) == 1, event


def test_the_resumed_replay_verifies_from_tick_zero(study):
    with contextlib.closing(Replay.open(study["out"] / "replay.asirep")) as replay:
        verdict = verify_replay(replay)
    assert verdict.ok, verdict.message
    assert verdict.last_tick == MINUTES * 60


def test_transcripts_are_appended_to_and_counted_whole(study):
    rows = {r["name"]: r for r in study["results"]["costs"]}
    for name in SEATS:
        lines = read_transcript(study["out"] / "transcripts" / f"{name}.jsonl")
        before = study["killed"]["lines"][name]
        assert [c["call"] for c in lines] == list(range(1, len(lines) + 1)), name
        assert lines[: len(before)] == before, name
        assert len(lines) > len(before), name  # it went on calling after the resume
        assert rows[name]["calls"] == len(lines), name
        assert rows[name]["failures"] == sum(1 for c in lines if c["error"]), name


def test_a_program_running_at_the_kill_ends_interrupted(study):
    journal = study["killed"]["journal"]
    started = {(b["char"], b["id"]) for _, _, k, b in journal if k == "program_submitted"}
    ended = {(b["char"], b["id"]) for _, _, k, b in journal if k == "program_ended"}
    running = started - ended
    assert running, "no program was running at the kill"
    after = {(e["char"], e["program"]) for e in study["events"]
             if e["kind"] == "program_interrupted"}
    assert running <= after
    # and every program start before the kill is in the events once, with its source
    starts = [(e["char"], e["program"]) for e in study["events"]
              if e["kind"] == "program_started"]
    assert all(starts.count(p) == 1 for p in started)


def test_the_setting_table_says_where_it_was_resumed(study):
    report = (study["out"] / "report.md").read_text()
    assert f"interrupted and resumed at tick {study['killed']['tick']}" in report


def test_another_study_file_does_not_resume_it(study):
    code, said = study["killed"]["refused"]
    assert code == 2
    assert said.strip().splitlines()[-1].startswith("error: resume_mismatch: "), said
    assert "resuming" not in said


def test_a_resumed_seat_is_not_handed_what_happened_before_the_kill_as_news():
    from asiworld.agent_port import PipelinePort
    from asiworld.engine import World
    from asiworld.pipeline import Pipeline

    world = World.create(seed=3, size=48)
    ada = world.add_character("ada")
    client = PipelinePort(Pipeline(world), ada, lockstep=False)
    client.deliver([{"kind": "op_done", "char": ada, "tick": 5}])  # replayed before the resume
    client.seen_all()
    assert client.wait_for_event(["op_done"], timeout=0.05) is None
    client.deliver([{"kind": "op_done", "char": ada, "tick": 9}])
    assert client.wait_for_event(["op_done"], timeout=0.05)["tick"] == 9


def test_every_character_is_marked_resumed_on_the_replays_timeline(study):
    from asiworld.replay.phases import timeline

    tick = study["killed"]["tick"]
    chars = {c["id"] for c in study["results"]["configurations"]}
    marks = [e for e in study["events"] if e["kind"] == "resumed"]
    assert {e["tick"] for e in marks} == {tick + 1}
    assert len(marks) == len(chars) and {e["char"] for e in marks} == chars
    assert {e["detail"] for e in marks} == {"its model seat went on from its transcript",
                                             "its built-in agent started anew"}
    drawn = timeline(study["events"], 0, MINUTES * 60, chars)["markers"]
    assert sorted(m["char"] for m in drawn if m["kind"] == "resumed") == \
        sorted(e["char"] for e in marks)


def test_a_closed_study_store_saves_nothing_more_and_stops_nothing(tmp_path):
    """serve --study keeps a finished study's world up, and its agents may still act on it:
    the study's store is closed by then, and its hooks do nothing (before, the next flush
    raised on the closed database and the request failed)."""
    from asiworld.engine import World
    from asiworld.pipeline import Pipeline
    from asiworld.study.resume import StudyStore

    world = World.create(seed=3, size=48)
    pipeline = Pipeline(world)
    store = StudyStore(tmp_path, horizon=60)
    store.begin(pipeline, {"study_sha256": "x", "seed": 3}, 48, journal=True)
    ada = world.add_character("ada")
    pipeline.step()
    store.close()
    assert pipeline.submit(ada, {"type": "move", "dir": "n"})["ok"] in (True, False)
    pipeline.add_event({"kind": "incident", "char": ada, "cause": "model_error"}, durable=True)
    pipeline.step()
    store.keep_meta("external_calls", {"x": 1})
    assert world.tick == 2
