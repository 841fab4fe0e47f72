"""The evaluation's own lists, handed to the pages that draw its results (asiworld.evaluation's
`definitions`)."""

from __future__ import annotations

from asiworld.evaluation import achievements, measures
from asiworld.evaluation.palette import palette


def definitions() -> dict:
    """The evaluation's own lists, for pages that draw its results: the curriculum's stages, the
    action categories and the dungeon levels, in the order the reports show them, and the one
    palette the figures use (a configuration's colour is the same on the page). Read from their
    modules at each call, so the page has no copy of its own."""
    return {
        "stages": list(achievements.STAGE_NAMES),
        "categories": list(measures.CATEGORIES),
        "levels": [{"level": level, "name": measures.LEVEL_NAMES[level]}
                   for level in measures.LEVELS],
        "palette": {k: v for k, v in palette().items() if not k.startswith("_")},
    }
