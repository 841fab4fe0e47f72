"""The evaluation the server shows on /evaluation: a LiveAssessment fed every tick as the
pipeline's "assessment" observer (the same numbers `asiworld run` writes), and the results.json of finished runs kept in a
runs folder (config RUNS_DIR, default DATA_DIR/runs).

    attach(app)                 # once per app: the assessment follows the live world
    live_results(app)           # LiveAssessment.results(), at any tick
    run_results(app, "exp/E1")  # RUNS_DIR/exp/E1/results.json
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from asiworld.engine import codes
from asiworld.engine.errors import CodedError
from asiworld.evaluation import LiveAssessment
from asiworld.server.extensions import ASSESSMENT, SERVICES, STUDY
from flask import Flask

# One or two plain path segments ("exp" or "exp/E1"): nothing that climbs out of the folder.
RUN_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}(/[A-Za-z0-9_][A-Za-z0-9_.-]{0,63})?$")


class RunResultsError(CodedError):
    """A finished run's results could not be shown: a stable code, the table's HTTP status."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)
        self.http_status = codes.status(code)


def attach(app: Flask) -> LiveAssessment:
    """Follow the app's live world: every tick's events go to one LiveAssessment."""
    if ASSESSMENT in app.extensions:
        return app.extensions[ASSESSMENT]
    runner = app.extensions[SERVICES].runner
    # characters that joined before the first tick (built-in agents)
    live = LiveAssessment(_characters(runner.world))
    runner.pipeline.add_observer("assessment", lambda info: live.feed(info.events))
    app.extensions[ASSESSMENT] = live
    return live


def restart(app: Flask, world: Any, history: Iterable[dict[str, Any]] = ()) -> None:
    """The live world was replaced (a fork): assess its characters, from `history` (the
    events that led to it) on; the observer feeding the assessment stays as it is."""
    attach(app).restart(_characters(world), history)


def _characters(world: Any) -> list[dict[str, Any]]:
    return [{"id": c.id, "name": c.name, "label": c.label} for c in world.characters()]


def live_results(app: Flask) -> dict[str, Any]:
    # The world's own tick: the assessment only knows the tick of the last event it saw.
    ticks = app.extensions[SERVICES].runner.world.tick
    meta: dict[str, Any] = {"seed": app.config.get("SEED"), "live": True, "ticks": ticks}
    study = app.extensions.get(STUDY)
    if study is not None:  # asiworld serve --study: the countdown to its horizon
        meta["study"] = study.status()
    return attach(app).results(meta)


def runs_folder(app: Flask) -> Path | None:
    folder = app.config.get("RUNS_DIR")
    if folder:
        return Path(folder)
    if app.config.get("DATA_DIR"):
        return Path(app.config["DATA_DIR"]) / "runs"
    return None


def run_results(app: Flask, name: str) -> dict[str, Any]:
    """The results.json of the run `name` under the runs folder."""
    if not RUN_NAME.match(name or ""):
        raise RunResultsError(
            codes.BAD_RUN_NAME, f"{name!r} is not a run name (letters, digits, . _ - and one /)"
        )
    folder = runs_folder(app)
    if folder is None:
        raise RunResultsError(
            codes.NO_RUNS_FOLDER, "this server has no runs folder (set RUNS_DIR or DATA_DIR)"
        )
    path = folder / name / "results.json"
    if not path.is_file():
        raise RunResultsError(codes.RUN_NOT_FOUND, f"there is no run {name!r} in {folder}")
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RunResultsError(
            codes.BAD_RESULTS_JSON, f"{name}/results.json is unreadable: {exc}"
        ) from None
    if not isinstance(results, dict) or not isinstance(results.get("configurations"), list):
        raise RunResultsError(
            codes.BAD_RESULTS_JSON, f"{name}/results.json is not an evaluation's results"
        )
    return results
