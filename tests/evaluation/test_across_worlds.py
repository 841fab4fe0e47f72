"""Statistics across worlds: the long-format CSV, means with bootstrap intervals, success rates,
paired differences against a reference, and `asiworld report` on seed folders and mixed runs.

One small real study (three seeds, five minutes, three built-in configurations: conftest.py's
`seeds_folder`) serves the file tests; the statistics are also checked on numbers with known answers."""

from __future__ import annotations

import csv
import json
import shutil

import numpy as np
import pytest
from asiworld.cli import main
from asiworld.evaluation import aggregate, longform, stats
from scipy import stats as scipy_stats

from tests.evaluation.conftest import AGENTS


def read_csv(path):
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_results_csv_has_one_numeric_row_per_run_configuration_and_measure(seeds_folder):
    rows = read_csv(seeds_folder / "results.csv")
    assert tuple(rows[0]) == longform.COLUMNS
    assert {r["run"] for r in rows} == {"E1", "E2", "E3"}
    assert {r["seed"] for r in rows} == {"1", "2", "3"}
    assert {r["configuration"] for r in rows} == set(AGENTS.split(","))
    assert {r["measure"] for r in rows} == set(longform.MEASURES)
    keys = [(r["run"], r["configuration"], r["measure"]) for r in rows]
    assert len(keys) == len(set(keys)) == 3 * 3 * len(longform.MEASURES)
    for r in rows:
        int(r["character"])
        if r["value"] != "":
            float(r["value"])  # every value is a number or empty
    yes_no = [float(r["value"]) for r in rows if r["measure"] in longform.RATES]
    assert set(yes_no) <= {0.0, 1.0}
    one_run = read_csv(seeds_folder / "E1" / "results.csv")
    assert one_run == [r for r in rows if r["run"] == "E1"]


def test_aggregates_and_paired_csv_columns_and_types(seeds_folder):
    agg = read_csv(seeds_folder / "aggregates.csv")
    assert tuple(agg[0]) == stats.ESTIMATE_COLUMNS
    score = {r["configuration"]: r for r in agg if r["measure"] == "score"}
    assert set(score) == set(AGENTS.split(","))
    for r in score.values():
        assert r["kind"] == "mean" and r["worlds"] == "3"
        assert float(r["low"]) <= float(r["mean"]) <= float(r["high"])
    assert {r["kind"] for r in agg if r["measure"] in ("outfit", "hero")} == {"rate"}
    paired = read_csv(seeds_folder / "paired.csv")
    assert tuple(paired[0]) == stats.PAIRED_COLUMNS
    reference = json.loads((seeds_folder / "comparison.json").read_text())["reference"]
    assert {r["reference"] for r in paired} == {reference}
    assert reference not in {r["configuration"] for r in paired}


def test_the_comparison_report_ranks_by_mean_score_and_warns_below_five_worlds(seeds_folder):
    report = (seeds_folder / "report.md").read_text(encoding="utf-8")
    across = report[report.index("## Across worlds"):report.index("## Behaviour")]
    assert "Only 3 worlds" in across
    summary = json.loads((seeds_folder / "comparison.json").read_text())
    means = {a["configuration"]: a["mean"] for a in summary["aggregates"]
             if a["measure"] == "score"}
    table_rows = [line.split(" | ")[0].strip("| ") for line in across.splitlines()
                  if line.startswith("| ") and not line.startswith("| Configuration")]
    assert table_rows == sorted(means, key=lambda n: -means[n])
    assert summary["worlds"] == 3 and summary["warning"]
    assert len(summary["rows"]) == 3 * 3 * len(longform.MEASURES)


def test_the_bootstrap_is_scipys_on_the_same_numbers():
    scores = np.array([6.1, 98.1, 100.0, 25.0, 97.1])
    low, high = stats.bootstrap_means(scores[None, :])
    direct = scipy_stats.bootstrap((scores,), np.mean, confidence_level=0.95, n_resamples=9999,
                                   method="percentile", rng=np.random.default_rng(stats.SEED))
    assert (low[0], high[0]) == (direct.confidence_interval.low, direct.confidence_interval.high)
    assert low[0] < scores.mean() < high[0]


def test_a_success_rate_has_the_wilson_interval():
    assert stats.wilson(0, 3) == pytest.approx((0.0, 0.5615), abs=1e-4)
    assert stats.wilson(3, 3) == pytest.approx((0.4385, 1.0), abs=1e-4)


