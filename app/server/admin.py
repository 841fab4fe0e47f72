"""Admin controls: pause, resume, step, speed, kick and snapshot.

Every route needs the admin token (`X-Admin-Token: T` or `Authorization: Bearer T`; see
app/server/auth.py). `asiworld serve` always has one (given or generated and printed); an app
made without one accepts loopback clients only.
"""

from __future__ import annotations

from asiworld.engine import codes
from asiworld.server import auth
from asiworld.server.errors import ApiError, error_response
from asiworld.server.extensions import SERVICES, STORE
from asiworld.server.live import kick as kick_character
from flask import Blueprint, current_app, jsonify, request
from flask.typing import ResponseReturnValue

admin = Blueprint("admin", __name__, url_prefix="/admin")


def _refusal(code: str, message: str) -> ResponseReturnValue:
    return error_response(ApiError(code, message))


@admin.before_request
def check_admin() -> ResponseReturnValue | None:
    if auth.admin_allowed(request, current_app.config):
        return None
    if current_app.config.get("ADMIN_TOKEN"):
        return _refusal(codes.NOT_ADMIN, "this control needs the admin token")
    return _refusal(codes.NOT_ADMIN, "without an admin token only loopback may control")


def _runner():
    return current_app.extensions[SERVICES].runner


@admin.post("/pause")
def pause() -> ResponseReturnValue:
    _runner().pause()
    return jsonify({"ok": True, **_runner().stats()})


@admin.post("/resume")
def resume() -> ResponseReturnValue:
    _runner().resume()
    return jsonify({"ok": True, **_runner().stats()})


@admin.post("/step")
def step() -> ResponseReturnValue:
    raw = request.args.get("n") or (request.get_json(silent=True) or {}).get("n", 1)
    try:
        n = int(raw)
    except (TypeError, ValueError):
        return _refusal(codes.BAD_ARGUMENT, "n must be a whole number of ticks")
    if not 1 <= n <= 1000:
        return _refusal(codes.BAD_ARGUMENT, "n must be between 1 and 1000 ticks")
    tick = _runner().step(n)
    return jsonify({"ok": True, "tick": tick})


@admin.post("/speed")
def speed() -> ResponseReturnValue:
    raw = request.args.get("speed") or (request.get_json(silent=True) or {}).get("speed")
    try:
        value = float(raw)
    except (TypeError, ValueError):
        return _refusal(codes.BAD_ARGUMENT, "speed must be a number of ticks per second")
    if not 0 < value <= 1000:
        return _refusal(codes.BAD_ARGUMENT, "speed must be above 0 and at most 1000")
    _runner().set_speed(value)
    return jsonify({"ok": True, **_runner().stats()})


@admin.post("/kick")
def kick() -> ResponseReturnValue:
    body = request.get_json(silent=True) or {}
    char = body.get("char")
    if type(char) is not int:
        return _refusal(codes.BAD_ARGUMENT, "kick needs `char`: a character id")
    return jsonify({"ok": True, **kick_character(current_app, char)})


@admin.post("/snapshot")
def snapshot() -> ResponseReturnValue:
    store = current_app.extensions.get(STORE)
    if store is None:
        return _refusal(codes.NO_DATA_DIR, "this server keeps nothing on disk (no --data-dir)")
    return jsonify({"ok": True, "tick": store.snapshot_now()})
