"""Report generation: results.json, report.md with every table, and the three figures (PNG, SVG, PDF).

Bad inputs tried: a run where nobody entered a dungeon or acted (empty figures must still
draw), a single configuration, many configurations with long names, blank lines in events.jsonl.
"""

from __future__ import annotations

import json

import pytest
from asiworld.evaluation import evaluate, load_events, write_reports
from eval_streams import COHORT, cohort_stream, ev
from PIL import Image

META = {"seed": 7, "minutes": 300, "ticks": 18000, "wall_seconds": 41.2, "state_hash": "9f3a"}


def build(tmp_path, events=None, characters=COHORT):
    results = evaluate(cohort_stream() if events is None else events, characters, META)
    paths = write_reports(tmp_path, results)
    return results, paths


@pytest.fixture(scope="module")
def cohort_report(tmp_path_factory):
    """The cohort's report, written once for the tests that only read it: (folder, paths)."""
    folder = tmp_path_factory.mktemp("cohort-report")
    return folder, build(folder)[1]


def assert_valid_png(path, min_w=600, min_h=400):
    with Image.open(path) as img:
        img.verify()
    with Image.open(path) as img:
        assert img.format == "PNG"
        w, h = img.size
        assert min_w <= w <= 4000 and min_h <= h <= 3000
        # Not a blank canvas: a chart has many colours.
        assert len(img.convert("RGB").getcolors(maxcolors=100000) or []) > 20


