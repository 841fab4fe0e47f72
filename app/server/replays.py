"""Replays in the browser: the list, the viewer page, and the JSON the viewer loads lazily.

    GET  /replays                              the list, with provenance from each header
    GET  /replay/<id>                          the viewer (?t=TICK&focus=CHAR&pov=CHAR&speed=X)
    GET  /api/replays                          the list as JSON
    GET  /api/replays/<id>                     header, tick range, frame-chunk ranges
    GET  /api/replays/<id>/frames/<n>          frame chunk n (60 ticks of frames, events in)
    GET  /api/replays/<id>/state?tick=T        a keyframe frame for tick T (seek)
    GET  /api/replays/<id>/overview            phases, jump markers and the event log
    GET  /api/replays/<id>/series              chart samples per character
    GET  /api/replays/<id>/why                 per character: each dungeon tier's entries, clears,
                                               knockdowns, damage, gear, supplies; the stalls
    GET  /api/replays/<id>/turns               model-turn markers per language-model configuration
    GET  /api/replays/<id>/turns/<char>/<n>    one model turn: prompt summary, text, tool calls,
                                               the world's answers
    GET  /api/replays/<id>/pov?tick=T&char=C   what C saw at T (re-simulated observation, from
                                               the nearest world snapshot in the replay)
    POST /api/replays/<id>/fork                {tick, char, seed}: the live world becomes the fork

Replays are read from config REPLAY_DIRS (default: the repository's `replays/` folder, plus the
folders in the ASIWORLD_REPLAYS environment variable, separated by the OS path separator).
Errors are `{"ok": false, "code", "message"}` with a 4xx status; bad input changes nothing.
"""

from __future__ import annotations

import gzip
import json
import time
from pathlib import Path
from typing import Any

from asiworld.engine import codes, load_content
from asiworld.engine.errors import CodedError
from asiworld.evaluation.palette import colours
from asiworld.replay.fork import reseed
from asiworld.replay.format import ReplayError
from asiworld.replay.library import ReplayLibrary
from asiworld.replay.worlds import ReplayWorlds, point_of_view
from asiworld.server.admin import check_admin
from asiworld.server.auth import gate
from asiworld.server.errors import error_response, status_of
from asiworld.server.extensions import RECORDING
from asiworld.server.fork import install
from asiworld.server.replay_library import replay_services
from flask import Blueprint, Response, current_app, render_template, request
from flask.typing import ResponseReturnValue

GZIP_ABOVE = 4096  # bytes; frame chunks and keyframes compress about 8:1

replays = Blueprint("replays", __name__)


# --- who may read what ---------------------------------------------------------------------------
# A replay of this server's own world (the live recording in RECORD_DIR, a study's replay as it
# is written) shows the whole map, every character's view, every program's source: with a
# spectator token set, it is a whole-world view like /live and needs that token, in the listing
# and at every route. Other folders' replays (samples, finished runs) stay public.


def _is_private(path: Path) -> bool:
    record = current_app.config.get("RECORD_DIR")
    live = current_app.extensions.get(RECORDING)
    live_path = getattr(live, "path", None)
    resolved = path.resolve()
    if record and resolved.parent == Path(record).resolve():
        return True
    return bool(live_path) and resolved == Path(live_path).resolve()


def _may_read(path: Path) -> bool:
    return not _is_private(path) or gate(current_app).may_spectate_http(request)


@replays.errorhandler(Exception)
def _damaged(exc: Exception) -> ResponseReturnValue:
    """What a replay's own bytes break beyond the reader's checks (a chunk whose JSON is well
    formed but not what a replay holds): that replay's fault, said as such, never a 500."""
    from werkzeug.exceptions import HTTPException

    if isinstance(exc, CodedError):  # a refusal with its own code: answered as everywhere
        return error_response(exc)
    if isinstance(exc, HTTPException):  # Flask's own 404/405/413, in the app's shape
        return current_app.handle_http_exception(exc)
    current_app.logger.warning("a damaged replay: %s: %s", type(exc).__name__, exc)
    body = {"error": {"code": codes.DAMAGED_REPLAY,
                      "message": f"this replay holds data the viewer cannot use "
                                 f"({type(exc).__name__}: {str(exc)[:160]})"}}
    return _json(body, 422)


@replays.before_request
def _guard() -> ResponseReturnValue | None:
    rid = (request.view_args or {}).get("rid")
    if rid is None:
        return None
    library, _ = _services()
    path = library.paths().get(rid)
    if path is not None and not _may_read(path):
        refusal = ReplayError(codes.NOT_SPECTATOR, "this replay records the live world: it needs "
                              "the spectator token")
        if not request.path.startswith("/api/"):  # the viewer page says it as a page
            return render_template("replays.html", replays=_shown_rows(library.listing()),
                                   replays_url="/replays", folders=_folder_names(library),
                                   error=refusal), 403
        return _json({"error": {"code": refusal.code, "message": str(refusal)}}, 403)
    return None


