"""Input checks at the server's edge: schemas, size limits and per-connection rate limits.

Every Socket.IO event and every REST body is checked here before any handler runs, so a
malformed, oversized or too-frequent message changes nothing and gets a clear answer:

* Socket.IO: an `error` event and the same dict as the acknowledgement,
  `{"ok": false, "code", "message", "event", "error": {"code", "message"}}`.
* REST: a 4xx with `{"error": {"code", "message"}}` (400 malformed, 413 too large, 429 too
  frequent, with `Retry-After`).

The schemas are small declarative objects (`Obj`, `Str`, `Int`, ... in schemas.py), one per
route and event in the endpoint table (endpoints.py), which the OpenAPI document is made from
too. An event or a route that accepts a body but has no schema there is refused (`no_schema`):
adding one without a schema fails closed, and tests/hardening lists every route and event.

`install_guards(app)` hooks both in: a Flask `before_request` for REST, and a wrapper around the
Socket.IO server's event dispatch for every namespace.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from asiworld.engine import codes
from asiworld.server import errors
from asiworld.server.endpoints import (  # noqa: F401  (the tables, read here and by tests)
    EVENTS,
    MAX_MESSAGE_BYTES,
    MAX_PROGRAM_BODY,
    MAX_PROGRAM_BYTES,
    REST_SCHEMAS,
    ROUTES,
    SOCKET_SCHEMAS,
    UNCHECKED_EVENTS,
)
from asiworld.server.nesting import MAX_DEPTH, TooDeep, too_deep
from asiworld.server.schemas import ACTION, Invalid, Spec  # noqa: F401

MAX_CONTENT_LENGTH = 128 * 1024  # anything longer is cut off by Flask itself (413)


# The tables these checks read (and the OpenAPI document shows) are the endpoint table's.
def deep_error() -> Invalid:
    return Invalid(codes.TOO_DEEP, f"the message nests deeper than {MAX_DEPTH} levels")


def check_size(data: Any, limit: int = MAX_MESSAGE_BYTES) -> None:
    try:
        size = len(json.dumps(data, separators=(",", ":")))
    except (TypeError, ValueError) as exc:  # binary attachments, NaN, cycles
        raise Invalid(codes.BAD_REQUEST, "the message must be plain JSON") from exc
    if size > limit:
        raise Invalid(codes.TOO_LARGE, f"the message is {size} bytes; the limit is {limit}")


# --- rate limits ----------------------------------------------------------------------------


@dataclass
class TokenBucket:
    """`rate` tokens per second, holding at most `burst`; each message takes one."""

    rate: float
    burst: float
    tokens: float = -1.0
    stamp: float = 0.0

    def take(self, now: float) -> float:
        """0.0 when allowed, else the seconds until a token is there."""
        if self.tokens < 0:
            self.tokens, self.stamp = self.burst, now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate


# kind -> (per second, burst). Acts are what agents send most; joins make characters.
DEFAULT_RATES: dict[str, tuple[float, float]] = {
    "act": (20.0, 40.0),
    "join": (2.0, 20.0),
    "program": (2.0, 10.0),
    "other": (30.0, 60.0),
}


def join_key(address: str | None) -> str:
    """The join bucket of one client address, shared by REST and Socket.IO joins. Behind a
    reverse proxy every client has the proxy's address (docs/operations.md)."""
    return f"join|{address}"


def rate_kind(event_or_endpoint: str) -> str:
    name = event_or_endpoint.rsplit(".", 1)[-1]
    if name == "act":
        return "act"
    if name == "join":
        return "join"
    if name in ("submit_program", "cancel_program"):
        return "program"
    return "other"


