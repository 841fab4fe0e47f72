"""Who may do what: the admin token, the spectator token and characters' tokens.

* **Admin** (`ADMIN_TOKEN`, `asiworld serve --admin-token`, generated and printed when not
  given): pause, resume, step, speed, kick, snapshot. Sent as `X-Admin-Token: T` or
  `Authorization: Bearer T`. An app made without one (tests, embedding) accepts loopback only.
* **Spectators** (`SPECTATOR_TOKEN`, `--spectator-token`): when set, the whole-world views (the
  `spectate`, `resync` and `follow` events, `/api/world`) need it — in the event payload as
  `spectator_token`, in the Socket.IO connect auth, or as the `asiworld_spectator` cookie that
  opening any page with `?spectator_token=T` sets. When unset, spectating is public.
* **Characters**: every event and route that acts for or reads a character's own view needs
  that character's token (browser players: the `join` token; agents: the agent API token). Only
  sha256 hashes are kept on disk (app/server/persistence.py).

`install(app)` wires the checks that run before any handler (validation, rate limits, the
spectator cookie); it is called once per app from the `api` blueprint's registration.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import threading
from http.cookies import SimpleCookie
from typing import Any

from asiworld.server import errors
from asiworld.server.extensions import AGENTS, GATE
from asiworld.server.validation import (
    MAX_CONTENT_LENGTH,
    RateLimiter,
    check_request,
    guard_socketio,
)
from flask import Flask, Request, request
from flask.typing import ResponseReturnValue

SPECTATOR_COOKIE = "asiworld_spectator"
LOOPBACK = ("127.0.0.1", "::1", "localhost", None)


def token_hash(token: str) -> str:
    """What is kept of a token (in memory and on disk): its sha256."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token(nbytes: int = 24) -> str:
    """A secret token that never begins with "-": tokens are printed in commands to copy
    (`asiworld mcp --token T`), where one beginning with "-" reads as an option (one in 64 did)."""
    while True:
        token = secrets.token_urlsafe(nbytes)
        if not token.startswith("-"):
            return token


def same(given: str | None, expected: str | None) -> bool:
    """Constant-time comparison; an unset expected token matches nothing."""
    if not expected or not isinstance(given, str):
        return False
    return hmac.compare_digest(given.encode(), str(expected).encode())


def is_loopback(address: str | None) -> bool:
    if address in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(address).is_loopback  # type: ignore[arg-type]
    except ValueError:
        return False


def bearer(req: Request) -> str | None:
    scheme, _, token = req.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def admin_allowed(req: Request, config: Any) -> bool:
    expected = config.get("ADMIN_TOKEN")
    if not expected:
        return is_loopback(req.remote_addr)
    # Headers only: a token in the query string lands in access logs and browser history.
    given = req.headers.get("X-Admin-Token") or bearer(req)
    return same(given, expected)


# --- spectators -----------------------------------------------------------------------------


class Gate:
    """Per-app state of the edge checks: the rate limiter and which Socket.IO connections
    showed the spectator token when they connected."""

    def __init__(self, config: Any) -> None:
        self.config = config
        self.limiter = RateLimiter(config.get("RATE_LIMITS"))
        self._spectators: set[str] = set()
        self._lock = threading.Lock()

    def spectating_is_public(self) -> bool:
        return not self.config.get("SPECTATOR_TOKEN")

    def on_connect(self, namespace: str, sid: str, environ: dict, auth: Any) -> None:
        if namespace != "/" or self.spectating_is_public():
            return
        given = auth.get("spectator_token") if isinstance(auth, dict) else None
        if not given:
            cookie = SimpleCookie(environ.get("HTTP_COOKIE", ""))
            given = cookie[SPECTATOR_COOKIE].value if SPECTATOR_COOKIE in cookie else None
        if same(given, self.config.get("SPECTATOR_TOKEN")):
            with self._lock:
                self._spectators.add(sid)

    def may_spectate(self, sid: str, payload: Any) -> bool:
        if self.spectating_is_public():
            return True
        given = payload.get("spectator_token") if isinstance(payload, dict) else None
        if same(given, self.config.get("SPECTATOR_TOKEN")):
            with self._lock:
                self._spectators.add(sid)
            return True
        with self._lock:
            return sid in self._spectators

    def may_spectate_http(self, req: Request) -> bool:
        if self.spectating_is_public():
            return True
        given = (
            req.headers.get("X-Spectator-Token")
            or req.args.get("spectator_token")
            or req.cookies.get(SPECTATOR_COOKIE)
        )
        return same(given, self.config.get("SPECTATOR_TOKEN"))

    def forget(self, sid: str) -> None:
        with self._lock:
            self._spectators.discard(sid)


def gate(app: Flask) -> Gate:
    return app.extensions[GATE]


def install(app: Flask) -> None:
    """Edge checks for one app: REST bodies and rate limits before every request, every
    Socket.IO event checked before its handler, the spectator cookie."""
    if GATE in app.extensions:
        return
    the_gate = Gate(app.config)
    app.extensions[GATE] = the_gate
    app.config["MAX_CONTENT_LENGTH"] = MAX_CONTENT_LENGTH
    guard_socketio(app.extensions["socketio"].server, the_gate.limiter, the_gate.on_connect)

    def known(token: str) -> bool:
        if same(token, app.config.get("ADMIN_TOKEN")):
            return True
        agents = app.extensions.get(AGENTS)
        return agents is not None and agents.knows(token)

    @app.before_request
    def check_edge() -> ResponseReturnValue | None:
        refused = check_request(request, the_gate.limiter, known)
        if refused is None:
            return None
        status, exc = refused
        reply, status = errors.error_response(exc, status)
        if status == 429:
            return reply, 429, {"Retry-After": "1"}
        return reply, status

    @app.after_request
    def remember_spectator(response: Any) -> Any:
        given = request.args.get("spectator_token")
        if given and same(given, app.config.get("SPECTATOR_TOKEN")):
            response.set_cookie(SPECTATOR_COOKIE, given, httponly=True, samesite="Strict")
        return response

    errors.install(app)


# --- characters -----------------------------------------------------------------------------
