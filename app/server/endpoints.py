"""The endpoint table: every REST route that takes a body or is documented, and every Socket.IO
event, with its body and its answers. The edge checks (validation.py) and the OpenAPI document
(openapi.py) are both made from it, so what is checked is what is documented.

A route's `body` is the schema its JSON body must fit (None: it takes none); `answers` are its
OpenAPI responses. Path parameters come from the path (`{cid}`, `{pid}`: integers); `query` holds
the documented query arguments. `documented=False` routes (admin controls, replay forks) are
checked the same way but left out of the agent API's document.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from asiworld.engine import codes
from asiworld.server.schemas import (
    ACTION,
    CHAR_ID,
    LABEL,
    NAME,
    TOKEN,
    AnyOf,
    Bool,
    ByKey,
    Int,
    Num,
    Obj,
    Spec,
    Str,
    json_schema,
    named,
    obj,
)

MAX_MESSAGE_BYTES = 16 * 1024  # one Socket.IO event payload or REST body, as JSON
MAX_PROGRAM_BYTES = 32 * 1024  # program source
MAX_PROGRAM_BODY = MAX_PROGRAM_BYTES * 2 + 1024  # the JSON body around it (escapes can double)


@dataclass(frozen=True)
class Route:
    endpoint: str  # the Flask endpoint, "agent_api.join"
    method: str
    path: str  # as OpenAPI writes it: /api/agents/{cid}/act
    body: Spec | None = None
    summary: str = ""
    operation_id: str = ""
    answers: dict[str, dict] = field(default_factory=dict)
    query: dict[str, dict] = field(default_factory=dict)
    public: bool = False  # no bearer token needed
    documented: bool = True
    limit: int = MAX_MESSAGE_BYTES  # body bytes


@dataclass(frozen=True)
class Event:
    namespace: str
    name: str
    payload: Spec
    answer: str = ""


# --- answers -------------------------------------------------------------------------------


def refusal(description: str) -> dict:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


def answer(schema: dict, description: str = "OK") -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


ANY_OBJECT = {"type": "object", "additionalProperties": True}
REFUSED = {
    "401": refusal("missing_token or unknown_token"),
    "403": refusal("not_your_character: the token belongs to another character"),
}
MALFORMED = {
    "400": refusal("bad_json: the body is not a JSON object"),
    "422": refusal("a field is missing or malformed; nothing changed"),
}
EMPTY = obj(nullable=True)
SPECTATOR = obj(nullable=True, spectator_token=named(codes.BAD_SPECTATOR_TOKEN, TOKEN))
JOIN_TOKEN = named(codes.BAD_JOIN_TOKEN, TOKEN)  # a closed world's (server/joining.py)

AGENTS = "/api/agents/{cid}"
# What a seat may report with its decision on a lockstep study: the tokens its own model used,
# charged as think time by the study's clock rule (asiworld.study.turns), as a model seat's call.
TOKEN_COUNT = Int(0, 10**9)
TOKENS = Obj(fields={"input": TOKEN_COUNT, "output": TOKEN_COUNT}, code=codes.BAD_ARGUMENT)
TURN_WAIT = 120  # seconds a next_turn may wait (agent_api.MAX_TURN_WAIT)

_ROUTES = (
    Route(
        "agent_api.join",
        "post",
        "/api/agents/join",
        obj(("name",), name=NAME, label=LABEL, join_token=JOIN_TOKEN),
        "Join the running world: a new character and its token (server/joining.py)",
        "join",
        {
            "201": answer(
                {
                    "type": "object",
                    "properties": {
                        "character": {"type": "integer"},
                        "name": {"type": "string"},
                        "label": {"type": "string"},
                        "token": {"type": "string"},
                    },
                },
                "joined",
            ),
            **MALFORMED,
            "403": refusal("join_closed: the world is closed and needs its join token"),
            "409": refusal("world_full: the world holds its most characters"),
            "429": refusal("rate_limited: too many joins from this client address"),
        },
        public=True,
    ),
    Route(
        "agent_api.observe",
        "get",
        f"{AGENTS}/observe",
        summary="The character's observation (JSON, or text for language models)",
        operation_id="observe",
        answers={"200": answer(ANY_OBJECT), **REFUSED},
        query={"format": {"type": "string", "enum": ["json", "text"], "default": "json"},
               "full_memory": {"type": "boolean", "default": False,
                               "description": "every tile the character remembers (JSON)"}},
    ),
    Route(
        "agent_api.act",
        "post",
        f"{AGENTS}/act",
        obj(("action",), action=ACTION, tokens=TOKENS),
        "Submit a direct action (stops the character's program unless `say`); on a lockstep "
        "study, `tokens` ({input, output}) is what your model used for it, charged as think time",
        "act",
        {
            "200": answer(ref("ActionResult"), "the world's answer: accepted, or refused with a code"),
            **REFUSED,
            **MALFORMED,
        },
    ),
    Route(
        "agent_api.submit_program",
        "post",
        f"{AGENTS}/programs",
        obj(
            ("name", "source"),
            name=Str(max_len=64, code=codes.BAD_PROGRAM, help="a short name, 1-64 characters"),
            source=Str(max_len=MAX_PROGRAM_BYTES, code=codes.BAD_PROGRAM, help="the program text"),
            tokens=TOKENS,
        ),
        "Submit a hosted program (replaces the character's current one)",
        "submitProgram",
        {
            "201": answer(
                {"type": "object", "properties": {"ok": {"type": "boolean"}, "id": {"type": "integer"}}},
                "started",
            ),
            **REFUSED,
            **MALFORMED,
        },
        limit=MAX_PROGRAM_BODY,
    ),
    Route(
        "agent_api.list_programs",
        "get",
        f"{AGENTS}/programs",
        summary="The character's programs and their status",
        operation_id="listPrograms",
        answers={
            "200": answer(
                {
                    "type": "object",
                    "properties": {"programs": {"type": "array", "items": ref("ProgramStatus")}},
                }
            ),
            **REFUSED,
        },
    ),
    Route(
        "agent_api.program_status",
        "get",
        f"{AGENTS}/programs/{{pid}}",
        summary="A program's status, logs and outcome",
        operation_id="programStatus",
        answers={"200": answer(ref("ProgramStatus")), **REFUSED, "404": refusal("unknown_program")},
    ),
    Route(
        "agent_api.cancel_program",
        "delete",
        f"{AGENTS}/programs/{{pid}}",
        summary="Cancel a program (its current operation is left to finish)",
        operation_id="cancelProgram",
        answers={
            "200": answer(ANY_OBJECT, "stopped"),
            **REFUSED,
            "404": refusal("unknown_program"),
            "409": refusal("not_running: the program had already ended"),
        },
    ),
    Route(
        "agent_api.next_turn",
        "get",
        f"{AGENTS}/next_turn",
        summary="On a lockstep study: wait for the character's turn ({turn: {tick, deadline, "
        "seconds_left}}, or {turn: null} after `timeout` seconds)",
        operation_id="nextTurn",
        answers={"200": answer(ANY_OBJECT), **REFUSED,
                 "409": refusal("no_turns: this world's clock takes no turns")},
        query={"timeout": {"type": "number", "default": 30, "minimum": 0, "maximum": TURN_WAIT},
               "after": {"type": "integer", "default": -1,
                         "description": "only a turn at a later tick (skip the one seen)"}},
    ),
    Route(
        "seat_api.seat",
        "get",
        "/api/agents/seat",
        summary="The seat the token plays: {character, name, label, study: {clock, minutes, "
        "ticks_per_minute, horizon_tick} or null, turn} (a human seat's /play page)",
        operation_id="seat",
        answers={"200": answer(ANY_OBJECT), "401": REFUSED["401"],
                 "403": refusal("wrong_seat: the token is another seat's")},
        query={"character": {"type": "integer",
                             "description": "the character the join link names (checked)"}},
    ),
    Route(
        "agent_api.events",
        "get",
        f"{AGENTS}/events",
        summary="Events concerning the character after sequence number `after`",
        operation_id="events",
        answers={
            "200": answer(
                {
                    "type": "object",
                    "properties": {
                        "events": {"type": "array", "items": ref("Event")},
                        "last": {"type": "integer"},
                    },
                }
            ),
            **REFUSED,
        },
        query={
            "after": {"type": "integer", "default": 0},
            "limit": {"type": "integer", "default": 200},
        },
    ),
    Route(
        "agent_api.incident",
        "post",
        f"{AGENTS}/incidents",
        obj(
            ("cause",),
            cause=Str(max_len=40, min_len=1, pattern=r"[a-z][a-z0-9_]{0,39}", code=codes.BAD_CAUSE),
            start=AnyOf((Int(0, code=codes.BAD_START),), nullable=True, code=codes.BAD_START),
            end=AnyOf((Int(0, code=codes.BAD_END),), nullable=True, code=codes.BAD_END),
            detail=Str(max_len=500, code=codes.BAD_DETAIL),
        ),
        "Record an interruption of the agent (model error, approval wait)",
        "incident",
        {"201": answer(ANY_OBJECT, "queued"), **REFUSED, **MALFORMED},
    ),
    # Checked like the rest, not part of the agent API's document.
    Route("admin.pause", "post", "/admin/pause", EMPTY, documented=False),
    Route("admin.resume", "post", "/admin/resume", EMPTY, documented=False),
    Route("admin.step", "post", "/admin/step", obj(nullable=True, n=Int(1, 1000)), documented=False),
    Route(
        "admin.speed",
        "post",
        "/admin/speed",
        obj(nullable=True, speed=Num(0.001, 1000)),
        documented=False,
    ),
    Route("admin.kick", "post", "/admin/kick", obj(("char",), char=CHAR_ID), documented=False),
    Route("admin.snapshot", "post", "/admin/snapshot", EMPTY, documented=False),
    Route(
        "replays.fork",
        "post",
        "/api/replays/{rid}/fork",
        obj(
            tick=Int(0),
            char=AnyOf((CHAR_ID,), nullable=True),
            seed=AnyOf((Str(max_len=8), Int(0))),
        ),
        documented=False,
    ),
)

_EVENTS = (
    Event("/", "connect", SPECTATOR, "the connection, or refused"),
    Event("/", "spectate", SPECTATOR, "a keyframe, then frames each tick"),
    Event("/", "resync", SPECTATOR, "a fresh keyframe"),
    Event(
        "/",
        "follow",
        obj(
            nullable=True,
            char=AnyOf((CHAR_ID,), nullable=True),
            spectator_token=named(codes.BAD_SPECTATOR_TOKEN, TOKEN),
        ),
        "the followed character's view",
    ),
    Event(
        "/",
        "join",
        ByKey(
            choices=(("token", obj(("token",), token=TOKEN)),),
            default=obj(("name",), name=NAME, join_token=JOIN_TOKEN),
        ),
        "a seat: character and token",
    ),
    Event("/", "act", obj(("token", "action"), token=TOKEN, action=ACTION), "the world's answer"),
    Event("/", "observe", obj(("token",), token=TOKEN, full_memory=Bool()), "an observation"),
    Event("/agent", "connect", obj(nullable=True, token=TOKEN), "the connection, or refused"),
    Event(
        "/agent",
        "observe",
        obj(nullable=True, format=Str(max_len=8, code=codes.BAD_FORMAT)),
        "an observation",
    ),
    Event("/agent", "act", obj(("action",), action=ACTION, tokens=TOKENS), "the world's answer"),
    Event(
        "/agent",
        "next_turn",
        obj(nullable=True, timeout=Num(0, TURN_WAIT), after=Int(-1)),
        "on a lockstep study, once it is your turn: {ok, turn: {tick, deadline, seconds_left}} "
        "(turn null after `timeout` seconds); no_turns on another clock",
    ),
)
UNCHECKED_EVENTS = frozenset({"disconnect"})  # no client payload

# The table, by Flask endpoint and by (namespace, event): what the edge checks and the OpenAPI
# document read, at each request (a test may replace an entry).
ROUTES: dict[str, Route] = {r.endpoint: r for r in _ROUTES}
EVENTS: dict[tuple[str, str], Event] = {(e.namespace, e.name): e for e in _EVENTS}
# Views for listings (tests/hardening checks every route and event has a schema).
REST_SCHEMAS: dict[str, Spec] = {r.endpoint: r.body for r in _ROUTES if r.body is not None}
SOCKET_SCHEMAS: dict[tuple[str, str], Spec] = {k: e.payload for k, e in EVENTS.items()}


def documented() -> list[Route]:
    return [r for r in ROUTES.values() if r.documented]


def describe_events() -> list[dict[str, Any]]:
    """The Socket.IO events as plain data (namespace, event, payload schema, answer)."""
    return [
        {"namespace": e.namespace, "event": e.name, "payload": json_schema(e.payload),
         "answer": e.answer}
        for e in EVENTS.values()
    ]
