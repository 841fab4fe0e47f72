"""The small run of the golden report test, and how its golden text is made.

    python tests/evaluation/golden_run.py     # regenerate golden/small_run_report.md on purpose

Twenty simulation minutes of seed 3 on a 64-tile map with three built-in configurations; the
golden text is report.md from its first table on (the header above it has wall-clock seconds).
"""

from __future__ import annotations

import sys
from pathlib import Path

from asiworld.evaluation.figure_options import FigureOptions
from asiworld.headless.run import Run, RunConfig, write_outputs

GOLDEN = Path(__file__).parent / "golden" / "small_run_report.md"
CONFIG = {"seed": 3, "minutes": 20, "agents": ["planner", "forager", "rusher"], "size": 64}


def make_run(out: Path) -> Path:
    # Its figures are not drawn: the golden test's `asiworld report` (and rebuild_run below)
    # draws them over the run, and the other tests read tables.
    run = Run(RunConfig(**CONFIG, out=out, record=False))
    write_outputs(out, run, run.run(), figures=FigureOptions(formats=()))
    return out


def tables_part(report_md: str) -> str:
    """report.md from Table 2 on: everything the run's events and settings decide."""
    return report_md[report_md.index("## Table 2"):]


if __name__ == "__main__":
    import tempfile

    from asiworld.evaluation.commands import rebuild_run

    with tempfile.TemporaryDirectory() as tmp:
        rebuild_run(make_run(Path(tmp)))
        GOLDEN.write_text(tables_part((Path(tmp) / "report.md").read_text(encoding="utf-8")))
    print(f"wrote {GOLDEN}", file=sys.stderr)
