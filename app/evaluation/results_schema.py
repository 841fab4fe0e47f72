"""The results files as data: app/evaluation/results_schema.json, a JSON Schema (draft 2020-12)
of results.json (`asiworld-evaluation/1`) and comparison.json (`asiworld-comparison/1`).

The leaderboard reads results written anywhere (another machine, another version, a hand that
edited them), so it validates them at run time and names the first field that is wrong:

    problem(data)   # None, or "configurations[0].score: 'x' is not of type 'number'"

jsonschema is therefore a runtime dependency (pyproject.toml): it is pure Python (its one
compiled piece, rpds-py, has wheels wherever numpy has), its attrs already comes with tcod, and a
hand-written check of this size would drift from the schema it claims to check. It is imported
only here, when results are validated.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

FILE = "results_schema.json"
VERSIONS = ("asiworld-evaluation/1", "asiworld-comparison/1")


@cache
def _text() -> str:
    return (resources.files("asiworld.evaluation") / FILE).read_text(encoding="utf-8")


def schema() -> dict[str, Any]:
    """The schema as a fresh dict (callers may change their copy)."""
    return json.loads(_text())


@cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema())


def problem(data: Any) -> str | None:
    """The first thing wrong with `data` as a results file, as "where: what", or None."""
    from jsonschema.exceptions import best_match

    error = best_match(_validator().iter_errors(data))
    if error is None:
        return None
    where = field(error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


def field(path: Any) -> str:
    """A path of keys and indices as a reader writes it: configurations[0].score."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out
