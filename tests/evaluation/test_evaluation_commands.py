"""`asiworld score FILE.csv` and `asiworld report DIR...`.

Bad inputs tried: a missing file, an empty file, a header without rows, a missing column, a bad
boolean, a negative number, a decimal, depth and trial above their maxima, a duplicate name,
a short row; a run directory that does not exist, one without events.jsonl, and an events file
with a broken line. Each must exit 2 with `error: <code>:` and write nothing.
"""

from __future__ import annotations

import json

import pytest
from asiworld.cli import main
from asiworld.evaluation import evaluate, write_reports
from asiworld.evaluation.figure_options import FigureOptions
from eval_streams import COHORT, cohort_stream

HEADER = "name,outfit,depth,hero,kills,bosses,crafts,coins,trial,downs\n"


def write(tmp_path, text: str, name: str = "rows.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_score_prints_each_configuration_with_score_and_rank(tmp_path, capsys):
    csv = HEADER + "rusher,N,1,N,40,2,8,35,1,6\nplanner,Y,3,Y,31,4,52,120,8,1\n"
    assert main(["score", write(tmp_path, csv)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["rank", "configuration", "score"]
    assert lines[1].split() == ["1", "planner", "100.0"]
    # rusher: 15·1/3 + 15·2/4 + 25·8/52 + 5·1/8 = 5 + 7.5 + 3.846 + 0.625 = 16.97
    assert lines[2].split() == ["2", "rusher", "17.0"]


def test_score_accepts_every_boolean_spelling_and_any_column_order(tmp_path, capsys):
    csv = "downs,trial,coins,crafts,bosses,kills,hero,depth,outfit,name,notes\n"
    csv += "0,0,0,0,0,0,true,0,1,a,x\n0,0,0,0,0,0,FALSE,0,y,b,\n0,0,0,0,0,0,0,0,n,c,\n"
    assert main(["score", "--json", write(tmp_path, csv)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["name"], r["score"]) for r in rows] == [("a", 40.0), ("b", 10.0), ("c", 0.0)]


@pytest.mark.parametrize(
    "text, code",
    [
        ("", "empty_file"),
        ("\n  \n", "empty_file"),
        (HEADER, "no_rows"),
        ("name,outfit,depth,hero,kills,bosses,crafts,coins,trial\nx,Y,1,N,0,0,0,0,0\n",
         "missing_column"),
        (HEADER + "x,maybe,1,N,0,0,0,0,0,0\n", "bad_boolean"),
        (HEADER + "x,Y,1,N,-3,0,0,0,0,0\n", "negative_number"),
        (HEADER + "x,Y,1,N,2.5,0,0,0,0,0\n", "bad_number"),
        (HEADER + "x,Y,1,N,,0,0,0,0,0\n", "bad_number"),
        (HEADER + "x,Y,4,N,0,0,0,0,0,0\n", "out_of_range"),
        (HEADER + "x,Y,1,N,0,0,0,0,9,0\n", "out_of_range"),
        (HEADER + "x,Y,1,N,0,0,0,0,0,0\nx,N,0,N,0,0,0,0,0,0\n", "duplicate_name"),
        (HEADER + ",Y,1,N,0,0,0,0,0,0\n", "empty_name"),
        (HEADER + "x,Y,1\n", "short_row"),
    ],
)  # fmt: skip
def test_a_bad_table_is_refused_with_a_stable_code(tmp_path, capsys, text, code):
    assert main(["score", write(tmp_path, text)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"error: {code}: ")


def test_score_of_a_missing_file_says_so(tmp_path, capsys):
    assert main(["score", str(tmp_path / "nope.csv")]) == 2
    assert capsys.readouterr().err.startswith("error: file_not_found: ")


def make_run(tmp_path, name: str, events, meta) -> str:
    run = tmp_path / name
    run.mkdir()
    with (run / "events.jsonl").open("w") as fh:
        for e in events:
            fh.write(json.dumps(e) + "\n")
    # The run's own figures are not read here (the comparison's are): not drawn.
    write_reports(run, evaluate(events, COHORT, meta), figures=FigureOptions(formats=()))
    return str(run)


def test_report_rebuilds_a_run_and_keeps_its_meta(tmp_path, capsys):
    run = make_run(tmp_path, "e1", cohort_stream(), {"seed": 7, "wall_seconds": 3.5})
    results_path = tmp_path / "e1" / "results.json"
    before = json.loads(results_path.read_text())
    before["spread"] = {"strongest_completes_both_tasks": True}  # a key the run added
    results_path.write_text(json.dumps(before))
    (tmp_path / "e1" / "report.md").unlink()
    assert main(["report", run, "--figures", "none"]) == 0
    after = json.loads((tmp_path / "e1" / "results.json").read_text())
    assert after == before
    assert (tmp_path / "e1" / "report.md").read_text().startswith("# ASIWorld evaluation report")


def test_report_compares_runs_with_e1_e2_cells(tmp_path, capsys):
    events = cohort_stream()
    e1 = make_run(tmp_path, "e1", events, {"seed": 7})
    fewer = [e for e in events if e["tick"] <= 9000]  # the second run stopped earlier
    e2 = make_run(tmp_path, "e2", fewer, {"seed": 8})
    assert main(["report", e1, e2]) == 0
    comparison = tmp_path / "comparison"
    md = (comparison / "report.md").read_text()
    assert "runs compared" in md and "**E1**: seed 7" in md and "**E2**: seed 8" in md
    planner = next(line for line in md.splitlines() if line.startswith("| 1 / 1 | planner"))
    assert "| Y / N |" in planner  # hero in E1, not yet in E2
    for suffix in ("png", "svg", "pdf"):
        assert (comparison / "figures" / f"F5_actions.{suffix}").is_file()
    assert "Figure 4: Dungeon performance by difficulty level (pooled over E1–E2)" in md
    assert (
        json.loads((comparison / "comparison.json").read_text())["configurations"][0] == "planner"
    )


@pytest.mark.parametrize("setup, code", [("missing", "run_dir_missing"), ("empty", "events_missing"),
                                         ("broken", "bad_events_line")])  # fmt: skip
def test_report_refuses_a_bad_run_directory(tmp_path, capsys, setup, code):
    run = tmp_path / "run"
    if setup != "missing":
        run.mkdir()
    if setup == "broken":
        (run / "events.jsonl").write_text('{"tick": 1, "kind": "said"}\n{not json\n')
    assert main(["report", str(run)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {code}: ")
    assert not (run / "report.md").exists()
