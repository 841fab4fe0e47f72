"""Figures a paper can use and progress over time (issue #37): no figure carries a baked
"Figure N" title; a dungeon clear without damage is a mark, not an empty bar; a comparison over
worlds draws intervals (whiskers, bands); --figures chooses the files without changing their
bytes and --figure-style paper fits one column; progress.csv gives score, Trial stage and tasks
minute by minute, ending at the run's results.

One small comparison (3 seeds, 5 minutes, 3 built-ins) serves the whole module: the suite is
near its time limit.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest
from asiworld.cli import main
from asiworld.evaluation import figure_data
from asiworld.evaluation.figures import dungeon_figure
from asiworld.evaluation.measures import LEVELS
from asiworld.evaluation.tables import pool
from PIL import Image

FIGURES = ("F4_dungeon_performance", "F5_actions", "F6_progress", "F7_profiles")


@pytest.fixture
def compared(seeds_folder: Path) -> Path:
    """The session's three-seed comparison (conftest.py), drawn with every figure."""
    return seeds_folder


def svg_text(path: Path) -> str:
    """The words a reader sees in an SVG figure (matplotlib writes them as comments too)."""
    return " ".join(re.findall(r"<!-- (.*?) -->", path.read_text(encoding="utf-8")))


def test_no_figure_has_a_baked_figure_number(compared):
    for folder in (compared, compared / "E1"):
        for stem in FIGURES:
            words = svg_text(folder / "figures" / f"{stem}.svg")
            assert words, stem  # the SVG does name its texts
            assert not re.search(r"Fig(ure|\.)\s*\d", words), (stem, words)
    md = (compared / "report.md").read_text(encoding="utf-8")
    assert "Figure 6: Progress by minute." in md  # the caption lives in the report


def test_a_comparison_draws_bands_over_worlds(compared):
    svg = (compared / "figures" / "F6_progress.svg").read_text(encoding="utf-8")
    assert 'id="band-planner-score"' in svg
    single = (compared / "E1" / "figures" / "F6_progress.svg").read_text(encoding="utf-8")
    assert 'id="band-' not in single  # one world: one line, no band


def dungeon_row(name: str, per_level: dict[int, tuple[int, int, int]]) -> dict:
    """A results row with (attempts, clears, clear damage) at the levels given, none elsewhere."""
    dungeons = {str(lv): dict(zip(("attempts", "clears", "clear_damage"),
                                  per_level.get(lv, (0, 0, 0)), strict=True))
                for lv in LEVELS}  # fmt: skip
    return {"name": name, "label": name, "dungeons": dungeons, "actions": {}}


def test_a_clear_without_damage_is_a_mark_on_the_zero_line(tmp_path):
    runs = [{"configurations": [dungeon_row("planner", {1: (2, 2, 0), 2: (1, 1, 40)})]}]
    dungeon_figure(tmp_path / "F4", pool(runs))
    svg = (tmp_path / "F4.svg").read_text(encoding="utf-8")
    assert 'id="zero-damage-planner-1"' in svg
    assert 'id="zero-damage-planner-2"' not in svg  # 40 damage is a bar of its own


def test_dungeon_bars_over_several_worlds_carry_intervals(tmp_path):
    worlds = [(2, 1, 30), (2, 2, 50), (3, 1, 10)]  # attempts, clears, damage at level 1
    runs = [{"configurations": [dungeon_row("planner", {1: w})]} for w in worlds]
    intervals = figure_data.dungeon_intervals(runs)
    low, high = intervals["planner"]["1"]["share"]
    assert low < 100 * 4 / 7 < high  # the pooled share, 4 clears in 7 attempts, inside
    assert intervals["planner"]["2"] == {"share": None, "damage": None}  # never tried
    dungeon_figure(tmp_path / "F4", pool(runs), runs=3, intervals=intervals)
    assert 'id="interval-planner-1"' in (tmp_path / "F4.svg").read_text(encoding="utf-8")


