"""Assessment from the event stream: achievements, measures, the composite score, reports.

The same code scores a headless run, a live world (`LiveAssessment`) and a replay.

The package's names are imported when first used (PEP 562), as asiworld.engine's are: a command's
flags (asiworld.evaluation.figure_options, command_line) are read without the reports and what
they import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from asiworld.lazy import lazy_names

if TYPE_CHECKING:
    from .catalogue import definitions
    from .live import LiveAssessment
    from .report import compare_runs, evaluate, load_events, write_reports

_HOME = {"LiveAssessment": "live", "compare_runs": "report", "evaluate": "report",
         "load_events": "report", "write_reports": "report", "definitions": "catalogue"}
__all__ = [
    "LiveAssessment",
    "compare_runs",
    "definitions",
    "evaluate",
    "load_events",
    "write_reports",
]


__getattr__ = lazy_names(__name__, _HOME, globals())
