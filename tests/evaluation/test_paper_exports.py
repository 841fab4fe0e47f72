"""From a study to a paper: the LaTeX tables beside the CSVs, the results schema, and
`asiworld leaderboard` across studies of one setting.

The small real study of conftest.py (three seeds, five minutes) is read, never changed: a test
that tampers with results copies it first. The LaTeX is read by latex_check.py; when pdflatex is
installed it is also compiled."""

from __future__ import annotations

import csv
import html.parser
import json
import shutil
import subprocess

import pytest
from asiworld.cli import main
from asiworld.evaluation import aggregate, latex, results_schema, tables

from tests.evaluation.latex_check import problems

ODD_NAME = "fast_forager & 50% #1 {x}"


def read_csv(path):
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def renamed(runs, old, new):
    """The runs with configuration `old` called `new` (a name a paper must escape)."""
    runs = json.loads(json.dumps(runs))
    for run in runs:
        for row in run["configurations"]:
            if row["name"] == old:
                row["name"] = new
    return runs


# --- LaTeX ---------------------------------------------------------------------------------------


def test_a_comparison_and_each_run_write_their_tables_as_latex(seeds_folder):
    for name in ("across_worlds.tex", "T3_main.tex", "T9_activity.tex"):
        text = (seeds_folder / "tables" / name).read_text(encoding="utf-8")
        assert problems(text) == [], name
        assert text.lstrip().startswith("%")  # the caption, as a comment above the tabular
    single = sorted(p.name for p in (seeds_folder / "E1" / "tables").glob("*.tex"))
    assert single == ["T3_main.tex", "T9_activity.tex"]  # no statistics across one world
    assert problems((seeds_folder / "E1" / "tables" / "T3_main.tex").read_text()) == []


def test_across_worlds_in_latex_has_every_configuration_with_its_interval_and_the_best_in_bold(
        seeds_folder):
    summary = json.loads((seeds_folder / "comparison.json").read_text())
    text = (seeds_folder / "tables" / "across_worlds.tex").read_text(encoding="utf-8")
    body = text[text.index("\\midrule"):text.index("\\bottomrule")].splitlines()[1:]
    means = {a["configuration"]: a for a in summary["aggregates"] if a["measure"] == "score"}
    ranked = sorted(means, key=lambda n: -means[n]["mean"])
    assert [row.split(" & ")[0] for row in body] == ranked
    best = means[ranked[0]]
    assert f"\\textbf{{{best['mean']:.1f} [{best['low']:.1f}, {best['high']:.1f}]}}" in body[0]
    assert "\\textbf" not in body[-1].split(" & ")[2]  # the worst score is not in bold


def test_names_with_latex_special_characters_are_escaped(seeds_folder, tmp_path):
    runs = renamed(json.loads((seeds_folder / "comparison.json").read_text())["results"],
                   "forager", ODD_NAME)
    paths = latex.write(tmp_path, runs, aggregate.aggregate(runs))
    for path in paths.values():
        text = path.read_text(encoding="utf-8")
        assert problems(text) == [], path.name
        assert r"fast\_forager \& 50\% \#1 \{x\}" in text


def test_the_checker_finds_what_breaks_a_paper():
    broken = latex.tabular(["a", "b"], [["1", "2"]], "lr").replace(r"\\", "", 1)
    assert problems(broken)
    raw = "\\begin{tabular}{lr}\n\\toprule\nx & y \\\\\n\\midrule\nfast_forager & 5 \\\\\n" \
          "\\bottomrule\n\\end{tabular}\n"
    assert any("unescaped" in p for p in problems(raw))
    assert any("rules" in p for p in problems(raw.replace("\\midrule\n", "")))
    with pytest.raises(ValueError):
        latex.tabular(["a", "b"], [["1"]], "lr")


def test_the_tables_compile_with_pdflatex(seeds_folder, tmp_path):
    assert shutil.which("pdflatex"), "pdflatex is missing: `make test` installs it (install-tex)"
    runs = renamed(json.loads((seeds_folder / "comparison.json").read_text())["results"],
                   "forager", ODD_NAME)
    paths = latex.write(tmp_path, runs, aggregate.aggregate(runs))
    inputs = "\n".join(f"\\input{{{p.as_posix()}}}\n\\bigskip\n" for p in paths.values())
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs,amssymb}\n\\begin{document}\n"
        f"{inputs}\\end{{document}}\n", encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]


