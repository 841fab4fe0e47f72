"""Socket.IO events: spectate, follow, join, act, observe.

Every handler validates its payload first; a malformed one gets an `error` event
`{code, message, event}` (and the same dict as the acknowledgement) and changes nothing.
Engine refusals are not errors: `act` answers with the engine's ActionResult, sentence included.
"""

from __future__ import annotations

import re
from typing import Any

from asiworld.engine import codes
from asiworld.engine.errors import CodedError
from asiworld.server import auth
from asiworld.server.errors import error_body
from asiworld.server.extensions import SERVICES
from asiworld.server.joining import JoinRefused, character_count, join_gate
from asiworld.server.live import LiveRooms, Seat, restore_player_seat
from asiworld.server.names import check_player_name
from flask import current_app, request
from flask_socketio import SocketIO, emit

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_\- ]{1,24}$")


class BadEvent(CodedError):
    """An event the handler refuses (no seat, no spectator token)."""


def _live() -> LiveRooms:
    return current_app.extensions[SERVICES].live


def _payload(data: Any) -> dict:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise BadEvent(codes.BAD_REQUEST, "the event payload must be a JSON object")
    return data


def _seat(data: dict) -> Seat:
    token = data.get("token")
    if not isinstance(token, str) or not token:
        raise BadEvent(codes.BAD_TOKEN, "a player token is required: join first")
    seat = _live().seats.get(token) or restore_player_seat(current_app, token)
    if seat is None:
        raise BadEvent(codes.UNKNOWN_TOKEN, "this player token is not known here: join again")
    return seat


def _spectator(data: Any) -> None:
    if not auth.gate(current_app).may_spectate(request.sid, data):
        raise BadEvent(codes.NOT_SPECTATOR, "spectating this world needs the spectator token")


def _fail(event: str, exc: CodedError) -> dict:
    body = error_body(exc, event=event)
    emit("error", body)
    return body


def register(socketio: SocketIO) -> None:
    """Attach the handlers to the module-level SocketIO (once, at import of the factory)."""

    @socketio.on("connect")
    def on_connect(auth: Any = None) -> None:
        emit("hello", {"server": "asiworld"})

    @socketio.on("disconnect")
    def on_disconnect(*_: Any) -> None:
        _live().forget(request.sid)
        auth.gate(current_app).forget(request.sid)

    @socketio.on("spectate")
    def on_spectate(data: Any = None) -> dict:
        try:
            _spectator(_payload(data))
        except BadEvent as exc:
            return _fail("spectate", exc)
        return {"ok": True, **_live().add_spectator(request.sid)}

    # A client that noticed a gap in frame ticks asks for a fresh keyframe.
    socketio.on("resync")(on_spectate)

    @socketio.on("follow")
    def on_follow(data: Any = None) -> dict:
        try:
            body = _payload(data)
            _spectator(body)
            char = body.get("char")
            if char is not None and (not isinstance(char, int) or isinstance(char, bool)):
                raise BadEvent(codes.BAD_ARGUMENT, "follow needs `char`: a character id (integer)")
            obs = _live().follow(request.sid, char)
            if char is not None and obs is None:
                _live().follow(request.sid, None)
                raise BadEvent(codes.UNKNOWN_CHARACTER, f"there is no character {char}")
        except BadEvent as exc:
            return _fail("follow", exc)
        if obs is not None:
            emit("follow", obs)
        return {"ok": True, "char": char}

    @socketio.on("join")
    def on_join(data: Any = None) -> dict:
        try:
            body = _payload(data)
            live = _live()
            if "token" in body:
                seat = live.reseat(request.sid, _seat(body).token)
            else:
                name = body.get("name")
                if not isinstance(name, str) or not NAME_PATTERN.match(name.strip() or "-"):
                    raise BadEvent(
                        codes.BAD_NAME,
                        "a name is 1 to 24 letters, digits, spaces, '-' or '_'",
                    )
                name = " ".join(name.split())
                sid = request.sid

                def seat_if_free() -> Seat:  # under the gate's lock: two joins never share a name
                    check_player_name(name, live.runner.call(
                        lambda: [c.name for c in live.runner.world.characters()]))
                    return live.seat(sid, name)

                seat = join_gate(current_app).admit(
                    body.get("join_token"), lambda: character_count(live.runner), seat_if_free
                )
        except (BadEvent, JoinRefused) as exc:
            return _fail("join", exc)
        reply = {"ok": True, "token": seat.token, "char": seat.char, "name": seat.name}
        emit("joined", reply)
        emit("observation", live.observe_for(seat, full_memory=True))
        return reply

    @socketio.on("act")
    def on_act(data: Any = None) -> dict:
        try:
            body = _payload(data)
            seat = _seat(body)
            action = body.get("action")
            if not isinstance(action, dict) or not isinstance(action.get("type"), str):
                raise BadEvent(codes.BAD_ACTION, "`action` must be an object with a string `type`")
            runner = _live().runner
            try:
                # The tick is read on the runner thread with the submit: the tick it applies at.
                result, tick = runner.call(
                    lambda: (runner.world.submit(seat.char, action), runner.world.tick)
                )
            except (TypeError, ValueError, KeyError) as err:  # engine should refuse, not raise
                raise BadEvent(
                    codes.BAD_ACTION, f"the engine could not read this action: {err}"
                ) from err
        except BadEvent as exc:
            return _fail("act", exc)
        reply = {**result.to_dict(), "tick": tick}
        emit("result", reply)
        return reply

    @socketio.on("observe")
    def on_observe(data: Any = None) -> dict:
        try:
            body = _payload(data)
            seat = _seat(body)
        except BadEvent as exc:
            return _fail("observe", exc)
        obs = _live().observe_for(seat, full_memory=bool(body.get("full_memory")))
        emit("observation", obs)
        return {"ok": True, "tick": obs.get("tick") if obs else None}
