"""Scores to evidence: /api/evaluation's answer joined to the replay of its world, so each score
on /evaluation links to the moment that earned it (docs/evaluation.md, "From a score to its
replay").

The replay is the live world's recording (a study on the server writes DIR/replay.asirep, a
server with RECORD_DIR its live recording) or, for ?run=NAME, the run folder's replay.asirep,
when this server lists it among its replays. Moments are read from the replay's timeline and
why-summary (asiworld.replay.phases, asiworld.evaluation.why): a boss defeat with the start of
the fight that won it, and since when the first unmet stage has been the character's goal; the
achievement ticks are the results' own. A live world still running is not settled: its rows keep
linking to /live, and nothing is read from a file still being written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from asiworld.server.extensions import RECORDING, SERVICES, STUDY
from asiworld.server.replay_library import replay_id_of, replay_services
from flask import Flask


def live_replay(app: Flask) -> tuple[str | None, bool]:
    """(the replay id of the live world's recording or None, whether the world has stopped)."""
    live = app.extensions.get(RECORDING)
    rid = replay_id_of(app, getattr(live, "path", None))
    study = app.extensions.get(STUDY)
    if study is not None and study.finished.is_set():
        return rid, True
    stats = app.extensions[SERVICES].runner.stats()
    return rid, not stats["running"]


def run_replay(app: Flask, folder: Path | None, name: str) -> str | None:
    """The replay id of the run `name`'s replay.asirep under the runs `folder`, if listed."""
    if folder is None:
        return None
    path = folder / name / "replay.asirep"
    return replay_id_of(app, path) if path.is_file() else None


def with_evidence(app: Flask, results: dict[str, Any], rid: str | None,
                  settled: bool) -> dict[str, Any]:
    """`results` with ``replay: {"id", "url", "settled"}`` and, once settled, each configuration
    row's ``evidence``: ``{"bosses": [{"defeat", "fight", "boss", "tier"}], "goal": {"stage",
    "name", "since", "missing"} or None}`` (ticks of the replay)."""
    if rid is None:
        return results
    out = {**results, "replay": {"id": rid, "url": f"/replay/{rid}", "settled": settled}}
    if not settled:
        return out
    library = replay_services(app)[0]
    markers = library.overview(rid)["markers"]
    goals = {row["char"]: row["goal"] for row in library.why(rid)["characters"]}
    rows = []
    for row in results.get("configurations") or []:
        char = row.get("id")
        rows.append({**row, "evidence": {"bosses": _bosses(markers, char),
                                         "goal": goals.get(char)}})
    out["configurations"] = rows
    return out


def _bosses(markers: list[dict[str, Any]], char: Any) -> list[dict[str, Any]]:
    won = {m["tick"]: m["fight"] for m in markers
           if m["kind"] == "boss_fight_end" and m["char"] == char
           and m.get("fight", {}).get("ending") == "defeated"}
    out = []
    for m in markers:
        if m["kind"] == "boss_defeat" and m["char"] == char:
            fight = won.get(m["tick"])
            out.append({"defeat": m["tick"], "fight": fight["start"] if fight else None,
                        "boss": fight["boss"] if fight else None,
                        "tier": fight["tier"] if fight else None, "label": m["label"]})
    return out
