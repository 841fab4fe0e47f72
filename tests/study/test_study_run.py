"""`asiworld study run`: nine configurations (six model seats through the fake model over HTTP
with different settings, three built-ins) in one world for 60 minutes on the lockstep clock:
every output is written, the replay verifies, each transcript has exactly the calls the fake
model received, and the same study run twice gives the same state hash. Also: a python agent
plays, a realtime study finishes with its incidents in the cost table, and a study that cannot
run (an external seat on the lockstep clock, a bad file) starts nothing."""

from __future__ import annotations

import json

import pytest
from asiworld.agents.clients.transcript import read_transcript
from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer, Fault
from asiworld.cli import main
from asiworld.evaluation.figure_options import FigureOptions
from asiworld.evaluation.report import FIGURES
from asiworld.study.demo import BUILTINS, LOCKSTEP, MODEL_SEATS, demo_text
from asiworld.study.run import run_study
from asiworld.study.spec import parse_study

from tests.study.helpers import SAME_WORLD_TIMEOUT

NO_FIGURES = FigureOptions(formats=())  # for the studies whose figures are not read

# The module's two 60-minute studies (its first fixture) take about a minute idle; the whole
# suite beside busy loops (load 18) took them past pytest's 300 s, and the eight tests that read
# them errored. They run at the pace the machine gives them; the timeout is for a hang.
pytestmark = pytest.mark.timeout(1200)


def study_text(url: str, minutes: int = 60, clock: str = LOCKSTEP) -> str:
    return demo_text(url, minutes=minutes, clock=clock, request_timeout=SAME_WORLD_TIMEOUT)


def faulty() -> FakeModel:
    # Every seat's calls 5-6 fail (a 503) and call 9 is cut off: incidents, never a crash.
    return FakeModel([Fault("5xx", 5, 6), Fault("truncated", 9, 9)])


@pytest.fixture(scope="module")
def fake():
    with FakeModelServer(faulty()) as server:
        yield server


@pytest.fixture(scope="module")
def two_runs(fake, tmp_path_factory):
    """The same study twice, each against a fresh fake model (its faults counted from the
    first call again), and what the fake model received."""
    text = study_text(fake.url)
    runs = []
    for label in ("first", "second"):
        fake.model = faulty()
        out = tmp_path_factory.mktemp(label)
        path = out.parent / f"{label}.toml"
        path.write_text(text)
        # The second run is read for its state hash only: its figures are not drawn.
        figures = [] if label == "first" else ["--figures", "none"]
        assert main(["study", "run", str(path), "--out", str(out), *figures]) == 0
        received = fake.stats()["by_character"]
        runs.append((out, json.loads((out / "results.json").read_text()), received, text))
    return runs


def test_every_output_is_written(two_runs):
    out, results, _, text = two_runs[0]
    for name in ("results.json", "report.md", "events.jsonl", "replay.asirep",
                 *FIGURES.values()):
        assert (out / name).is_file(), name
    assert sorted(p.stem for p in (out / "transcripts").glob("*.jsonl")) == sorted(MODEL_SEATS)
    assert results["asiworld_version"] and results["content_hash"]
    commit = results["git_commit"]
    assert commit is None or len(commit) == 40
    assert results["study"]["text"] == text
    assert results["clock"]["kind"] == "lockstep" and "4 ticks" in results["clock"]["rule"]
    assert results["study"]["parsed"]["title"] == "nine configurations"
    assert results["ticks"] == 60 * 60
    assert sorted(c["name"] for c in results["configurations"]) == sorted([*MODEL_SEATS, *BUILTINS])


def test_entry_is_synchronised(two_runs):
    out = two_runs[0][0]
    joins = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()
             if '"joined"' in line]
    assert len(joins) == 9 and {e["tick"] for e in joins} == {joins[0]["tick"]}


def test_the_report_has_a_cost_row_per_configuration(two_runs):
    out, results, _, _ = two_runs[0]
    report = (out / "report.md").read_text()
    costs = report.split("## Model costs", 1)[1]
    for name in [*MODEL_SEATS, *BUILTINS]:
        assert f"| {name} |" in costs
    rows = {r["name"]: r for r in results["costs"]}
    for name in MODEL_SEATS:
        row = rows[name]
        assert row["calls"] > 9 and row["failures"] >= 3 and row["incidents"] >= 2
        assert row["latency_p50_ms"] <= row["latency_p95_ms"]
        assert row["prompt_tokens"] > 0 and row["completion_tokens"] > 0
    causes = {i["cause"] for c in results["configurations"] for i in c["incidents"]}
    assert {"model_error", "model_malformed"} <= causes


def test_the_replay_verifies(two_runs):
    out = two_runs[0][0]
    assert main(["replay", "verify", str(out / "replay.asirep")]) == 0


