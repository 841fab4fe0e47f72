"""Two studies side by side: two replays of one seed (two prompts, two models) on one clock.

    GET /compare?a=ID&b=ID       the page: both maps, both timelines, the tables with their
                                 differences, the turns of a chosen configuration side by side
    GET /api/compare?a=ID&b=ID   what the page reads (&match=A:B pairs a's A with b's B, two
                                 names of one configuration): each side's summary (its replay's
                                 provenance, its characters in the colours of both sides'
                                 configurations), how the two worlds differ (seed, size, content,
                                 length) and the table rows with b - a per measure

A replay's results are the results.json beside it (what `asiworld run --out` and `study run`
write next to replay.asirep) when that file describes this replay (same seed), else the
evaluation of the replay's own recorded events (the same numbers: the evaluation reads events
only). Two worlds that differ are compared all the same; the page says how they differ.

An unknown id answers as the viewer does: the replay list with the refusal (a page), JSON 404
`unknown_replay` (the API). A missing a or b is 400 `bad_argument`, naming what is missing. A
replay of this server's own live world needs the spectator token, as in the viewer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from asiworld.engine import codes
from asiworld.evaluation.palette import colours
from asiworld.evaluation.report import evaluate
from asiworld.evaluation.side_by_side import measures, side_by_side
from asiworld.replay.format import ReplayError
from asiworld.replay.library import ReplayLibrary
from asiworld.replay.reader import Replay
from asiworld.server.errors import status_of

# The viewer's own readers of the replay folders and its access rule (who may read a replay of
# the live world): the same library object, so a replay opened here is the viewer's too.
from asiworld.server.replays import (
    _damaged,
    _folder_names,
    _json,
    _may_read,
    _services,
    _shown_rows,
)
from flask import Blueprint, Response, render_template, request
from flask.typing import ResponseReturnValue

compare = Blueprint("compare", __name__)

RESULTS_SCHEMA = "asiworld-evaluation/1"
SIDES = ("a", "b")


# --- the two replays ------------------------------------------------------------------------


def _ids() -> dict[str, str]:
    """?a= and ?b=, both required (bad_argument names what is missing)."""
    given = {side: (request.args.get(side) or "").strip() for side in SIDES}
    missing = [side for side in SIDES if not given[side]]
    if missing:
        raise ReplayError(
            codes.BAD_ARGUMENT,
            f"compare needs two replays: /compare?a=ID&b=ID ({' and '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} missing)",
            missing=missing,
        )
    return given


def _open(library: ReplayLibrary, side: str, rid: str) -> Replay:
    """The replay `rid` for side a or b; a refusal says which side it is about."""
    try:
        replay = library.get(rid)  # unknown_replay (404) for an id no folder holds
    except ReplayError as exc:
        raise ReplayError(exc.code, f"{side}: {exc.message}", side=side) from None
    path = library.paths().get(rid)
    if path is not None and not _may_read(path):
        raise ReplayError(codes.NOT_SPECTATOR, f"{side}: replay {rid!r} records the live world: "
                          "it needs the spectator token", side=side)
    return replay


# --- a replay's results -----------------------------------------------------------------------


def _beside(replay: Replay) -> dict[str, Any] | None:
    """The results.json next to a run's or a study's replay.asirep, when it is one world's
    results of this replay's seed; None otherwise (a sample, a live recording, an old file)."""
    path: Path = replay.path.parent / "results.json"
    if replay.path.stem != "replay" or not path.is_file():
        return None
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(results, dict) or results.get("schema") != RESULTS_SCHEMA:
        return None
    if not isinstance(results.get("configurations"), list):
        return None
    if (results.get("meta") or {}).get("seed") != replay.header.seed:
        return None
    return results


def results_of(library: ReplayLibrary, replay: Replay) -> tuple[dict[str, Any], str]:
    """(results, where they came from: "results.json" or "events"), kept per replay file."""

    def build() -> tuple[dict[str, Any], str]:
        beside = _beside(replay)
        if beside is not None:
            return beside, "results.json"
        meta = {"seed": replay.header.seed, "ticks": replay.last_tick or 0}
        return evaluate(replay.events(), replay.characters(), meta), "events"

    return library._cached(replay, "compare-results", build)