# --- the results schema --------------------------------------------------------------------------


def test_what_a_run_and_a_comparison_write_passes_the_results_schema(seeds_folder):
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(results_schema.schema())
    for path in (seeds_folder / "comparison.json", seeds_folder / "E1" / "results.json"):
        assert results_schema.problem(json.loads(path.read_text())) is None, path


def test_the_schema_names_the_field_that_is_wrong(seeds_folder):
    run = json.loads((seeds_folder / "E1" / "results.json").read_text())
    run["configurations"][0]["score"] = "x"
    assert results_schema.problem(run) == "configurations[0].score: 'x' is not of type 'number'"
    run = json.loads((seeds_folder / "E1" / "results.json").read_text())
    del run["meta"]["content_hash"]
    assert results_schema.problem(run) == "meta: 'content_hash' is a required property"
    assert "is not one of" in results_schema.problem({"schema": "asiworld-evaluation/9"})


# --- the leaderboard -----------------------------------------------------------------------------


@pytest.fixture
def two_studies(seeds_folder, tmp_path):
    """Study "a": the three seeds as they are; study "b": the same with prices, its forager a
    model seat that cost 0.25 dollars per world."""
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(seeds_folder, a)
    shutil.copytree(seeds_folder, b)
    data = json.loads((b / "comparison.json").read_text())
    for run in data["results"]:
        run["costs"] = [{"name": "forager", "kind": "openai", "calls": 10, "dollars": 0.25},
                        {"name": "planner", "kind": "builtin", "calls": 0}]
    (b / "comparison.json").write_text(json.dumps(data))
    return a, b


def test_a_leaderboard_ranks_the_configurations_of_two_studies_by_mean_score(
        two_studies, tmp_path, capsys):
    a, b = two_studies
    board = tmp_path / "board"
    assert main(["leaderboard", str(a), str(b), str(a / "E1"), "--out", str(board)]) == 0
    assert "9 configurations of 3 studies (7 worlds)" in capsys.readouterr().out
    assert sorted(p.name for p in board.iterdir()) == [
        "leaderboard.csv", "leaderboard.html", "leaderboard.md", "leaderboard.tex"]
    rows = read_csv(board / "leaderboard.csv")
    assert [float(r["score"]) for r in rows] == sorted((float(r["score"]) for r in rows),
                                                       reverse=True)
    assert [r["rank"] for r in rows] == [str(i) for i in range(1, 10)]
    keyed = {(r["study"], r["configuration"]): r for r in rows}
    assert set(keyed) == {(str(s), n) for s in (a, b, a / "E1")
                          for n in ("planner", "forager", "random")}
    summary = json.loads((a / "comparison.json").read_text())
    for est in summary["aggregates"]:  # each study's own statistics, over its own worlds
        if est["measure"] in ("score", "outfit", "hero"):
            row = keyed[(str(a), est["configuration"])]
            assert row["worlds"] == "3"
            assert float(row[est["measure"]]) == pytest.approx(est["mean"])
            assert float(row[f"{est['measure']}_low"]) == pytest.approx(est["low"])
    single = keyed[(str(a / "E1"), "planner")]
    assert single["worlds"] == "1" and single["score_low"] == ""  # no interval from one world
    priced, free = keyed[(str(b), "forager")], keyed[(str(b), "planner")]
    assert float(priced["dollars_per_world"]) == pytest.approx(0.25)
    assert float(priced["score_per_dollar"]) == pytest.approx(float(priced["score"]) / 0.25)
    assert free["dollars_per_world"] == free["score_per_dollar"] == ""
    assert keyed[(str(a), "forager")]["dollars_per_world"] == ""  # no prices: no dollars
    assert problems((board / "leaderboard.tex").read_text()) == []
    md = (board / "leaderboard.md").read_text()
    assert "horizon 5 minutes" in md and "clock headless lockstep, 3 ticks per decision" in md


