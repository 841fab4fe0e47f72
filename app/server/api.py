"""JSON endpoints: health and a summary of the live world."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify
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
        "characters": characters,
    }


@api.get("/healthz")
def healthz() -> ResponseReturnValue:
    runner = current_app.extensions["asiworld"].runner
    stats = runner.stats()
    return jsonify({"ok": True, "tick": stats["tick"], "running": stats["running"]})


@api.get("/api/world")
def world() -> ResponseReturnValue:
    runner = current_app.extensions["asiworld"].runner
    return jsonify(world_summary(runner.keyframe(), runner.stats()))
