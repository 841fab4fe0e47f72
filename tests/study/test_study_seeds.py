"""A study of several seeds: one world per seed, one after another, each in DIR/E1, DIR/E2, ...
with everything a one-seed study writes (its replay verifies), and the comparison in DIR.
`--seeds` on the command line replaces the file's seeds.

Bad --seeds values tried: `0..`, `5..2`, `a`, `1,,2`, `3,3`, `..4`, and an empty one: each is
`error: bad_seeds: ...`, exit 2, and nothing is written."""

from __future__ import annotations

import contextlib
import json

import pytest
from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer
from asiworld.cli import main
from asiworld.replay.reader import Replay
from asiworld.replay.verify import verify_replay
from asiworld.study.demo import demo_text


def with_seeds(text: str, seeds: str) -> str:
    return text.replace("seed = 3\n", f"seeds = [{seeds}]\n", 1)


@pytest.fixture(scope="module")
def fake():
    with FakeModelServer(FakeModel()) as server:
        yield server


@pytest.fixture(scope="module")
def two_seeds(fake, tmp_path_factory):
    root = tmp_path_factory.mktemp("seeds")
    path = root / "study.toml"
    path.write_text(with_seeds(demo_text(fake.url, minutes=2), "3, 4"))
    out = root / "out"
    assert main(["study", "run", str(path), "--out", str(out), "--figures", "none"]) == 0
    return out


def test_each_seed_gets_its_own_world_and_folder(two_seeds):
    got = [json.loads((two_seeds / f"E{i}" / "results.json").read_text()) for i in (1, 2)]
    assert [r["seed"] for r in got] == [3, 4]
    assert [r["run"] for r in got] == ["E1", "E2"]
    assert got[0]["state_hash"] != got[1]["state_hash"]
    for i in (1, 2):
        folder = two_seeds / f"E{i}"
        for name in ("report.md", "events.jsonl", "replay.asirep", "world.sqlite3"):
            assert (folder / name).is_file(), (folder, name)
        assert len(list((folder / "transcripts").glob("*.jsonl"))) == 6


def test_the_comparison_is_written_with_both_runs(two_seeds):
    comparison = json.loads((two_seeds / "comparison.json").read_text())
    assert [r["seed"] for r in comparison["results"]] == [3, 4]
    report = (two_seeds / "report.md").read_text()
    assert "E1" in report and "E2" in report
    assert not (two_seeds / "results.json").exists()


@pytest.mark.parametrize("run", ["E1", "E2"])
def test_each_replay_verifies(two_seeds, run):
    with contextlib.closing(Replay.open(two_seeds / run / "replay.asirep")) as replay:
        verdict = verify_replay(replay)
    assert verdict.ok, verdict.message
    assert verdict.last_tick == 120


def test_seeds_on_the_command_line_replace_the_files(fake, tmp_path, capsys):
    path = tmp_path / "study.toml"
    path.write_text(demo_text(fake.url, minutes=1))
    out = tmp_path / "out"
    assert main(["study", "run", str(path), "--out", str(out), "--figures", "none", "--seeds", "5..6"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [s["seed"] for s in summary] == [5, 6]
    assert json.loads((out / "E2" / "results.json").read_text())["study"]["parsed"]["world"][
        "seeds"] == [5, 6]


@pytest.mark.parametrize("bad", ["0..", "5..2", "a", "1,,2", "3,3", "..4", ""])
def test_bad_seeds_are_refused_before_anything_starts(fake, tmp_path, capsys, bad):
    path = tmp_path / "study.toml"
    path.write_text(demo_text(fake.url, minutes=1))
    out = tmp_path / "out"
    assert main(["study", "run", str(path), "--out", str(out), "--figures", "none", "--seeds", bad]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: bad_seeds: --seeds "), err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists()
