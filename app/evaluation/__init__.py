"""Assessment from the event stream: achievements, measures, the composite score, reports.

The same code scores a headless run, a live world (`LiveAssessment`) and a replay.
"""

from asiworld.evaluation.live import LiveAssessment
from asiworld.evaluation.report import compare_runs, evaluate, load_events, write_reports

__all__ = ["LiveAssessment", "compare_runs", "evaluate", "load_events", "write_reports"]
