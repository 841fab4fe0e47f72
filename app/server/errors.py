"""The server's one error answer.

Every error a person may see is a `CodedError` (asiworld.engine.errors): a stable code and a
sentence. Raised while a request is handled, any of them becomes the same JSON body,

    {"ok": false, "code", "message", "error": {"code", "message", ...extra}}

(`error` for the agent API's clients, the flat fields for the pages and the admin tools), with the
error's own HTTP status, or the one the table of codes gives it (asiworld.engine.codes, listed in
docs/errors.md), or 422. Socket.IO answers carry the same body plus the `event` it answers.
Flask's own refusals (an unknown address, a wrong method) answer a browser, one that asks for
text/html before JSON, with an HTML page saying the same code and sentence.
"""

from __future__ import annotations

from typing import Any

from asiworld.engine import codes
from asiworld.engine.errors import CodedError
from asiworld.server.pages import replays_url
from flask import Flask, Response, jsonify, render_template, request

DEFAULT_STATUS = 422  # a code the table gives no status


class ApiError(CodedError):
    """An answer with a stable code and its HTTP status, the table's unless `status` says
    otherwise (a code a world refused with, answered as 422 whatever it is); raised before
    anything changes."""

    def __init__(self, code: str, message: str, status: int | None = None, **extra: Any) -> None:
        super().__init__(code, message, **extra)
        self.http_status = status or codes.status(code) or DEFAULT_STATUS

    @property
    def status(self) -> int:
        return self.http_status

    def body(self) -> dict:
        return error_body(self)


def error_body(exc: CodedError, **more: Any) -> dict[str, Any]:
    return {"ok": False, "code": exc.code, "message": exc.message, **more, "error": exc.to_dict()}


def status_of(exc: CodedError) -> int:
    return exc.http_status or codes.status(exc.code) or DEFAULT_STATUS


def error_response(exc: CodedError, status: int | None = None) -> tuple[Response, int]:
    return jsonify(error_body(exc)), status or status_of(exc)


# Flask's own refusals (404, 405, 413), in the same shape.
HTTP_ERRORS = (
    (codes.NOT_FOUND, "there is nothing at this address"),
    (codes.METHOD_NOT_ALLOWED, "this address does not take that method"),
    (codes.TOO_LARGE, "the request body is too large"),
)


def install(app: Flask) -> None:
    """Answer every CodedError raised in a request, and Flask's 404/405/413, as above."""
    app.register_error_handler(CodedError, error_response)
    for code, message in HTTP_ERRORS:
        refusal = ApiError(code, message)
        app.register_error_handler(refusal.status, _answer(refusal))


HEADINGS = {404: "Nothing here", 405: "Not this way", 413: "Too large"}


def wants_html() -> bool:
    """A browser opening an address (Accept: text/html first); API clients, curl and fetch()
    ask for JSON or anything (*/*) and keep the JSON body."""
    accept = request.accept_mimetypes
    return accept["text/html"] > accept["application/json"]


def error_page(exc: ApiError) -> tuple[str, int]:
    status = status_of(exc)
    return render_template("error.html", code=exc.code, message=exc.message, status=status,
                           heading=HEADINGS.get(status, "Refused"), path=request.path,
                           replays_url=replays_url()), status


def _answer(exc: ApiError) -> Any:
    def handler(_: Exception) -> tuple[Response | str, int]:
        return error_page(exc) if wants_html() else error_response(exc)

    return handler
