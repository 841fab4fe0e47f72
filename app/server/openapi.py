"""The OpenAPI 3 description of the agent API, served at /api/openapi.json.

The action schema is generated from the engine's own action table (`asiworld.protocol`), so the
spec lists exactly the actions and bounds the world accepts; it is built per request for the same
reason (a changed bound shows at once).
"""

from __future__ import annotations

from asiworld import protocol


def action_schemas() -> list[dict]:
    """One object schema per action type, from the engine's action table."""
    return [protocol.action_schema(action) for action in protocol.actions()]


def _error_response(description: str) -> dict:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


def _json(schema: dict, description: str = "OK") -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _body(schema: dict) -> dict:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


CHAR = {"name": "cid", "in": "path", "required": True, "schema": {"type": "integer"}}
PID = {"name": "pid", "in": "path", "required": True, "schema": {"type": "integer"}}
REFUSED = {
    "401": _error_response("missing_token or unknown_token"),
    "403": _error_response("not_your_character: the token belongs to another character"),
}
MALFORMED = {
    "400": _error_response("bad_json: the body is not a JSON object"),
    "422": _error_response("a field is missing or malformed; nothing changed"),
}
ANY_OBJECT = {"type": "object", "additionalProperties": True}


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
                        "code": {"type": "string", "description": "stable snake_case code"},
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
                "id": {"type": "integer"},
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
    paths = {
        "/api/agents/join": {
            "post": {
                "summary": "Join the running world: a new character and its token",
                "operationId": "join",
                "security": [],
                "requestBody": _body(
                    {
                        "type": "object",
                        "required": ["name"],
                        "properties": {
                            "name": {"type": "string", "pattern": "^[A-Za-z0-9_\\- ]{1,24}$"},
                            "label": {
                                "type": "string",
                                "description": "configuration label",
                                "pattern": "^[A-Za-z0-9_.\\-]{1,32}$",
                            },
                        },
                    }
                ),
                "responses": {
                    "201": _json(
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
                },
            }
        },
        "/api/agents/{cid}/observe": {
            "get": {
                "summary": "The character's observation (JSON, or text for language models)",
                "operationId": "observe",
                "parameters": [
                    CHAR,
                    {
                        "name": "format",
                        "in": "query",
                        "schema": {"type": "string", "enum": ["json", "text"], "default": "json"},
                    },
                ],
                "responses": {"200": _json(ANY_OBJECT), **REFUSED},
            }
        },
        "/api/agents/{cid}/act": {
            "post": {
                "summary": "Submit a direct action (stops the character's program unless `say`)",
                "operationId": "act",
                "parameters": [CHAR],
                "requestBody": _body(
                    {
                        "type": "object",
                        "required": ["action"],
                        "properties": {"action": {"$ref": "#/components/schemas/Action"}},
                    }
                ),
                "responses": {
                    "200": _json(
                        {"$ref": "#/components/schemas/ActionResult"},
                        "the world's answer: accepted, or refused with a code",
                    ),
                    **REFUSED,
                    **MALFORMED,
                },
            }
        },
        "/api/agents/{cid}/programs": {
            "post": {
                "summary": "Submit a hosted program (replaces the character's current one)",
                "operationId": "submitProgram",
                "parameters": [CHAR],
                "requestBody": _body(
                    {
                        "type": "object",
                        "required": ["name", "source"],
                        "properties": {"name": {"type": "string"}, "source": {"type": "string"}},
                    }
                ),
                "responses": {
                    "201": _json(
                        {
                            "type": "object",
                            "properties": {"ok": {"type": "boolean"}, "id": {"type": "integer"}},
                        },
                        "started",
                    ),
                    **REFUSED,
                    **MALFORMED,
                },
            },
            "get": {
                "summary": "The character's programs and their status",
                "operationId": "listPrograms",
                "parameters": [CHAR],
                "responses": {
                    "200": _json(
                        {
                            "type": "object",
                            "properties": {
                                "programs": {
                                    "type": "array",
                                    "items": {"$ref": "#/components/schemas/ProgramStatus"},
                                }
                            },
                        }
                    ),
                    **REFUSED,
                },
            },
        },
        "/api/agents/{cid}/programs/{pid}": {
            "get": {
                "summary": "A program's status, logs and outcome",
                "operationId": "programStatus",
                "parameters": [CHAR, PID],
                "responses": {
                    "200": _json({"$ref": "#/components/schemas/ProgramStatus"}),
                    **REFUSED,
                    "404": _error_response("unknown_program"),
                },
            },
            "delete": {
                "summary": "Cancel a program (its current operation is left to finish)",
                "operationId": "cancelProgram",
                "parameters": [CHAR, PID],
                "responses": {
                    "200": _json(ANY_OBJECT, "stopped"),
                    **REFUSED,
                    "404": _error_response("unknown_program"),
                    "409": _error_response("not_running: the program had already ended"),
                },
            },
        },
        "/api/agents/{cid}/events": {
            "get": {
                "summary": "Events concerning the character after sequence number `after`",
                "operationId": "events",
                "parameters": [
                    CHAR,
                    {"name": "after", "in": "query", "schema": {"type": "integer", "default": 0}},
                    {"name": "limit", "in": "query", "schema": {"type": "integer", "default": 200}},
                ],
                "responses": {
                    "200": _json(
                        {
                            "type": "object",
                            "properties": {
                                "events": {
                                    "type": "array",
                                    "items": {"$ref": "#/components/schemas/Event"},
                                },
                                "last": {"type": "integer"},
                            },
                        }
                    ),
                    **REFUSED,
                },
            }
        },
        "/api/agents/{cid}/incidents": {
            "post": {
                "summary": "Record an interruption of the agent (model error, approval wait)",
                "operationId": "incident",
                "parameters": [CHAR],
                "requestBody": _body(
                    {
                        "type": "object",
                        "required": ["cause"],
                        "properties": {
                            "cause": {"type": "string", "pattern": "^[a-z][a-z0-9_]{0,39}$"},
                            "start": {"type": "integer", "minimum": 0, "nullable": True},
                            "end": {"type": "integer", "minimum": 0, "nullable": True},
                            "detail": {"type": "string", "maxLength": 500},
                        },
                    }
                ),
                "responses": {"201": _json(ANY_OBJECT, "queued"), **REFUSED, **MALFORMED},
            }
        },
    }
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
    }
