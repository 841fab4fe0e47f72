"""`asiworld report DIR` on a small real run writes the paper's Tables 2-9 and Figures 4-5: the
Markdown tables equal golden text kept here (regenerate on purpose only, with
`python tests/evaluation/golden_run.py`), a CSV beside each table, each figure as PNG, SVG and
PDF, and results.json carries the run's settings for Table 2."""

from __future__ import annotations

import csv
import json

from asiworld.cli import main
from golden_run import CONFIG, GOLDEN, make_run, tables_part

TABLES = ["T2_setting", "T3_main", "T4_achievements", "T5_incidents", "T6_score",
          "T7_records", "T8_curriculum", "T9_activity", "F4_data", "F5_data"]  # fmt: skip


def test_asiworld_report_writes_tables_2_to_9_and_figures_4_and_5(tmp_path, capsys):
    out = make_run(tmp_path / "run")
    assert main(["report", str(out)]) == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    assert tables_part(md) == GOLDEN.read_text(encoding="utf-8"), (
        "report.md's tables changed; if on purpose, run python tests/evaluation/golden_run.py"
    )
    for number in range(2, 10):
        assert f"## Table {number}: " in md
    for name in TABLES:
        rows = list(csv.reader((out / "tables" / f"{name}.csv").open(encoding="utf-8")))
        assert rows[0], name  # a header, and rows unless nothing happened
        assert len(rows) >= 2 or name == "T5_incidents", name  # no incidents in this run
    for stem in ("F4_dungeon_performance", "F5_actions"):
        assert (out / "figures" / f"{stem}.png").read_bytes().startswith(b"\x89PNG")
        assert (out / "figures" / f"{stem}.svg").read_text().lstrip().startswith("<?xml")
        assert (out / "figures" / f"{stem}.pdf").read_bytes().startswith(b"%PDF")
    meta = json.loads((out / "results.json").read_text())["meta"]
    assert meta["agents"] == CONFIG["agents"]
    assert (meta["stagger_ticks"], meta["think_ticks"], meta["size"]) == (2, 3, 64)


def test_the_csv_of_a_table_has_the_cells_of_its_markdown(tmp_path):
    out = make_run(tmp_path / "run")
    md = (out / "report.md").read_text(encoding="utf-8")
    rows = list(csv.reader((out / "tables" / "T3_main.csv").open(encoding="utf-8")))
    for row in rows:
        assert "| " + " | ".join(row) + " |" in md