def test_the_leaderboard_page_is_self_contained_and_sortable(two_studies, tmp_path):
    a, b = two_studies
    data = json.loads((b / "comparison.json").read_text())
    data["results"] = renamed(data["results"], "random", "<b>random</b>")
    (b / "comparison.json").write_text(json.dumps(data))
    board = tmp_path / "board"
    assert main(["leaderboard", str(a), str(b), "--out", str(board)]) == 0
    text = (board / "leaderboard.html").read_text(encoding="utf-8")

    class Page(html.parser.HTMLParser):
        tags, refs, rows = [], [], 0

        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)
            self.refs += [(tag, k, v) for k, v in attrs if k in ("src", "href", "srcset",
                                                                 "action", "data", "poster")]
            self.rows += tag == "tr"

    page = Page()
    page.feed(text)
    assert page.refs == []  # nothing fetched: no link, image, script or frame by address
    assert not {"link", "img", "iframe", "object", "embed", "base"} & set(page.tags)
    assert "url(" not in text and "@import" not in text and "://" not in text
    assert page.tags.count("script") == 1 and "addEventListener" in text  # sorts by header
    assert page.rows == 1 + 6
    assert "&lt;b&gt;random&lt;/b&gt;" in text and "<b>random</b>" not in text


def refused(argv, capsys):
    assert main(argv) == 2
    return capsys.readouterr().err.strip()


def test_results_that_fail_the_schema_are_refused_with_the_field_named_and_nothing_written(
        two_studies, tmp_path, capsys):
    a, b = two_studies
    board = tmp_path / "board"
    board.mkdir()
    (board / "leaderboard.md").write_text("earlier board")
    argv = ["leaderboard", str(a), str(b), "--out", str(board)]

    data = json.loads((b / "comparison.json").read_text())
    data["results"][0]["configurations"][0]["score"] = "x"  # a score as a string
    (b / "comparison.json").write_text(json.dumps(data))
    assert refused(argv, capsys) == (
        f"error: bad_results: {b}/comparison.json: results[0].configurations[0].score: "
        "'x' is not of type 'number'")

    run = json.loads((a / "E1" / "results.json").read_text())
    run["configurations"][1]["score"] = "x"  # the same in a single run's results.json
    (a / "E1" / "results.json").write_text(json.dumps(run))
    assert refused(["leaderboard", str(a / "E1"), "--out", str(board)], capsys) == (
        f"error: bad_results: {a}/E1/results.json: configurations[1].score: "
        "'x' is not of type 'number'")

    del data["configurations"]  # a missing key
    (b / "comparison.json").write_text(json.dumps(data))
    assert refused(argv, capsys) == (
        f"error: bad_results: {b}/comparison.json: 'configurations' is a required property")

    (b / "comparison.json").write_text("{not json")
    assert refused(argv, capsys).startswith(f"error: bad_results: {b}/comparison.json: not JSON")

    (b / "comparison.json").unlink()
    assert refused(argv, capsys).startswith(f"error: results_missing: {b} holds neither")
    assert [p.name for p in board.iterdir()] == ["leaderboard.md"]
    assert (board / "leaderboard.md").read_text() == "earlier board"


def test_studies_of_another_content_or_horizon_are_not_ranked_together(two_studies, tmp_path,
                                                                        capsys):
    a, b = two_studies
    board = tmp_path / "board"
    data = json.loads((b / "comparison.json").read_text())
    data["results"][2]["meta"]["content_hash"] = "0123abcd"  # other rules in one of b's worlds
    (b / "comparison.json").write_text(json.dumps(data))
    hash_a = json.loads((a / "comparison.json").read_text())["results"][0]["meta"]["content_hash"]
    assert refused(["leaderboard", str(a), str(b), "--out", str(board)], capsys) == (
        "error: mixed_studies: these results are not one setting and are not ranked together "
        f"(content hash: {a} {hash_a}, {b} {hash_a} and 0123abcd)")
    data = json.loads((a / "comparison.json").read_text())
    for run in data["results"]:
        run["meta"]["minutes"] = 10
    (b / "comparison.json").write_text(json.dumps(data))
    assert "(horizon: " in refused(["leaderboard", str(a), str(b), "--out", str(board)], capsys)
    assert "same results" in refused(["leaderboard", str(a), str(a) + "/", "--out", str(board)],
                                     capsys)
    assert not board.exists()


def test_the_tables_module_still_writes_t3_from_the_same_grid_as_the_csv(seeds_folder):
    runs = json.loads((seeds_folder / "comparison.json").read_text())["results"]
    header, rows = tables.main_rows(runs)
    tex = latex.grid_tex(tables.TABLES[1], runs)
    assert tex.count(r" \\") == 1 + len(rows)
    assert " & ".join(header) + r" \\" in tex