def test_reports_write_json_csv_markdown_tables_and_three_figures_in_three_formats(cohort_report):
    paths = dict(cohort_report[1])
    tables = paths.pop("tables")
    latex = paths.pop("latex")  # the tables a paper \inputs (test_paper_exports.py)
    assert {p.name for p in latex.values()} == {"T3_main.tex", "T9_activity.tex"}
    assert {p.name for p in paths.values()} == {
        "results.json",
        "results.csv",
        "progress.csv",
        "report.md",
        "F4_dungeon_performance.png",
        "F5_actions.png",
        "F6_progress.png",
        "F7_profiles.png",
        "profiles.csv",
        "knockdowns.csv",
    }
    for key in ("dungeons", "actions", "progress", "profiles"):
        assert_valid_png(paths[key])
        assert paths[key].with_suffix(".svg").read_text().lstrip().startswith("<?xml")
        assert paths[key].with_suffix(".pdf").read_bytes().startswith(b"%PDF")
    assert sorted(tables) == ["F4", "F5", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9"]
    assert all(p.is_file() and p.parent.name == "tables" for p in tables.values())


def test_results_json_has_meta_and_every_measure_per_configuration(cohort_report):
    data = json.loads((cohort_report[0] / "results.json").read_text())
    assert data["meta"] == META
    row = data["configurations"][0]
    for key in ("outfit", "depth", "hero", "kills", "bosses", "crafts", "coins", "trial"):
        assert key in row["measures"]
    for key in ("downs", "days", "damage_taken", "supplies_used", "score"):
        assert key in row["measures"]
    assert set(row["dungeons"]) == {"1", "2", "3", "4"}
    assert len(row["achievements"]["stages"]) == 8
    assert row["achievements"]["stages"][0]["evidence"]  # planner met Foothold, with proof
    assert {"rank", "score", "score_shown", "actions", "incidents", "label"} <= set(row)


def test_markdown_has_every_table(cohort_report):
    md = (cohort_report[0] / "report.md").read_text()
    for heading in (
        "## Table 2: Main evaluation setting",
        "## Table 3: Main evaluation: task success and activity",
        "## Table 4: Development achievements attained by each configuration",
        "## Table 5: Service interruptions (incidents)",
        "## Table 6: Components and weights of the composite score",
        "## Table 7: Achievement records",
        "## Table 8: Curriculum completion",
        "## Table 9: Activity and survival outcomes",
        "## Figure 4: Dungeon performance by difficulty level",
        "## Figure 5: Composition of executed game actions by category",
    ):
        assert heading in md
    assert (
        "| Rank | Configuration | Outfit | Depth | Hero | Kills | Bosses | Crafts | Coins |" in md
    )
    assert "| 1 | planner | Y | 3 | Y |" in md
    assert "| 8. Hero | ✓ 238.2 |" in md
    assert "| builder | 0/8 | 0.0% | Foothold | a usable bed; self-crafted equipment equipped |" in md
    assert "| random | model_error | 10.0 | 14.0 | 240 |" in md
    assert "![Figure 4](figures/F4_dungeon_performance.png)" in md
    assert "seed 7, minutes 300, ticks 18000, wall_seconds 41.2, state_hash 9f3a" in md


def test_an_idle_run_still_draws_its_figures(tmp_path):
    joined = [ev(0, "joined", 1, name="idle", label="random", x=0, y=0)]
    results, paths = build(tmp_path, joined, [])
    assert results["configurations"][0]["score"] == 0
    for key in ("dungeons", "actions"):
        with Image.open(paths[key]) as img:
            assert img.size[0] >= 600
    assert "No service interruptions." in (tmp_path / "report.md").read_text()


def test_many_configurations_with_long_names_fit_the_figures(tmp_path):
    chars = [{"id": i, "name": f"configuration-with-a-long-name-{i}"} for i in range(12)]
    events = [
        ev(1, "action", i, op=1, type="move", category="movement", args={}) for i in range(12)
    ]
    _, paths = build(tmp_path, events, chars)
    assert_valid_png(paths["actions"], min_w=1200)


def test_load_events_reads_jsonl_and_skips_blank_lines(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text(
        '{"tick": 1, "kind": "said", "char": 1, "text": "hi"}\n\n{"tick": 2, "kind": "day", "day": 1, "phase": "dusk"}\n'
    )
    assert [e["tick"] for e in load_events(path)] == [1, 2]


def test_progress_trial_and_days_are_shown_in_the_papers_style():
    from asiworld.evaluation.tables import activity_table, main_table, tenth

    row = {"name": "glm", "rank": 1, "score_shown": "75.0", "achievements": {"trial": 1},
           "measures": {"outfit": True, "depth": 3, "hero": True, "kills": 31, "bosses": 6,
                        "crafts": 33, "coins": 126, "downs": 1, "days": 8.36, "damage_taken": 0,
                        "supplies_used": 0}}  # fmt: skip
    run = {"configurations": [row]}
    assert "| 1 | glm | Y | 3 | Y | 31 | 6 | 33 | 126 | 1/8 | 1 | 75.0 |" in main_table([run])
    assert "| glm | 8.4 | 33 |" in activity_table([run])
    assert (tenth(12.5), tenth(9.95), tenth(9.949)) == ("12.5", "10.0", "9.9")
    from asiworld.evaluation.tables import progress

    assert progress(row) == "12.5%"  # 1/8, not a banker's-rounded 12%


def test_table_6_gives_each_configurations_points_and_they_add_up_to_its_score():
    results = evaluate(cohort_stream(), COHORT, META)
    for row in results["configurations"]:
        assert abs(sum(row["contributions"].values()) - row["score"]) < 1e-9
    from asiworld.evaluation.tables import score_rows

    header, rows = score_rows([results])
    assert header[:4] == ["j", "Component x_m,j", "Interpretation", "Weight w_j"]
    assert rows[4][:4] == ["5", "C_m/max_k C_k", "Activity: successful crafts", "25"]
    assert rows[4][header.index("builder")] == "25.0"  # the cohort's most crafts: full weight
    assert rows[-1][1] == "Score" and rows[-1][header.index("planner")] == "79.2"


def test_table_7_reports_e1_slash_e2_achievement_records():
    from asiworld.evaluation.tables import records_rows

    events = cohort_stream()
    e1 = evaluate(events, COHORT, META)
    e2 = evaluate([e for e in events if e["tick"] <= 7000], COHORT, META)
    header, rows = records_rows([e1, e2])
    assert header == ["Configuration", "Outfit", "Tier 1", "Tier 2", "Tier 3", "Hero", "Homes"]
    planner = next(r for r in rows if r[0] == "planner")
    assert planner == ["planner", "Y / –", "Y / Y", "Y / Y", "Y / –", "Y / –", "1 / 1"]
