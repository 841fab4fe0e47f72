"""The OpenAPI 3 description of the agent API, served at /api/openapi.json.

Made from two tables: the routes, their bodies and answers from the endpoint table
(server/endpoints.py, which the edge checks read too), and the actions from the engine's own
action table (`asiworld.protocol`), so the document lists exactly the bodies, actions and bounds
the server accepts. It is built per request for the same reason (a changed bound shows at once).
"""

from __future__ import annotations

import re
from typing import Any

from asiworld import protocol
from asiworld.engine import codes
from asiworld.server import endpoints
from asiworld.server.schemas import json_schema

PATH_PARAMETERS = {"cid": {"type": "integer"}, "pid": protocol.PROGRAM_ID, "rid": {"type": "string"}}


def action_schemas() -> list[dict]:
    """One object schema per action type, from the engine's action table."""
    return [protocol.action_schema(action) for action in protocol.actions()]


def operation(route: endpoints.Route) -> dict[str, Any]:
    """One route of the endpoint table as an OpenAPI operation."""
    params: list[dict[str, Any]] = [
        {"name": name, "in": "path", "required": True, "schema": PATH_PARAMETERS[name]}
        for name in re.findall(r"{(\w+)}", route.path)
    ]
    params += [{"name": n, "in": "query", "schema": q} for n, q in route.query.items()]
    out: dict[str, Any] = {"summary": route.summary, "operationId": route.operation_id}
    if route.public:
        out["security"] = []
    if params:
        out["parameters"] = params
    if route.body is not None:
        out["requestBody"] = {
            "required": not getattr(route.body, "nullable", False),
            "content": {"application/json": {"schema": json_schema(route.body)}},
        }
    out["responses"] = route.answers
    return out


def spec() -> dict:
    schemas = {
        "Error": {
            "type": "object",
            "description": "every refusal: the code and sentence flat and under `error`",
            "required": ["error"],
            "properties": {
                "ok": {"type": "boolean", "enum": [False]},
                "code": {"type": "string"},
                "message": {"type": "string"},
                "error": {
                    "type": "object",
                    "required": ["code", "message"],
                    "properties": {
                        "code": {"type": "string", "description": "stable snake_case code "
                                 "(every one, by status: x-error-codes; docs/errors.md)"},
                        "message": {"type": "string"},
                        "line": {"type": "integer"},
                    },
                }
            },
        },
        "Action": {"oneOf": action_schemas()},
        "ActionResult": {
            "type": "object",
            "required": ["ok", "code", "message"],
            "properties": {
                "ok": {"type": "boolean"},
                "code": {"type": "string"},
                "message": {"type": "string"},
                "op": {"type": "integer", "nullable": True},
                "tick": {"type": "integer"},
            },
        },
        "ProgramStatus": {
            "type": "object",
            "properties": {
                "id": protocol.PROGRAM_ID,
                "char": {"type": "integer"},
                "name": {"type": "string"},
                "status": {
                    "type": "string",
                    "enum": ["running", "waiting", "finished", "failed", "stopped", "interrupted"],
                },
                "line": {"type": "integer", "nullable": True},
                "steps_tick": {"type": "integer"},
                "steps_total": {"type": "integer"},
                "outcome": {"type": "object", "nullable": True, "additionalProperties": True},
                "logs": {"type": "array", "items": {"type": "string"}},
            },
        },
        "Event": {
            "type": "object",
            "required": ["tick", "kind", "seq"],
            "properties": {
                "tick": {"type": "integer"},
                "kind": {"type": "string"},
                "seq": {"type": "integer"},
                "char": {"type": "integer"},
            },
            "additionalProperties": True,
        },
    }
    paths: dict[str, dict] = {}
    for route in endpoints.documented():
        paths.setdefault(route.path, {})[route.method] = operation(route)
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "ASIWorld agent API",
            "version": "1.0.0",
            "description": "Join a running world, observe, act, host programs, read events. "
            "Every call but join carries `Authorization: Bearer TOKEN`; a token acts for its "
            "own character only. Socket.IO namespace `/agent` offers the same with pushed events.",
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
        "x-error-codes": codes_by_status(),
    }


def codes_by_status() -> dict[str, list[str]]:
    """The HTTP API's error codes under the status each is answered with (the table of codes);
    a world's refusals are no HTTP error (`/act` answers them in its ActionResult)."""
    out: dict[str, list[str]] = {}
    for code, entry in sorted(codes.TABLE.items()):
        if entry.status is not None and codes.API in entry.where:
            out.setdefault(str(entry.status), []).append(code)
    return dict(sorted(out.items()))