def _shown_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The listing as a client sees it: private replays only for spectators, and no path on
    this machine (a file's name and its folder's name say enough)."""
    out = []
    paths = _services()[0].paths()
    for row in rows:
        path = paths.get(row["id"])
        if path is not None and not _may_read(path):
            continue
        shown = {k: v for k, v in row.items() if k != "path"}
        if path is not None:
            shown["file"], shown["folder"] = path.name, path.parent.name
        out.append(shown)
    return out


def _folder_names(library: ReplayLibrary) -> list[str]:
    return [f.name or str(f) for f in library.folders]


def _services() -> tuple[ReplayLibrary, ReplayWorlds]:
    return replay_services(current_app)


def _json(body: Any, status: int = 200, built_ms: float | None = None) -> Response:
    t0 = time.perf_counter()
    data = json.dumps(body, separators=(",", ":")).encode()
    resp = Response(data, status=status, mimetype="application/json")
    if len(data) > GZIP_ABOVE and "gzip" in request.headers.get("Accept-Encoding", ""):
        resp.set_data(gzip.compress(data, compresslevel=1))
        resp.headers["Content-Encoding"] = "gzip"
    if built_ms is not None:  # the seek's share of the server, for the page and the benchmark
        encoded_ms = (time.perf_counter() - t0) * 1000
        resp.headers["Server-Timing"] = f"build;dur={built_ms:.1f}, encode;dur={encoded_ms:.1f}"
    return resp


def _int_arg(name: str, value: Any = None) -> int:
    raw = request.args.get(name) if value is None else value
    if isinstance(raw, bool):
        raise ReplayError(codes.BAD_ARGUMENT, f"{name} must be a whole number")
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise ReplayError(codes.BAD_ARGUMENT, f"{name} must be a whole number") from None


def _content_note(replay: Any) -> str | None:
    try:
        ours = load_content().hash
    except Exception:
        return None
    theirs = replay.header.content_hash
    if theirs and ours and theirs != ours:
        return (
            f"recorded with content {theirs}, this build has {ours}: the re-simulated world may "
            "differ from the recording"
        )
    return None


def _start_note(start: dict[str, Any]) -> str | None:
    """Say so when recorded world snapshots had to be passed over (the world is still right:
    it was re-simulated from an earlier start)."""
    skipped = start.get("skipped") or []
    if not skipped:
        return None
    ticks = ", ".join(str(s["tick"]) for s in skipped)
    return (
        f"the replay's world snapshot at tick {ticks} could not be used ({skipped[0]['code']}); "
        f"re-simulated from tick {start.get('from_tick')}"
    )


# --- pages -----------------------------------------------------------------------------------


@replays.get("/replays")
def list_page() -> str:
    library, _ = _services()
    return render_template(
        "replays.html",
        replays=_shown_rows(_mark_recording(library.listing())),
        folders=_folder_names(library),
        replays_url="/replays",
    )


@replays.get("/replay/<rid>")
def viewer_page(rid: str) -> ResponseReturnValue:
    library, _ = _services()
    try:
        library.get(rid)
    except ReplayError as exc:
        page = render_template(
            "replays.html",
            replays=_shown_rows(library.listing()),
            replays_url="/replays",
            folders=_folder_names(library),
            error=exc,
        )
        return page, status_of(exc)
    return render_template("replay.html", rid=rid, replays_url="/replays")


# --- data ------------------------------------------------------------------------------------


def _mark_recording(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`recording: true` on the file the live world is being recorded into right now."""
    live = current_app.extensions.get(RECORDING)
    path = live.path if live is not None and live.recording is not None else None
    for row in rows:
        row["recording"] = path is not None and row.get("path") == str(path)
    return rows


@replays.get("/api/replays")
def list_json() -> Response:
    library, _ = _services()
    rows = _shown_rows(_mark_recording(library.listing()))
    return _json({"replays": rows, "folders": _folder_names(library)})


@replays.get("/api/replays/<rid>")
def meta(rid: str) -> Response:
    library, _ = _services()
    return _json(coloured(library.meta(rid)))


