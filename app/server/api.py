"""JSON endpoints: health and a summary of the live world."""

from __future__ import annotations

from asiworld.engine import codes
from asiworld.evaluation.palette import with_colours
from asiworld.server import assessment, auth, evidence
from asiworld.server.errors import ApiError
from asiworld.server.extensions import SERVICES
from flask import Blueprint, current_app, jsonify, request
from flask.typing import ResponseReturnValue

api = Blueprint("api", __name__)


MEASURES = ("health", "max_health", "hunger", "energy", "coins", "down", "asleep", "x", "y", "area")


def world_summary(keyframe: dict, stats: dict) -> dict:
    """tick, day, phase and every character with its basic measures, from a keyframe."""
    body = keyframe.get("keyframe") or {}
    time = body.get("time") or {}
    characters = []
    for entity in (body.get("entities") or {}).values():
        if entity.get("kind") != "character":
            continue
        row = {"id": entity["id"], "name": entity.get("name"), "label": entity.get("label")}
        row.update({key: entity.get(key) for key in MEASURES if key in entity})
        characters.append(row)
    characters.sort(key=lambda row: row["id"])
    return {
        "tick": keyframe.get("tick"),
        "day": time.get("day"),
        "minute": time.get("minute"),
        "phase": time.get("phase"),
        "speed": stats["speed"],
        "paused": stats["paused"],
        "measured_tps": stats["measured_tps"],
        # nights shades spare each character that joins (serve --grace-nights): /play says so
        "grace_nights": stats.get("grace_nights", 0),
        "characters": characters,
    }


@api.get("/healthz")
def healthz() -> ResponseReturnValue:
    runner = current_app.extensions[SERVICES].runner
    stats = runner.stats()
    if stats["failure"] is not None:  # a process supervisor sees the alarm in the status
        return jsonify({"ok": False, "tick": stats["tick"], "running": False,
                        "reason": stats["failure"]}), 503
    # `paused` lets a live page say why no frame comes (a paused world is not a lost server).
    return jsonify({"ok": True, "tick": stats["tick"], "running": stats["running"],
                    "paused": bool(stats["paused"])})


@api.get("/api/evaluation")
def evaluation() -> ResponseReturnValue:
    """The evaluation as JSON (asiworld.evaluation's results): the live world's, or with ?run=NAME a
    finished run's results.json from the runs folder; with the replay of that world and, once it
    stopped, each row's moments in it (asiworld.server.evidence)."""
    run = request.args.get("run")
    if run:  # a RunResultsError is answered by the server's error handler
        results = assessment.run_results(current_app, run)
        rid = evidence.run_replay(current_app, assessment.runs_folder(current_app), run)
        return jsonify(with_colours(evidence.with_evidence(current_app, results, rid, settled=True)))
    if not auth.gate(current_app).may_spectate_http(request):
        raise ApiError(codes.NOT_SPECTATOR, "the live evaluation needs the spectator token")
    results = assessment.live_results(current_app)
    rid, settled = evidence.live_replay(current_app)
    # Each score links to its replay's moments (the recording of this world, once it stopped).
    return jsonify(with_colours(evidence.with_evidence(current_app, results, rid, settled)))


@api.get("/api/world")
def world() -> ResponseReturnValue:
    if not auth.gate(current_app).may_spectate_http(request):
        raise ApiError(codes.NOT_SPECTATOR, "the world summary needs the spectator token")
    runner = current_app.extensions[SERVICES].runner
    return jsonify(world_summary(runner.keyframe(), runner.stats()))


def content_summary(content: object | None) -> dict:
    """What the play page's menus need: recipes, placeable structures, item kinds, tile names,
    the merchant's prices, dungeon tier names and which creatures are bosses."""
    if content is None:
        return {
            "recipes": [],
            "structures": {},
            "items": {},
            "tiles": [],
            "merchant": {"sells": {}, "max_count": None},
            "dungeons": {"tiers": {}, "sanctum": {}},
            "creatures": {},
            "clock": {},
            "knockdown": {},
            "station_reach": None,
            "sources": {},
        }
    recipes = [
        {
            "id": r.id,
            "station": r.station,
            "inputs": dict(r.inputs),
            "output": r.output,
            "count": r.count,
            "ticks": r.ticks,
            "requires": r.requires,
        }
        for r in content.recipes.values()
    ]
    structures = {
        name: {"cost": dict(spec.get("cost") or {}), "station": bool(spec.get("station"))}
        for name, spec in content.structures.items()
    }
    items = {
        name: {"category": spec.get("category"), "slot": spec.get("slot")}
        for name, spec in content.items.items()
    }
    # Observations spell tiles as one character each; the page needs the names for sprites.
    tiles = [
        {"name": t["name"], "char": t["char"], "walk": bool(t.get("walk"))} for t in content.tiles
    ]
    return {
        "recipes": recipes,
        "structures": structures,
        "items": items,
        "tiles": tiles,
        "merchant": merchant_summary(content),
        "dungeons": dungeons_summary(content),
        "creatures": creatures_summary(content),
        # the play page counts down to night and to a knocked-down player's waking with these
        "clock": {
            "ticks_per_minute": content.time.ticks_per_minute,
            "day_minutes": content.time.day_minutes,
            "night_starts_minute": content.time.night_starts_minute,
        },
        "knockdown": {key: int(getattr(content.knockdown, key)) for key in ("down_ticks", "loot_bag_ticks")},
        "station_reach": int(content.place.station_reach),
        # what E on a tile gathers, and the tool it needs: the play page's faced-tile hint
        "sources": {
            tile: {"item": spec.get("item"), "needs": list(spec.get("needs") or []),
                   "spent": spec.get("spent")}
            for tile, spec in content.sources.items()
        },
    }


def merchant_summary(content: object) -> dict:
    """The trading post's price list (coins per item) and the most one `buy` takes."""
    raw = content.raw.get("merchant") or {}
    return {"sells": dict(raw.get("sells") or {}), "max_count": raw.get("max_count")}


def dungeons_summary(content: object) -> dict:
    """Tier names, gates, bosses and sigils, so pages can label gates and instances."""
    raw = content.raw.get("dungeons") or {}
    keys = ("name", "gate", "enemy", "boss", "sigil", "requires", "dark")
    tiers = {
        str(tier): {key: spec.get(key) for key in keys}
        for tier, spec in (raw.get("tiers") or {}).items()
    }
    sanctum = raw.get("sanctum") or {}
    return {
        "tiers": tiers,
        "sanctum": {key: sanctum.get(key) for key in ("name", "tier", "boss", "offering", "dark")},
    }


def creatures_summary(content: object) -> dict:
    """Which creatures are bosses or hostile, their full health and whether they come out only
    at night, for bars, labels and remembered creatures."""
    return {
        kind: {
            "boss": bool(spec.get("boss")),
            "hostile": bool(spec.get("hostile")),
            "health": spec.get("health"),
            # shades: out only at night (a page draws no remembered one by day)
            "night_only": bool(spec.get("night_only")),
        }
        for kind, spec in content.creatures.items()
    }


@api.get("/api/content")
def content() -> ResponseReturnValue:
    # Content is immutable after loading, so reading it off the runner thread is safe.
    world = current_app.extensions[SERVICES].runner.world
    return jsonify(content_summary(world.content))