def test_figures_option_chooses_the_files_not_their_bytes(compared, tmp_path):
    drawn_by_run = {stem: (compared / "E1" / "figures" / f"{stem}.png").read_bytes()
                    for stem in FIGURES}  # fmt: skip
    png, none = tmp_path / "png", tmp_path / "none"
    for copy in (png, none):
        shutil.copytree(compared / "E1", copy)
        shutil.rmtree(copy / "figures")
    assert main(["report", str(png), "--figures", "png"]) == 0
    assert sorted(p.name for p in (png / "figures").iterdir()) == [f"{s}.png" for s in FIGURES]
    for stem in FIGURES:  # `asiworld run` wrote every format; `report` PNGs only
        assert (png / "figures" / f"{stem}.png").read_bytes() == drawn_by_run[stem], stem
    assert "[SVG]" not in (png / "report.md").read_text(encoding="utf-8")
    assert main(["report", str(none), "--figures", "none"]) == 0
    assert not (none / "figures").exists()
    md = (none / "report.md").read_text(encoding="utf-8")
    assert "![Figure" not in md and "Not drawn: --figures none" in md
    assert (none / "progress.csv").is_file()  # the data is written all the same


def test_paper_style_is_one_column_wide(compared, tmp_path):
    paper = tmp_path / "paper"
    shutil.copytree(compared / "E1", paper)
    assert main(["report", str(paper), "--figure-style", "paper", "--figures", "png"]) == 0
    with Image.open(paper / "figures" / "F6_progress.png") as image:
        assert image.width == round(3.4 * 200)  # 3.4 in at 200 dpi
    screen = (compared / "E1" / "figures" / "F6_progress.png").read_bytes()
    assert (paper / "figures" / "F6_progress.png").read_bytes() != screen


@pytest.mark.parametrize("command", [["run", "--minutes", "1"], ["report", "x"],
                                     ["study", "run", "x.toml", "--out", "y"]])  # fmt: skip
def test_bad_figure_options_are_refused_with_their_choices(command, capsys):
    for option, bad, choices in (("--figures", "jpeg", "'all', 'png', 'none'"),
                                 ("--figure-style", "print", "'screen', 'paper'")):  # fmt: skip
        assert main([*command, option, bad]) == 2
        err = capsys.readouterr().err
        assert f"{option}: invalid choice: '{bad}'" in err and choices in err, err


PROGRESS_COLUMNS = ["run", "seed", "configuration", "character", "minute", "score", "trial",
                    "outfit", "hero"]  # fmt: skip


def test_progress_csv_has_a_row_per_run_character_and_minute(compared):
    with (compared / "progress.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == PROGRESS_COLUMNS
    assert len(rows) == 3 * 3 * 5  # worlds x characters x minutes
    assert {r["run"] for r in rows} == {"E1", "E2", "E3"}
    assert {(r["run"], r["seed"]) for r in rows} == {("E1", "1"), ("E2", "2"), ("E3", "3")}
    assert {r["configuration"] for r in rows} == {"planner", "forager", "random"}
    assert sorted({int(r["minute"]) for r in rows}) == [1, 2, 3, 4, 5]
    for r in rows:
        int(r["character"]), int(r["trial"]), float(r["score"])  # noqa: B018 - they parse
        assert r["outfit"] in ("0", "1") and r["hero"] in ("0", "1")


def test_the_progress_of_a_run_ends_at_its_results(compared):
    results = json.loads((compared / "E1" / "results.json").read_text(encoding="utf-8"))
    with (compared / "E1" / "progress.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    last = max(int(r["minute"]) for r in rows)
    assert last == results["meta"]["minutes"]
    final = {int(r["character"]): r for r in rows if int(r["minute"]) == last}
    for row in results["configurations"]:
        assert float(final[row["id"]]["score"]) == pytest.approx(row["score"])
        assert int(final[row["id"]]["trial"]) == row["measures"]["trial"]
        assert int(final[row["id"]]["outfit"]) == int(row["measures"]["outfit"])
    scores = {int(r["character"]): [] for r in rows}
    for r in rows:
        scores[int(r["character"])].append(float(r["score"]))
    assert any(len(set(s)) > 1 for s in scores.values())  # it moves minute by minute
