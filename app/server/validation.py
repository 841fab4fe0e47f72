"""Input checks at the server's edge: schemas, size limits and per-connection rate limits.

Every Socket.IO event and every REST body is checked here before any handler runs, so a
malformed, oversized or too-frequent message changes nothing and gets a clear answer:

* Socket.IO: an `error` event and the same dict as the acknowledgement,
  `{"ok": false, "code", "message", "event", "error": {"code", "message"}}`.
* REST: a 4xx with `{"error": {"code", "message"}}` (400 malformed, 413 too large, 429 too
  frequent, with `Retry-After`).

The schemas are small declarative objects (`Obj`, `Str`, `Int`, ...). An event or a route that
accepts a body but has no schema here is refused (`no_schema`): adding one without a schema
fails closed, and tests/hardening lists every route and event.

`install_guards(app)` hooks both in: a Flask `before_request` for REST, and a wrapper around the
Socket.IO server's event dispatch for every namespace.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from asiworld.engine.errors import CodedError
from asiworld.server import errors

MAX_MESSAGE_BYTES = 16 * 1024  # one Socket.IO event payload or REST body, as JSON
MAX_PROGRAM_BYTES = 32 * 1024  # program source
MAX_PROGRAM_BODY = MAX_PROGRAM_BYTES * 2 + 1024  # the JSON body around it (escapes can double)
MAX_CONTENT_LENGTH = 128 * 1024  # anything longer is cut off by Flask itself (413)


class Invalid(CodedError, ValueError):
    """A message that does not fit its schema; `code` is stable, `message` says why."""


# --- schemas --------------------------------------------------------------------------------
# Each spec raises Invalid with its own `code` (default `bad_argument`); an object field reports
# the code of its top-level field, so `{"action": {"dir": "n"}}` is a `bad_action`.


class Spec:
    code: str = "bad_argument"

    def check(self, value: Any, where: str) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def fail(self, message: str) -> Invalid:
        return Invalid(self.code, message)


@dataclass(frozen=True)
class Str(Spec):
    max_len: int = 200
    min_len: int = 0
    pattern: str | None = None
    code: str = "bad_argument"

    def check(self, value: Any, where: str) -> None:
        if not isinstance(value, str):
            raise self.fail(f"{where} must be text")
        if not self.min_len <= len(value) <= self.max_len:
            raise self.fail(f"{where} is {self.min_len} to {self.max_len} characters long")
        if self.pattern is not None and not re.fullmatch(self.pattern, value):
            raise self.fail(f"{where} has characters that are not allowed")


@dataclass(frozen=True)
class Int(Spec):
    lo: int = -(2**31)
    hi: int = 2**31 - 1
    code: str = "bad_argument"

    def check(self, value: Any, where: str) -> None:
        if type(value) is not int:
            raise self.fail(f"{where} must be a whole number")
        if not self.lo <= value <= self.hi:
            raise self.fail(f"{where} must be between {self.lo} and {self.hi}")


@dataclass(frozen=True)
class Num(Spec):
    lo: float
    hi: float
    code: str = "bad_argument"

    def check(self, value: Any, where: str) -> None:
        if type(value) not in (int, float) or value != value:  # no bools, no NaN
            raise self.fail(f"{where} must be a number")
        if not self.lo <= value <= self.hi:
            raise self.fail(f"{where} must be between {self.lo:g} and {self.hi:g}")


@dataclass(frozen=True)
class Bool(Spec):
    code: str = "bad_argument"

    def check(self, value: Any, where: str) -> None:
        if type(value) is not bool:
            raise self.fail(f"{where} must be true or false")


@dataclass(frozen=True)
class AnyOf(Spec):
    """The first option that fits; otherwise the last option's complaint."""

    options: tuple[Spec, ...]
    nullable: bool = False
    code: str = "bad_argument"
    what: str = ""  # "a number or text": said instead of the last option's complaint

    def check(self, value: Any, where: str) -> None:
        if value is None and self.nullable:
            return
        last: Invalid | None = None
        for option in self.options:
            try:
                option.check(value, where)
                return
            except Invalid as exc:
                last = exc
        assert last is not None
        if self.what:
            raise self.fail(f"{where} must be {self.what}")
        raise last


@dataclass(frozen=True)
class List(Spec):
    item: Spec
    max_items: int = 16
    code: str = "bad_argument"

    def check(self, value: Any, where: str) -> None:
        if not isinstance(value, list):
            raise self.fail(f"{where} must be a list")
        if len(value) > self.max_items:
            raise self.fail(f"{where} holds at most {self.max_items} items")
        for i, item in enumerate(value):
            self.item.check(item, f"{where}[{i}]")


