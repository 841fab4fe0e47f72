"""Progress over time: each character's score, Trial stage and tasks at the end of every minute,
read from the event stream as the results are (one LiveAssessment, asked at each minute's end).

    results = assess(events, characters, meta)   # the results, with results["progress"]
    rows(runs)                                   # progress.csv's rows, E1, E2, ... in order

results["progress"] is {"minutes": [1, 2, ...], "characters": [{"id", "name", "label", "score":
[...], "trial": [...], "outfit": [...], "hero": [...]}]}, one value per minute; the last minute's
values are the results' own. progress.csv (docs/evaluation.md, "Progress over time") has one row
per run, character and minute with the COLUMNS.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from asiworld.evaluation.live import LiveAssessment
from asiworld.evaluation.longform import configuration_name

Event = dict[str, Any]
TICKS_PER_MINUTE = 60  # the shipped content's clock (world.toml); a run's meta may say otherwise
SERIES = ("score", "trial", "outfit", "hero")
COLUMNS = ("run", "seed", "configuration", "character", "minute", *SERIES)


def assess(events: Iterable[Event], characters: Iterable[dict[str, Any]] = (),
           meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The results of the whole stream (as `LiveAssessment.results`) with their progress: the
    stream is fed minute by minute and the standing taken at each minute's end."""
    live = LiveAssessment(characters)
    per_minute = int((meta or {}).get("ticks_per_minute") or TICKS_PER_MINUTE)
    standings: list[dict[int, dict[str, Any]]] = []
    chunk: list[Event] = []
    minute_end = per_minute
    for ev in events:
        tick = int(ev.get("tick", 0))
        while tick > minute_end:  # the minute is over: its events are all in
            live.feed(chunk)
            chunk = []
            live.advance(minute_end)
            standings.append(live.standing())
            minute_end += per_minute
        chunk.append(ev)
    live.feed(chunk)
    results = live.results(meta)
    minutes = max(1, math.ceil(results["tick"] / per_minute))
    while len(standings) < minutes - 1:  # quiet minutes before the last
        live.advance(minute_end)
        standings.append(live.standing())
        minute_end += per_minute
    standings.append(live.standing())
    return {**results, "progress": _series(standings, results)}


def _series(standings: list[dict[int, dict[str, Any]]], results: dict[str, Any]) -> dict[str, Any]:
    characters = []
    for row in sorted(results["configurations"], key=lambda r: r["id"]):
        mine = [s.get(row["id"]) for s in standings]  # None: not in the world yet
        characters.append({"id": row["id"], "name": row["name"], "label": row.get("label", ""),
                           **{k: [None if m is None else m[k] for m in mine] for k in SERIES}})
    return {"minutes": list(range(1, len(standings) + 1)), "characters": characters}


def rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """progress.csv's rows: every run's characters minute by minute (a run without progress,
    an older results.json, gives none)."""
    out = []
    for index, run in enumerate(runs):
        progress = run.get("progress") or {}
        tag, seed = f"E{index + 1}", run.get("meta", {}).get("seed", run.get("seed"))
        for char in progress.get("characters", []):
            name = configuration_name(char)
            for i, minute in enumerate(progress.get("minutes", [])):
                if char["score"][i] is None:
                    continue
                out.append({"run": tag, "seed": seed, "configuration": name,
                            "character": char["id"], "minute": minute,
                            **{k: char[k][i] for k in SERIES}})
    return out
