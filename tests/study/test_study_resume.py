"""A lockstep study killed with SIGKILL mid-run and run again on its folder is resumed: nothing
the world acknowledged is lost, the transcripts are appended to (no call twice, none missing),
and the result equals an uninterrupted run's (the state hash, results.json but its wall times,
events, transcripts but their latencies); the replay verifies. The study is the nine
configurations of the demo through a fake model on loopback that has no faults (its faults are
counted per request it receives, so a call asked again after the kill would move them).

Bad inputs tried: the folder of an interrupted study run with another study file
(resume_mismatch), and with --force (starts again, no resume)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from asiworld.agents.clients.transcript import read_transcript
from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer
from asiworld.cli import main
from asiworld.replay.reader import Replay
from asiworld.replay.verify import verify_replay
from asiworld.server.persistence import WorldStore
from asiworld.study.demo import demo_text

from tests.study.helpers import SAME_WORLD_TIMEOUT, kill_mid_study

MINUTES = 6  # 360 ticks
KILL_AT = 150  # the tick the store has saved when the study is killed


def run(path: Path, out: Path, *extra: str) -> int:
    return main(["study", "run", str(path), "--out", str(out), "--figures", "none", *extra])


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    """An uninterrupted study (`whole`) and the same study killed then resumed (`resumed`),
    with what the store held at the kill and what the resume said."""
    root = tmp_path_factory.mktemp("resume")
    with FakeModelServer(FakeModel()) as server:
        path = root / "study.toml"
        path.write_text(demo_text(server.url, minutes=MINUTES, request_timeout=SAME_WORLD_TIMEOUT))
        whole, resumed = root / "whole", root / "resumed"
        assert run(path, whole) == 0
        kill_mid_study(path, resumed, KILL_AT)
        store = WorldStore(resumed)
        acknowledged, killed_at = store.inputs(0), store.last_tick()
        store.close()
        lines_at_kill = {p.stem: len(read_transcript(p))
                         for p in (resumed / "transcripts").glob("*.jsonl")}
        other = root / "other.toml"
        other.write_text(demo_text(server.url, minutes=MINUTES, seed=4))
        said = io.StringIO()
        with contextlib.redirect_stderr(said):
            refused = (run(other, resumed), said.getvalue())
        said = io.StringIO()
        with contextlib.redirect_stderr(said):
            assert run(path, resumed) == 0
        resumed_said = said.getvalue()
    return {"path": path, "whole": whole, "resumed": resumed, "acknowledged": acknowledged,
            "killed_at": killed_at, "lines_at_kill": lines_at_kill, "refused": refused,
            "said": resumed_said}


def results(folder: Path) -> dict:
    data = json.loads((folder / "results.json").read_text())
    data.pop("wall_seconds")
    data.pop("engine_seconds")
    data["meta"].pop("wall_seconds")
    for row in data["costs"]:  # latencies are wall times too
        row.pop("latency_p50_ms", None)
        row.pop("latency_p95_ms", None)
    return data


def calls(path: Path) -> list[dict]:
    lines = read_transcript(path)
    for line in lines:
        line.pop("latency_ms")
    return lines


def test_the_study_was_killed_mid_run_with_calls_written(studies):
    assert KILL_AT <= studies["killed_at"] < MINUTES * 60
    assert sum(studies["lines_at_kill"].values()) > 0


def test_the_second_run_says_it_resumes(studies):
    said = studies["said"]
    assert "interrupted: resuming it" in said
    assert f"replaying ticks 0..{studies['killed_at']}" in said


def test_the_resumed_study_equals_an_uninterrupted_one(studies):
    whole, resumed = results(studies["whole"]), results(studies["resumed"])
    assert resumed["state_hash"] == whole["state_hash"]
    assert resumed == whole
    assert (studies["resumed"] / "events.jsonl").read_text() == \
        (studies["whole"] / "events.jsonl").read_text()


def test_transcripts_are_appended_to_never_duplicated(studies):
    for path in sorted((studies["whole"] / "transcripts").glob("*.jsonl")):
        mine = calls(studies["resumed"] / "transcripts" / path.name)
        assert [c["call"] for c in mine] == list(range(1, len(mine) + 1)), path.stem
        assert mine == calls(path), path.stem
        assert len(mine) >= studies["lines_at_kill"][path.stem]


def test_nothing_acknowledged_is_lost(studies):
    with contextlib.closing(Replay.open(studies["resumed"] / "replay.asirep")) as replay:
        logged = [(t, c, a) for t, c, a in replay.inputs() if t < studies["killed_at"] - 1]
    saved = [row for row in studies["acknowledged"] if row[0] < studies["killed_at"] - 1]
    key = lambda row: json.dumps(row, sort_keys=True)  # noqa: E731
    assert sorted(map(key, saved)) == sorted(map(key, logged))
    assert len(saved) > 0


def test_the_resumed_replay_verifies(studies):
    with contextlib.closing(Replay.open(studies["resumed"] / "replay.asirep")) as replay:
        verdict = verify_replay(replay)
    assert verdict.ok, verdict.message
    assert verdict.last_tick == MINUTES * 60


def test_another_study_file_does_not_resume_it_and_changes_nothing(studies):
    code, said = studies["refused"]
    assert code == 2
    # the last line (the fake model's server thread may report the killed study's dropped
    # connection on the same stderr meanwhile)
    assert said.strip().splitlines()[-1].startswith("error: resume_mismatch: "), said
    assert "resuming" not in said
    # and the resume that came after it still equals the uninterrupted study (the test above)


def test_force_starts_an_interrupted_study_again(studies, tmp_path, capsys):
    with FakeModelServer(FakeModel()) as server:
        path = tmp_path / "short.toml"
        path.write_text(demo_text(server.url, minutes=1))
        out = tmp_path / "out"
        kill_store = out / "world.sqlite3"
        out.mkdir()
        # An interrupted study's folder, as the kill leaves it: its store and a transcript.
        for name in ("world.sqlite3", "transcripts"):
            source = studies["resumed"] / name
            if source.is_dir():
                (out / name).mkdir()
                (out / name / "forager-a.jsonl").write_text(
                    (source / "forager-a.jsonl").read_text())
            else:
                kill_store.write_bytes(source.read_bytes())
        capsys.readouterr()
        assert run(path, out, "--force") == 0
        err = capsys.readouterr().err
    assert "resuming" not in err
    lines = read_transcript(out / "transcripts" / "forager-a.jsonl")
    assert [c["call"] for c in lines] == list(range(1, len(lines) + 1))
    assert json.loads((out / "results.json").read_text())["minutes"] == 1
