"""Which seat a token plays: `GET /api/agents/seat`, what a human seat's /play page asks first.

A study prints a join link for each human seat (`/play?character=C&token=T`, or the token alone
pasted into the page); the page learns from here the character the token acts for, the study's
clock and horizon and the seat's open turn, then plays through the agent API as any seat does.
The link's `character` is checked against the token: a token of another seat is `wrong_seat`.
"""

from __future__ import annotations

from asiworld.engine import codes
from asiworld.server.agent_api import _bearer, _service
from asiworld.server.errors import ApiError
from flask import Blueprint, jsonify, request
from flask.typing import ResponseReturnValue

seat_api = Blueprint("seat_api", __name__)


@seat_api.get("/api/agents/seat")
def seat() -> ResponseReturnValue:
    service = _service()
    token = _bearer()
    service.refuse_if_ended(token)
    if token is None:
        raise ApiError(codes.MISSING_TOKEN, "send the seat's token as 'Authorization: Bearer "
                       "TOKEN' (the token in the join link the study printed)")
    owner = service.char_for(token)  # the seat's first call: a study's entry waits for it
    if owner is None:
        raise ApiError(codes.UNKNOWN_TOKEN, "this token is not a seat of this world: open the "
                       "join link the study printed, or paste its token")
    asked = request.args.get("character")
    if asked is not None and asked != str(owner):
        raise ApiError(codes.WRONG_SEAT, f"this token plays character {owner}, not "
                       f"{asked!r}: it is another seat's; open the link printed for this seat")
    mine = service.seats.get(owner)
    return jsonify({
        "character": owner, "name": mine.name if mine else "", "label": mine.label if mine else "",
        "study": service.study,
        "turn": service.turns.offer(owner) if service.turns is not None else None,
    })