def rows_of(values: dict[str, list[float]], measure: str = "score") -> list[dict]:
    """Long-format rows: configuration -> its value in worlds E1, E2, ..."""
    return [{"run": f"E{i + 1}", "seed": i + 1, "configuration": name, "character": n,
             "measure": measure, "value": v}
            for n, (name, vs) in enumerate(values.items()) for i, v in enumerate(vs)]


def test_a_configuration_compared_with_itself_differs_by_zero():
    scores = [6.1, 98.1, 100.0, 25.0, 97.1, 94.0]
    (same,) = [p for p in stats.paired(rows_of({"planner": scores, "copy": scores}), "planner")
               if p.measure == "score"]
    assert same.mean_difference == 0 and same.low <= 0 <= same.high
    assert (same.ahead, same.behind, same.level, same.sign_p) == (0, 0, 6, 1.0)


def test_a_configuration_ahead_in_every_world_by_five():
    base = [10.0, 40.0, 25.0, 70.0, 55.0, 15.0]
    (diff,) = [p for p in stats.paired(rows_of({"base": base, "better": [b + 5 for b in base]}),
                                       "base") if p.measure == "score"]
    assert (diff.mean_difference, diff.low, diff.high) == pytest.approx((5.0, 5.0, 5.0))
    assert (diff.ahead, diff.behind, diff.worlds) == (6, 0, 6)
    assert diff.sign_p == pytest.approx(2 * 0.5**6)


def test_two_characters_of_a_configuration_in_one_world_count_as_one_world():
    rows = rows_of({"planner": [10.0, 30.0]}) + [
        {"run": "E1", "seed": 1, "configuration": "planner", "character": 9,
         "measure": "score", "value": 20.0}]
    (score,) = [e for e in stats.estimates(rows) if e.measure == "score"]
    assert score.worlds == 2 and score.mean == pytest.approx((15.0 + 30.0) / 2)


def test_five_worlds_are_enough_to_drop_the_warning():
    rows = rows_of({"a": [1.0, 2.0, 3.0, 4.0, 5.0], "b": [2.0] * 5})
    agg = aggregate.Aggregate(rows, stats.estimates(rows), stats.paired(rows, "a"), "a", 5)
    assert agg.warning() is None
    assert "Only 4 worlds" in aggregate.Aggregate(rows, [], [], "a", 4).warning()


def test_report_on_a_seeds_folder_compares_its_runs_in_place(seeds_folder, tmp_path, capsys):
    copy = tmp_path / "copy"
    shutil.copytree(seeds_folder, copy)
    (copy / "report.md").unlink()
    assert main(["report", str(copy), "--reference", "random", "--figures", "none"]) == 0
    assert "written to" in capsys.readouterr().out
    assert "Δ score vs random" in (copy / "report.md").read_text(encoding="utf-8")
    assert {r["reference"] for r in read_csv(copy / "paired.csv")} == {"random"}


def snapshot(folder):
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize("argv, code", [
    (["--reference", "nobody"], "unknown_reference"),  # not a configuration of these runs
    (["--reference", ""], "unknown_reference"),
])
def test_a_bad_reference_is_refused_and_changes_nothing(seeds_folder, tmp_path, capsys, argv,
                                                         code):
    copy = tmp_path / "copy"
    shutil.copytree(seeds_folder, copy)
    before = snapshot(copy)
    assert main(["report", str(copy), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {code}: ") and "Traceback" not in err
    assert snapshot(copy) == before


def test_reference_with_one_run_is_refused(seeds_folder, capsys):
    assert main(["report", str(seeds_folder / "E1"), "--reference", "planner"]) == 2
    assert capsys.readouterr().err.startswith("error: bad_argument: ")


def test_runs_of_different_horizons_are_not_compared_unless_allowed(seeds_folder, tmp_path,
                                                                    capsys):
    short = tmp_path / "short"
    assert main(["run", "--seed", "1", "--minutes", "3", "--agents", AGENTS, "--out",
                 str(short), "--figures", "none"]) == 0
    capsys.readouterr()
    five = tmp_path / "five"
    shutil.copytree(seeds_folder / "E1", five)
    before = snapshot(five)
    out = tmp_path / "compared"
    assert main(["report", str(five), str(short), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: mixed_runs: ") and "horizon: E1 5 minutes, E2 3 minutes" in err
    assert not out.exists() and snapshot(five) == before
    assert main(["report", str(five), str(short), "--out", str(out), "--allow-mixed",
                 "--figures", "none"]) == 0
    assert "not repeats of one setting: horizon" in (out / "report.md").read_text("utf-8")