def _settings(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Configuration name -> how it was set up (a study's agent, model, prompt and harness
    settings; nothing for a headless run): two studies differ in these."""
    study = (results.get("study") or {}).get("parsed") or {}
    out: dict[str, dict[str, Any]] = {}
    for conf in study.get("configuration") or []:
        if isinstance(conf, dict) and isinstance(conf.get("name"), str):
            # the model's address is where it ran, not what it was
            out[conf["name"]] = {k: v for k, v in conf.items()
                                 if k not in ("name", "model_url", "api_key_env")}
    for prompt in results.get("prompts") or []:
        if isinstance(prompt, dict) and prompt.get("name") in out and prompt.get("sha256"):
            out[prompt["name"]]["prompt sha256"] = str(prompt["sha256"])[:12]
    return out


def _settings_differ(a: dict[str, Any] | None, b: dict[str, Any] | None) -> list[dict[str, Any]]:
    if not a or not b:
        return []
    keys = list(a) + [k for k in b if k not in a]
    return [{"key": k, "a": a.get(k), "b": b.get(k)} for k in keys if a.get(k) != b.get(k)]


def _pairs(results: dict[str, dict[str, Any]]) -> dict[str, str]:
    """?match=A:B (repeatable): a's configuration A compared with b's B, two names for one
    configuration (a prompt's configuration renamed in the second study). bad_argument when a
    name is not a configuration of its side, is paired twice, or is matched by name already."""
    names = {side: {r.get("name") for r in results[side].get("configurations") or []}
             for side in SIDES}
    pairs: dict[str, str] = {}
    for given in request.args.getlist("match"):
        name_a, sep, name_b = given.partition(":")
        refusal = None
        if not sep or not name_a or not name_b:
            refusal = f"match is A:B, a configuration of a and one of b (got {given!r})"
        elif name_a not in names["a"] or name_b not in names["b"]:
            refusal = f"match {given!r}: {name_a!r} must be a configuration of a and {name_b!r} one of b"
        elif name_a in pairs or name_b in pairs.values():
            refusal = f"match {given!r}: each configuration is paired once"
        elif name_a in names["b"] or name_b in names["a"]:
            refusal = f"match {given!r}: a configuration of that name is in both already"
        if refusal:
            raise ReplayError(codes.BAD_ARGUMENT, refusal, argument="match")
        pairs[name_a] = name_b
    return pairs


# --- how the two worlds differ ---------------------------------------------------------------


def world_notes(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, str]]:
    """Plain sentences for each way the two replays' worlds differ; empty when one seed, size
    and content were played (then differences come from the configurations alone)."""
    notes = []
    if a["seed"] != b["seed"]:
        notes.append({"kind": "seed", "text": f"Different seeds: a is seed {a['seed']}, b is seed "
                      f"{b['seed']}. The worlds differ, not only the configurations."})
    if (a["width"], a["height"]) != (b["width"], b["height"]):
        notes.append({"kind": "size", "text": f"Different map sizes: a is {a['width']}×"
                      f"{a['height']}, b is {b['width']}×{b['height']}."})
    if a.get("content_hash") and b.get("content_hash") and a["content_hash"] != b["content_hash"]:
        notes.append({"kind": "content", "text": f"Different game content: a ran "
                      f"{a['content_hash']}, b ran {b['content_hash']} (rules or numbers "
                      "changed between them)."})
    if a["last_tick"] != b["last_tick"] or a["first_tick"] != b["first_tick"]:
        notes.append({"kind": "length", "text": f"Different lengths: a runs ticks "
                      f"{a['first_tick']}–{a['last_tick']}, b {b['first_tick']}–{b['last_tick']}. "
                      "The clock runs over both; a replay past its end shows its last frame."})
    return notes


def _side(library: ReplayLibrary, rid: str, replay: Replay, colour: dict[str, str],
          results: dict[str, Any], source: str) -> dict[str, Any]:
    meta = library.meta(rid)
    chars = [{**c, "colour": colour[c.get("label") or c.get("name") or "unlabelled"]}
             for c in meta["characters"]]
    keep = ("id", "title", "file", "seed", "width", "height", "minutes", "first_tick",
            "last_tick", "complete", "content_hash", "engine_version", "created_at")
    return {**{k: meta.get(k) for k in keep}, "characters": chars, "results_from": source,
            "score_tick": results.get("tick")}


def comparison(library: ReplayLibrary, ids: dict[str, str]) -> dict[str, Any]:
    """The body of /api/compare for the replays ids["a"] and ids["b"]."""
    replays = {side: _open(library, side, ids[side]) for side in SIDES}
    found = {side: results_of(library, replays[side]) for side in SIDES}
    names = [c.get("label") or c.get("name") or "unlabelled"
             for side in SIDES for c in replays[side].characters()]
    colour = colours(dict.fromkeys(names))  # one name, one colour, on both sides
    sides = {side: _side(library, ids[side], replays[side], colour, *found[side])
             for side in SIDES}
    results = {side: found[side][0] for side in SIDES}
    settings = {side: _settings(results[side]) for side in SIDES}
    rows = side_by_side(results["a"], results["b"], _pairs(results))
    for row in rows:
        key = row["label"] or row["name"]
        row["colour"] = colour.get(key) or colours([key])[key]
        row["settings"] = {side: settings[side].get(row["labels"][side] or row["names"][side] or "")
                           for side in SIDES}
        row["settings_differ"] = _settings_differ(row["settings"]["a"], row["settings"]["b"])
    return {"ok": True, **sides, "notes": world_notes(sides["a"], sides["b"]),
            "measures": measures(), "rows": rows}


# --- routes ----------------------------------------------------------------------------------


# What a replay's bytes break beyond the reader's checks: that replay's fault, as in the viewer.
compare.register_error_handler(Exception, _damaged)


@compare.errorhandler(ReplayError)
def _refused(exc: ReplayError) -> ResponseReturnValue:
    """The API answers JSON with the code; the page answers as the viewer does, with the replay
    list (from which two others can be picked) and the refusal on it."""
    status = status_of(exc)
    if request.path.startswith("/api/"):
        body = {"ok": False, "code": exc.code, "message": exc.message, "error": exc.to_dict()}
        return _json(body, status)
    library, _ = _services()
    page = render_template("replays.html", replays=_shown_rows(library.listing()),
                           replays_url="/replays", folders=_folder_names(library), error=exc)
    return page, status


@compare.get("/compare")
def page() -> ResponseReturnValue:
    ids = _ids()
    library, _ = _services()
    comparison(library, ids)  # what the page will ask for: refused here as a page (cached)
    return render_template("compare.html", a=ids["a"], b=ids["b"], replays_url="/replays")


@compare.get("/api/compare")
def api() -> Response:
    library, _ = _services()
    return _json(comparison(library, _ids()))