def test_transcripts_hold_exactly_the_calls_the_fake_model_received(two_runs):
    for out, results, received, _ in two_runs:
        rows = {r["name"]: r for r in results["costs"]}
        for name in MODEL_SEATS:
            lines = read_transcript(out / "transcripts" / f"{name}.jsonl")
            assert len(lines) == received[name]["requests"] == rows[name]["calls"]
            assert sum(1 for ln in lines if ln["error"] is None) == received[name]["answered"]
            assert [ln["call"] for ln in lines] == list(range(1, len(lines) + 1))
            assert all(ln["tick_sent"] is not None for ln in lines)


def test_the_same_study_gives_the_same_state_hash(two_runs):
    (_, first, _, _), (_, second, _, _) = two_runs
    assert first["state_hash"] == second["state_hash"]


def test_model_seats_act_and_one_hands_over_a_program(two_runs):
    out = two_runs[0][0]
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    results = two_runs[0][1]
    ids = {c["name"]: c["id"] for c in results["configurations"]}
    started = {e["char"] for e in events if e["kind"] == "program_started"}
    assert ids["programmer"] in started and ids["no-programs"] not in started
    acted = {e.get("char") for e in events if e["kind"] in ("gathered", "op_done")}
    assert {ids[n] for n in ("forager-a", "explorer")} <= acted


class Stroller:
    """A python configuration: walks east now and then."""

    def __init__(self, every: int = 3) -> None:
        self.every, self.seen = every, 0

    def observe(self, observation: dict) -> None:
        self.seen += 1

    def decide(self):
        return {"type": "move", "dir": "e"} if self.seen % self.every == 0 else None


def test_a_python_configuration_plays_next_to_a_model(fake, tmp_path):
    text = (f'[world]\nseed = 3\nminutes = 2\nsize = 64\n[clock]\nkind = "lockstep"\n'
            f'[[configuration]]\nname = "mine"\nkind = "python"\n'
            f'agent = "{__name__}:Stroller"\nthink_ticks = 2\n[configuration.params]\nevery = 2\n'
            f'[[configuration]]\nname = "m"\nkind = "openai"\nmodel_url = "{fake.url}"\n'
            'model = "fake-forager"\n')
    study = parse_study(text)
    (results,) = run_study(study, text, tmp_path, say=lambda line: None, figures=NO_FIGURES)
    mine = next(c for c in results["configurations"] if c["name"] == "mine")
    assert mine["actions"]["movement"] > 0


def test_a_realtime_study_finishes_and_counts_its_incidents(fake, tmp_path):
    text = study_text(fake.url, minutes=1, clock='kind = "realtime"\nspeed = 120')
    study = parse_study(text)
    (results,) = run_study(study, text, tmp_path, say=lambda line: None, figures=NO_FIGURES)
    assert results["ticks"] == 60 and results["clock"]["kind"] == "realtime"
    assert results["clock"]["measured_speed"] > 0
    rows = {r["name"]: r for r in results["costs"]}
    assert sum(rows[n]["calls"] for n in MODEL_SEATS) > 0
    for name in MODEL_SEATS:
        assert len(read_transcript(tmp_path / "transcripts" / f"{name}.jsonl")) == rows[name]["calls"]


def test_a_bad_study_file_starts_nothing(fake, tmp_path, capsys):
    # (an external seat on the lockstep clock is taken in turns: test_study_lockstep_external)
    path = tmp_path / "s.toml"
    out = tmp_path / "out"
    path.write_text(study_text(fake.url, minutes=0))
    assert main(["study", "run", str(path), "--out", str(out)]) == 2
    assert "error: bad_value: " in capsys.readouterr().err and not out.exists()


def test_a_folder_holding_an_earlier_study_is_refused_unless_forced(fake, tmp_path, capsys):
    path = tmp_path / "s.toml"
    path.write_text(
        '[world]\nseed = 3\nminutes = 1\nsize = 64\n[clock]\nkind = "lockstep"\n'
        f'[[configuration]]\nname = "m"\nkind = "openai"\nmodel_url = "{fake.url}"\n'
        'model = "fake-forager"\n')
    out = tmp_path / "out"
    (out / "transcripts").mkdir(parents=True)
    (out / "transcripts" / "m.jsonl").write_text('{"call": 999}\n')
    assert main(["study", "run", str(path), "--out", str(out), "--figures", "none"]) == 2
    assert "error: out_in_use: " in capsys.readouterr().err
    assert main(["study", "run", str(path), "--out", str(out), "--figures", "none", "--force"]) == 0
    lines = read_transcript(out / "transcripts" / "m.jsonl")
    assert lines and lines[0]["call"] == 1


def test_model_seats_reach_the_later_stages_of_the_curriculum(two_runs):
    # The fake model plays built-in configurations (app/agents/stand_in/fake_play.py): in 60 minutes the
    # explorer seat clears the Outer Court, stage 4, whatever the injected faults cost it.
    results = two_runs[0][1]
    stages = {c["name"]: c["achievements"]["coverage"] for c in results["configurations"]}
    assert any(s >= 4 for name in MODEL_SEATS for s in stages[name]), stages
