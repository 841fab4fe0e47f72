"""A realtime study whose world fell behind its set speed says so at the top of its report: on a
busy machine a model's answer costs more ticks than the study sets, so its results are not
those of the study as written. A world that kept its speed, and the lockstep clock, get no
warning."""

from __future__ import annotations

import pytest
from asiworld.evaluation import write_reports
from asiworld.evaluation.figure_options import FigureOptions
from asiworld.headless.run import Run, RunConfig


@pytest.fixture(scope="module")
def one_minute() -> dict:
    return Run(RunConfig(seed=3, minutes=1, agents=["forager"])).run()


def report(tmp_path, results: dict, clock: dict) -> str:
    write_reports(tmp_path, {**results, "clock": clock}, figures=FigureOptions(formats=()))
    return (tmp_path / "report.md").read_text(encoding="utf-8")


def test_a_world_that_fell_behind_is_named_at_the_top_of_the_report(tmp_path, one_minute):
    md = report(tmp_path, one_minute, {"kind": "realtime", "speed": 100.0, "measured_speed": 80.744})
    warning = next(line for line in md.splitlines() if line.startswith("**Warning:**"))
    assert "ran at 80.744 ticks per second, below the study's 100" in warning
    assert "lockstep" in warning
    assert md.index(warning) < md.index("| ")  # above the tables


@pytest.mark.parametrize("clock", [
    {"kind": "realtime", "speed": 100.0, "measured_speed": 96.0},  # within 5 %
    {"kind": "realtime", "speed": 100.0},  # not measured (a resumed study's first line)
    {"kind": "lockstep", "think": "fixed", "think_ticks": 3},
])
def test_a_clock_that_kept_its_pace_gets_no_warning(tmp_path, one_minute, clock):
    assert "**Warning:**" not in report(tmp_path, one_minute, clock)