def coloured(body: dict[str, Any]) -> dict[str, Any]:
    """The replay's characters and configurations with their configuration's colour from the
    one palette (asiworld.evaluation.palette): the timeline and the charts draw a configuration
    as the evaluation page and the report figures do."""
    def configuration(c: dict[str, Any]) -> str:
        return c.get("label") or c.get("name") or "unlabelled"  # palette.character_colours' rule

    chars = [dict(c) for c in body.get("characters", [])]
    confs = [dict(c) for c in body.get("configurations", [])]
    colour = colours([configuration(c) for c in chars] + [c["name"] for c in confs])
    for c in chars:
        c["colour"] = colour[configuration(c)]
    for c in confs:
        c["colour"] = colour[c["name"]]
    return {**body, "characters": chars, "configurations": confs}


@replays.get("/api/replays/<rid>/frames/<int:n>")
def frame_chunk(rid: str, n: int) -> Response:
    library, _ = _services()
    packed, size = library.frame_chunk(rid, n)  # gzipped once, kept
    if size > GZIP_ABOVE and "gzip" in request.headers.get("Accept-Encoding", ""):
        resp = Response(packed, mimetype="application/json")
        resp.headers["Content-Encoding"] = "gzip"
        return resp
    return Response(gzip.decompress(packed), mimetype="application/json")


@replays.get("/api/replays/<rid>/state")
def state(rid: str) -> Response:
    library, _ = _services()
    t0 = time.perf_counter()
    frame = library.frame_at(rid, _int_arg("tick"))
    return _json(frame, built_ms=(time.perf_counter() - t0) * 1000)


@replays.get("/api/replays/<rid>/overview")
def overview(rid: str) -> Response:
    library, worlds = _services()
    body = library.overview(rid)
    library.warm_in_background(rid)  # after the first frame and the timeline: seeks next
    # A replay recorded without world snapshots: re-simulate it once, in the background.
    worlds.warm_in_background(library.get(rid), pause=library.seeking)
    return _json(body)


@replays.get("/api/replays/<rid>/series")
def series(rid: str) -> Response:
    library, _ = _services()
    return _json(library.series(rid))


@replays.get("/api/replays/<rid>/turns")
def turns(rid: str) -> Response:
    library, _ = _services()
    return _json(library.turns(rid))


@replays.get("/api/replays/<rid>/transcript")
def transcript(rid: str) -> Response:
    library, _ = _services()
    return _json(library.transcript(rid))


@replays.get("/api/replays/<rid>/why")
def why(rid: str) -> Response:
    library, _ = _services()
    return _json(library.why(rid))


@replays.get("/api/replays/<rid>/turns/<int:char>/<int:number>")
def turn(rid: str, char: int, number: int) -> Response:
    library, _ = _services()
    return _json(library.turn(rid, char, number))


@replays.get("/api/replays/<rid>/pov")
def pov(rid: str) -> Response:
    library, worlds = _services()
    replay = library.get(rid)
    tick, char = _int_arg("tick"), _int_arg("char")
    if char not in {c["id"] for c in replay.characters()}:
        raise ReplayError(codes.UNKNOWN_CHARACTER, f"character {char} is not in this replay")
    start: dict[str, Any] = {}
    world = worlds.world_at(replay, tick, report=start)
    if char not in world.entities:
        raise ReplayError(codes.UNKNOWN_CHARACTER, f"character {char} has not joined by {tick}")
    recorded = replay.hashes().get(tick)
    body = {
        "ok": True,
        "tick": tick,
        "char": char,
        "observation": point_of_view(world, char),
        "verified": None if recorded is None else recorded == world.state_hash(),
        "start": start,
        "note": _start_note(start) or _content_note(replay),
    }
    return _json(body)


@replays.post("/api/replays/<rid>/fork")
def fork(rid: str) -> ResponseReturnValue:
    refused = check_admin()  # the admin token when one is configured, else loopback only
    if refused is not None:
        return refused
    library, worlds = _services()
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise ReplayError(codes.BAD_ARGUMENT, "send a JSON object {tick, char, seed}")
    replay = library.get(rid)
    tick = _int_arg("tick", body.get("tick"))
    char = body.get("char")
    if char is not None:
        char = _int_arg("char", char)
    seed = body.get("seed", "same")
    if seed not in ("same", "new") and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ReplayError(codes.BAD_ARGUMENT, "seed is 'same', 'new' or a whole number >= 0")
    if isinstance(seed, int) and seed < 0:
        raise ReplayError(codes.BAD_ARGUMENT, "seed is 'same', 'new' or a whole number >= 0")
    world = worlds.world_at(replay, tick)
    future_seed = reseed(world, seed)
    seated = install(current_app._get_current_object(), world, char,
                     history=list(replay.events(end=tick)))
    return _json(
        {
            "ok": True,
            **seated,
            "replay": rid,
            "seed": future_seed,
            "redirect": "/play" if char is not None else "/live",
            "note": _content_note(replay),
        }
    )
