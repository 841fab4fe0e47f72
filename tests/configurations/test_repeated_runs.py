"""`asiworld run --runs/--seeds` repeats an evaluation (E1, E2, ...) in fresh worlds, writes each
run's reports and a comparison; where runs execute (sequential, local processes) never changes
their results; `--ray` without ray installed and bad arguments exit 2 with a code and change
nothing."""

from __future__ import annotations

import json
import sys

from asiworld.cli import main
from asiworld.evaluation.figure_options import FigureOptions
from asiworld.headless.multi import plan_runs, run_many
from asiworld.headless.run import RunConfig

# No figures: these check the runs and their tables (figures: tests/evaluation)
SMALL = ["--minutes", "2", "--size", "64", "--agents", "rusher,builder", "--figures", "none"]


def test_two_runs_write_e1_and_e2_with_their_own_reports_and_a_comparison(tmp_path, capsys):
    out = tmp_path / "eval"
    assert main(["run", "--seed", "3", "--runs", "2", "--out", str(out), *SMALL]) == 0
    for name, seed in (("E1", 3), ("E2", 4)):
        results = json.loads((out / name / "results.json").read_text())
        assert results["seed"] == seed and results["run"] == name
        assert (out / name / "report.md").is_file() and (out / name / "events.jsonl").is_file()
    comparison = json.loads((out / "comparison.json").read_text())
    assert len(comparison["runs"]) == 2
    main_table = (out / "report.md").read_text().split("## Table 3: Main evaluation")[1]
    row = next(line for line in main_table.splitlines() if "| rusher |" in line)
    assert row.count(" / ") >= 10  # every cell reads "E1 / E2"
    printed = json.loads(capsys.readouterr().out)
    assert [r["run"] for r in printed["runs"]] == ["E1", "E2"]


def test_seeds_name_the_worlds_of_the_runs_in_order(tmp_path, capsys):
    out = tmp_path / "eval"
    assert main(["run", "--seeds", "11,5", "--out", str(out), *SMALL]) == 0
    assert json.loads((out / "E1" / "results.json").read_text())["seed"] == 11
    assert json.loads((out / "E2" / "results.json").read_text())["seed"] == 5


def _comparable(results: dict) -> dict:
    rows = {c["name"]: (c["measures"], c["actions"], c["score"]) for c in results["configurations"]}
    return {"state_hash": results["state_hash"], "rows": rows}


def test_runs_on_two_local_processes_give_the_same_results_as_one_after_another(tmp_path):
    base = RunConfig(minutes=2, agents=["rusher", "builder", "forager"], size=64, record=False,
                     figures=FigureOptions(formats=()))
    quiet = lambda line: None  # noqa: E731
    sequential = run_many(plan_runs(base, [3, 4], tmp_path / "a"), workers=1, say=quiet)
    parallel = run_many(plan_runs(base, [3, 4], tmp_path / "b"), workers=2, say=quiet)
    assert [_comparable(r) for r in sequential] == [_comparable(r) for r in parallel]
    assert sequential[0]["state_hash"] != sequential[1]["state_hash"]  # two different worlds


def test_ray_without_the_ray_package_is_a_clear_error_and_writes_nothing(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` fail as if not installed
    out = tmp_path / "eval"
    code = main(["run", "--runs", "2", "--ray", "127.0.0.1:6379", "--out", str(out), *SMALL])
    assert code == 2
    err = capsys.readouterr().err
    assert "ray_unavailable" in err and "pip install ray" in err
    assert not out.exists()


def test_bad_repeat_arguments_exit_2_with_a_code_and_write_nothing(tmp_path, capsys):
    out = tmp_path / "eval"
    tries = [
        (["--runs", "0"], "--runs must be at least 1"),
        (["--seeds", "1,x"], "--seeds must be whole numbers"),
        (["--seeds", ","], "--seeds needs at least one seed"),
        (["--runs", "3", "--seeds", "1,2"], "does not match"),
        (["--workers", "0", "--runs", "2"], "--workers must be at least 1"),
        (["--stagger", "-1"], "--stagger must be 0 or more"),
    ]
    for extra, sentence in tries:
        assert main(["run", "--out", str(out), *SMALL, *extra]) == 2, extra
        err = capsys.readouterr().err
        assert "bad_argument" in err and sentence in err
    assert not out.exists()
