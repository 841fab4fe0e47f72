"""A study's figures drawn on its worker processes (asiworld.study.figure_workers, write_reports'
`draw`) are the very files the study's own process draws; workers that cannot start leave the
drawing to it."""

from __future__ import annotations

from asiworld.evaluation import evaluate, write_reports
from asiworld.evaluation.report import FIGURES
from asiworld.study.figure_workers import FigureWorkers
from eval_streams import COHORT, cohort_stream

META = {"seed": 7, "minutes": 300, "ticks": 18000, "wall_seconds": 41.2, "state_hash": "9f3a"}
FORMATS = (".png", ".svg", ".pdf")


def figure_files(folder):
    return {f"{name}{fmt}": (folder / name).with_suffix(fmt).read_bytes()
            for name in FIGURES.values() for fmt in FORMATS}


def test_figures_drawn_on_the_workers_are_the_same_files(tmp_path):
    results = evaluate(cohort_stream(), COHORT, META)
    here, there = tmp_path / "here", tmp_path / "there"
    write_reports(here, results)
    workers = FigureWorkers(workers=1)  # one is enough to show it; a study starts two
    try:
        paths = write_reports(there, results, draw=workers)
    finally:
        workers.shutdown()
    assert paths["dungeons"] == there / FIGURES["dungeons"]
    assert figure_files(there) == figure_files(here)
    assert (there / "report.md").read_text() == (here / "report.md").read_text()


def test_without_workers_the_study_draws_its_figures_itself(tmp_path):
    workers = FigureWorkers(workers=0)  # as after workers that broke
    paths = write_reports(tmp_path, evaluate(cohort_stream(), COHORT, META), draw=workers)
    assert all(paths[key].is_file() for key in FIGURES)


def test_a_long_study_starts_its_figure_workers_only_when_it_draws_figures():
    from asiworld.evaluation.figure_options import FigureOptions
    from asiworld.study.demo import demo_text
    from asiworld.study.run import figure_workers
    from asiworld.study.spec import parse_study

    study = parse_study(demo_text("http://127.0.0.1:9/v1", minutes=60))
    assert figure_workers(study, FigureOptions(formats=())) is None  # --figures none
    drawing = figure_workers(study)
    try:
        assert drawing is not None
    finally:
        drawing.shutdown()
