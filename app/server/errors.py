"""The server's one error answer.

Every error a person may see is a `CodedError` (asiworld.engine.errors): a stable code and a
sentence. Raised while a request is handled, any of them becomes the same JSON body,

    {"ok": false, "code", "message", "error": {"code", "message", ...extra}}

(`error` for the agent API's clients, the flat fields for the pages and the admin tools), with the
error's own HTTP status, or the one its code has here. Socket.IO answers carry the same body plus
the `event` it answers.
"""

from __future__ import annotations

from typing import Any

from asiworld.engine.errors import CodedError
from flask import Flask, Response, jsonify

# The HTTP status of errors that do not carry one (replays, results), by code; others are 422.
STATUS_BY_CODE = {
    "unknown_replay": 404,
    "not_found": 404,
    "unknown_chunk": 404,
    "tick_out_of_range": 404,
    "no_keyframe": 404,
    "unknown_character": 404,
    "bad_argument": 400,
    "not_admin": 403,
}
DEFAULT_STATUS = 422


class ApiError(CodedError):
    """An answer with an HTTP status and a stable code; raised before anything changes."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(code, message, **extra)
        self.http_status = status

    @property
    def status(self) -> int:
        return self.http_status

    def body(self) -> dict:
        return error_body(self)


def error_body(exc: CodedError, **more: Any) -> dict[str, Any]:
    return {"ok": False, "code": exc.code, "message": exc.message, **more, "error": exc.to_dict()}


def status_of(exc: CodedError) -> int:
    return exc.http_status or STATUS_BY_CODE.get(exc.code, DEFAULT_STATUS)


def error_response(exc: CodedError, status: int | None = None) -> tuple[Response, int]:
    return jsonify(error_body(exc)), status or status_of(exc)


# Flask's own refusals, in the same shape.
HTTP_ERRORS = (
    (404, "not_found", "there is nothing at this address"),
    (405, "method_not_allowed", "this address does not take that method"),
    (413, "too_large", "the request body is too large"),
)


def install(app: Flask) -> None:
    """Answer every CodedError raised in a request, and Flask's 404/405/413, as above."""
    app.register_error_handler(CodedError, error_response)
    for status, code, message in HTTP_ERRORS:
        app.register_error_handler(status, _answer(ApiError(status, code, message)))


def _answer(exc: ApiError) -> Any:
    def handler(_: Exception) -> tuple[Response, int]:
        return error_response(exc)

    return handler
