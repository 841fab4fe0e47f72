"""Admin controls: pause, resume, step and speed.

The check is deliberately simple for now (a later issue hardens auth): with ADMIN_TOKEN set, a
request must carry it in `X-Admin-Token` (or `?token=`); without one, only loopback clients may
control the world.
"""

from __future__ import annotations

import hmac

from flask import Blueprint, current_app, jsonify, request
from flask.typing import ResponseReturnValue

admin = Blueprint("admin", __name__, url_prefix="/admin")


def _refusal(code: str, message: str, status: int) -> ResponseReturnValue:
    return jsonify({"ok": False, "code": code, "message": message}), status


@admin.before_request
def check_admin() -> ResponseReturnValue | None:
    token = current_app.config.get("ADMIN_TOKEN")
    if token:
        given = request.headers.get("X-Admin-Token") or request.args.get("token") or ""
        if not hmac.compare_digest(given.encode(), str(token).encode()):
            return _refusal("not_admin", "this control needs the admin token", 403)
    elif request.remote_addr not in ("127.0.0.1", "::1", None):
        return _refusal("not_admin", "without an admin token only loopback may control", 403)
    return None


def _runner():
    return current_app.extensions["asiworld"].runner


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
        return _refusal("bad_argument", "n must be a whole number of ticks", 400)
    if not 1 <= n <= 1000:
        return _refusal("bad_argument", "n must be between 1 and 1000 ticks", 400)
    tick = _runner().step(n)
    return jsonify({"ok": True, "tick": tick})


@admin.post("/speed")
def speed() -> ResponseReturnValue:
    raw = request.args.get("speed") or (request.get_json(silent=True) or {}).get("speed")
    try:
        value = float(raw)
    except (TypeError, ValueError):
        return _refusal("bad_argument", "speed must be a number of ticks per second", 400)
    if not 0 < value <= 1000:
        return _refusal("bad_argument", "speed must be above 0 and at most 1000", 400)
    _runner().set_speed(value)
    return jsonify({"ok": True, **_runner().stats()})