class RateLimiter:
    """Token buckets per (connection, kind); forgotten when the connection goes."""

    def __init__(
        self,
        rates: dict[str, tuple[float, float]] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rates = {**DEFAULT_RATES, **(rates or {})}
        self.clock = clock
        self._buckets: dict[tuple[str, str], TokenBucket] = {}
        self._lock = threading.Lock()
        self.refused = 0

    def check(self, connection: str, kind: str) -> None:
        rate, burst = self.rates.get(kind, self.rates["other"])
        with self._lock:
            bucket = self._buckets.get((connection, kind))
            if bucket is None:
                if len(self._buckets) > 100_000:  # REST keys never disconnect: stay bounded
                    self._buckets.clear()
                bucket = self._buckets[(connection, kind)] = TokenBucket(rate, burst)
            wait = bucket.take(self.clock())
            if wait > 0:
                self.refused += 1
        if wait > 0:
            raise Invalid(
                codes.RATE_LIMITED,
                f"too many {kind} messages: at most {rate:g} a second (burst {burst:g}); "
                f"retry in {wait:.2f} s",
            )

    def forget(self, connection: str) -> None:
        with self._lock:
            for key in [k for k in self._buckets if k[0] == connection]:
                del self._buckets[key]


# --- wiring ---------------------------------------------------------------------------------


def error_body(event: str, exc: Invalid) -> dict:
    return errors.error_body(exc, event=event)


def check_event(namespace: str, event: str, args: tuple) -> None:
    """Raise Invalid unless the event's single payload fits its schema (no payload = null)."""
    if any(isinstance(arg, TooDeep) for arg in args):
        raise deep_error()
    declared = EVENTS.get((namespace, event))
    if declared is None:
        raise Invalid(codes.NO_SCHEMA, f"the event {event!r} is not accepted here")
    spec = declared.payload
    if len(args) > 1:
        raise Invalid(codes.BAD_REQUEST, "an event carries one JSON payload")
    payload = args[0] if args else None
    check_size(payload)
    spec.check(payload, "the message")


def guard_socketio(server: Any, limiter: RateLimiter, on_connect: Callable | None = None) -> None:
    """Wrap a python-socketio Server's event dispatch: every event of every namespace is
    checked (schema, size, rate) before its handler runs."""
    dispatch = server._trigger_event
    if getattr(dispatch, "asiworld_guard", False):
        return

    def guarded(event: str, namespace: str, *args: Any) -> Any:
        namespace = namespace or "/"
        if event in UNCHECKED_EVENTS:
            limiter.forget(f"{namespace}{args[0] if args else ''}")
            return dispatch(event, namespace, *args)
        if event == "connect":  # (sid, environ, auth)
            sid, environ, *rest = args
            try:
                check_event(namespace, event, tuple(rest[:1]) if rest else ())
            except Invalid:
                return False  # refuses the connection
            if on_connect is not None:
                on_connect(namespace, sid, environ, rest[0] if rest else None)
            return dispatch(event, namespace, *args)
        sid, payload = (args[0] if args else ""), args[1:]
        try:
            check_event(namespace, event, payload)
            kind = rate_kind(event)
            if kind == "join":  # per client address: a reconnect is a new sid, not a new client
                environ = server.get_environ(sid, namespace) or {}
                limiter.check(join_key(environ.get("REMOTE_ADDR")), kind)
            else:
                limiter.check(f"{namespace}{sid}", kind)
        except Invalid as exc:
            body = error_body(event, exc)
            server.emit("error", body, to=sid, namespace=namespace)
            return body
        return dispatch(event, namespace, *args)

    guarded.asiworld_guard = True  # type: ignore[attr-defined]
    server._trigger_event = guarded


def check_request(request: Any, limiter: RateLimiter,
                  known: Callable[[str], bool] = lambda token: False) -> tuple[int, Invalid] | None:
    """The REST side: body schema and size by endpoint, then the rate limit. Returns
    (status, error) to refuse, None to let the request through. `known(token)`: whether a
    token is one this server gave (only such a token has a bucket of its own)."""
    endpoint = request.endpoint or ""
    raw = request.get_data(cache=True)
    route = ROUTES.get(endpoint)
    limit = route.limit if route is not None else MAX_MESSAGE_BYTES
    if len(raw) > limit:
        return 413, Invalid(codes.TOO_LARGE, f"the body is {len(raw)} bytes; the limit is {limit}")
    if request.method in ("POST", "PUT", "PATCH"):
        spec = route.body if route is not None else None
        if raw.strip():
            if spec is None:
                return 400, Invalid(codes.NO_SCHEMA, f"{request.path} takes no body")
            if too_deep(raw):  # before json.loads, which recurses once per level
                return 400, deep_error()
            try:
                body = json.loads(raw)
            except (ValueError, UnicodeDecodeError):
                return 400, Invalid(codes.BAD_JSON, "the request body must be JSON")
            if not isinstance(body, dict):
                return 400, Invalid(codes.BAD_JSON, "the request body must be a JSON object")
        else:
            body = None
        if spec is not None:
            try:
                spec.check(body, "the message")
            except Invalid as exc:
                return (400, Invalid(codes.BAD_JSON, exc.message)) if body is None else (422, exc)
    elif raw.strip():
        return 400, Invalid(codes.NO_SCHEMA, f"{request.method} {request.path} takes no body")
    if endpoint == "static":
        # A page's own scripts, styles and sprites are files, not calls: one page asks for about
        # 25 of them, and counted here two page loads in a second had a module script refused
        # and the page stuck loading. A flood of files is a reverse proxy's to bound.
        return None
    kind = rate_kind(endpoint)
    token = request.headers.get("Authorization", "") or request.headers.get("X-Admin-Token", "")
    token = token.removeprefix("Bearer ").strip()
    if kind != "join" and token and known(token):
        # Agents behind one address (a study's seats on loopback) each have a bucket; a token
        # nobody was given buys none: it shares its address's, so made-up headers cannot
        # multiply a client's rate, nor guess tokens faster than it
        connection = f"{request.remote_addr}|{token[-16:]}"
    else:
        connection = join_key(request.remote_addr) if kind == "join" else \
            f"{request.remote_addr}|"
    try:
        limiter.check(connection, kind)
    except Invalid as exc:
        return 429, exc
    return None