@dataclass(frozen=True)
class Obj(Spec):
    """A JSON object with known keys; `rest` (when given) checks any other key's value.
    `nullable`: a missing payload (null) counts as an empty object."""

    fields: dict[str, Spec] = field(default_factory=dict)
    required: frozenset[str] = frozenset()
    rest: Spec | None = None
    max_keys: int = 16
    nullable: bool = False
    code: str = "bad_request"
    key_pattern: str = r"[a-z][a-z0-9_]{0,31}"

    def check(self, value: Any, where: str) -> None:
        if value is None and self.nullable:
            value = {}
        if not isinstance(value, dict):
            raise self.fail(f"{where} must be a JSON object")
        if len(value) > self.max_keys:
            raise self.fail(f"{where} has more than {self.max_keys} keys")
        for key in sorted(self.required):
            if key not in value:
                raise Invalid(self.fields[key].code, f"{where} needs `{key}`")
        for key, item in value.items():
            spec = self.fields.get(key)
            if spec is None:
                if self.rest is None or not re.fullmatch(self.key_pattern, str(key)):
                    raise Invalid("unknown_argument", f"{where} does not take `{key}`")
                spec = self.rest
            try:
                spec.check(item, f"`{key}`" if where == "the message" else f"{where}.{key}")
            except Invalid as exc:
                raise Invalid(
                    spec.code if exc.code != "unknown_argument" else exc.code, exc.message
                ) from None


@dataclass(frozen=True)
class ByKey(Spec):
    """One of several object shapes, chosen by which key is present (join: name or token)."""

    choices: tuple[tuple[str, Obj], ...]
    default: Obj
    code: str = "bad_request"

    def check(self, value: Any, where: str) -> None:
        if isinstance(value, dict):
            for key, spec in self.choices:
                if key in value:
                    spec.check(value, where)
                    return
        self.default.check(value, where)


def obj(required: tuple[str, ...] = (), nullable: bool = False, **fields: Spec) -> Obj:
    return Obj(fields=fields, required=frozenset(required), nullable=nullable)


def named(code: str, spec: Spec) -> Spec:
    """The same spec reporting another code (`bad_name`, `bad_token`, ...)."""
    return type(spec)(**{**spec.__dict__, "code": code})


NAME = Str(max_len=24, min_len=1, pattern=r"[A-Za-z0-9_\- ]{1,24}", code="bad_name")
LABEL = Str(max_len=32, min_len=1, pattern=r"[A-Za-z0-9_.\-]{1,32}", code="bad_label")
TOKEN = Str(max_len=128, min_len=1, pattern=r"[A-Za-z0-9_\-.~+/=]+", code="bad_token")
CHAR_ID = Int(0, 2**31 - 1)

# An action: a `type` word plus a few small arguments; the engine checks what they mean.
ACTION_VALUE = AnyOf(
    (Int(-(10**6), 10**6), Str(max_len=200), Bool(), List(Int(0, 2**31 - 1))),
    what="a whole number, text of at most 200 characters, true/false or a list of ids",
)
ACTION = Obj(
    fields={"type": Str(max_len=32, min_len=1, pattern=r"[a-z_]{1,32}", code="bad_action")},
    required=frozenset({"type"}),
    rest=ACTION_VALUE,
    max_keys=8,
    code="bad_action",
)
SPECTATOR = obj(nullable=True, spectator_token=named("bad_spectator_token", TOKEN))

# Socket.IO events, by (namespace, event). `connect` carries the client's auth dict.
SOCKET_SCHEMAS: dict[tuple[str, str], Spec] = {
    ("/", "connect"): SPECTATOR,
    ("/", "spectate"): SPECTATOR,
    ("/", "resync"): SPECTATOR,
    ("/", "follow"): obj(
        nullable=True,
        char=AnyOf((CHAR_ID,), nullable=True),
        spectator_token=named("bad_spectator_token", TOKEN),
    ),
    ("/", "join"): ByKey(
        choices=(("token", obj(("token",), token=TOKEN)),), default=obj(("name",), name=NAME)
    ),
    ("/", "act"): obj(("token", "action"), token=TOKEN, action=ACTION),
    ("/", "observe"): obj(("token",), token=TOKEN, full_memory=Bool()),
    ("/agent", "connect"): obj(nullable=True, token=TOKEN),
    ("/agent", "observe"): obj(nullable=True, format=Str(max_len=8, code="bad_format")),
    ("/agent", "act"): obj(("action",), action=ACTION),
}
UNCHECKED_EVENTS = frozenset({"disconnect"})  # no client payload

# REST bodies, by Flask endpoint. GET and DELETE routes take no body (their query arguments
# are checked by the handlers); a route missing from here refuses any body.
EMPTY = obj(nullable=True)
REST_SCHEMAS: dict[str, Spec] = {
    "admin.pause": EMPTY,
    "admin.resume": EMPTY,
    "admin.step": obj(nullable=True, n=Int(1, 1000)),
    "admin.speed": obj(nullable=True, speed=Num(0.001, 1000)),
    "admin.kick": obj(("char",), char=CHAR_ID),
    "admin.snapshot": EMPTY,
    "agent_api.join": obj(("name",), name=NAME, label=LABEL),
    "agent_api.act": obj(("action",), action=ACTION),
    "agent_api.submit_program": obj(
        ("name", "source"),
        name=Str(max_len=64, code="bad_program"),
        source=Str(max_len=MAX_PROGRAM_BYTES, code="bad_program"),
    ),
    "agent_api.incident": obj(
        ("cause",),
        cause=Str(max_len=40, min_len=1, pattern=r"[a-z][a-z0-9_]{0,39}", code="bad_cause"),
        start=AnyOf((Int(0, code="bad_start"),), nullable=True, code="bad_start"),
        end=AnyOf((Int(0, code="bad_end"),), nullable=True, code="bad_end"),
        detail=Str(max_len=500, code="bad_detail"),
    ),
    "replays.fork": obj(
        tick=Int(0),
        char=AnyOf((CHAR_ID,), nullable=True),
        seed=AnyOf((Str(max_len=8), Int(0))),
    ),
}
BODY_LIMITS: dict[str, int] = {"agent_api.submit_program": MAX_PROGRAM_BODY}


def check_size(data: Any, limit: int = MAX_MESSAGE_BYTES) -> None:
    try:
        size = len(json.dumps(data, separators=(",", ":")))
    except (TypeError, ValueError) as exc:  # binary attachments, NaN, cycles
        raise Invalid("bad_request", "the message must be plain JSON") from exc
    if size > limit:
        raise Invalid("too_large", f"the message is {size} bytes; the limit is {limit}")


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
                "rate_limited",
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
    spec = SOCKET_SCHEMAS.get((namespace, event))
    if spec is None:
        raise Invalid("no_schema", f"the event {event!r} is not accepted here")
    if len(args) > 1:
        raise Invalid("bad_request", "an event carries one JSON payload")
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
            limiter.check(f"{namespace}{sid}", rate_kind(event))
        except Invalid as exc:
            body = error_body(event, exc)
            server.emit("error", body, to=sid, namespace=namespace)
            return body
        return dispatch(event, namespace, *args)

    guarded.asiworld_guard = True  # type: ignore[attr-defined]
    server._trigger_event = guarded


def check_request(request: Any, limiter: RateLimiter) -> tuple[int, Invalid] | None:
    """The REST side: body schema and size by endpoint, then the rate limit. Returns
    (status, error) to refuse, None to let the request through."""
    endpoint = request.endpoint or ""
    raw = request.get_data(cache=True)
    limit = BODY_LIMITS.get(endpoint, MAX_MESSAGE_BYTES)
    if len(raw) > limit:
        return 413, Invalid("too_large", f"the body is {len(raw)} bytes; the limit is {limit}")
    if request.method in ("POST", "PUT", "PATCH"):
        spec = REST_SCHEMAS.get(endpoint)
        if raw.strip():
            if spec is None:
                return 400, Invalid("no_schema", f"{request.path} takes no body")
            try:
                body = json.loads(raw)
            except (ValueError, UnicodeDecodeError):
                return 400, Invalid("bad_json", "the request body must be JSON")
            if not isinstance(body, dict):
                return 400, Invalid("bad_json", "the request body must be a JSON object")
        else:
            body = None
        if spec is not None:
            try:
                spec.check(body, "the message")
            except Invalid as exc:
                return (400, Invalid("bad_json", exc.message)) if body is None else (422, exc)
    elif raw.strip():
        return 400, Invalid("no_schema", f"{request.method} {request.path} takes no body")
    token = request.headers.get("Authorization", "") or request.headers.get("X-Admin-Token", "")
    connection = f"{request.remote_addr}|{token[-16:]}"
    try:
        limiter.check(connection, rate_kind(endpoint))
    except Invalid as exc:
        return 429, exc
    return None
