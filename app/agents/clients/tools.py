"""The tools an outside agent plays with, shared by the LLM harness and the MCP server.

One tool per action type, generated from the engine's action table (`asiworld.protocol`: every
bound, default and description), plus tools to observe, to submit/inspect/cancel a hosted
program, and to wait for an event. Every tool
answers with a JSON-ready dict and never raises for a game reason: refusals and API errors come
back as `{"ok": false, "code", "message"}` so a model can read them and try something else.
"""

from __future__ import annotations

import re
from typing import Any

from asiworld import protocol
from asiworld.agents.clients.sdk import ApiError, Client
from asiworld.engine import codes

WAIT_LIMIT_SECONDS = 60.0
WAIT_DEFAULT_SECONDS = 10.0

EXTRA_TOOLS: list[dict[str, Any]] = [
    {
        "name": "observe",
        "description": "Read your character's current observation as text (map, stats, events).",
        "parameters": {"type": "object", "properties": {}},
    },
    {
        "name": "submit_program",
        "description": "Hand the server a program (restricted Python calling the game API) that "
        "keeps acting for you while you think. It replaces your current program; any direct "
        "action except say stops it.",
        "parameters": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "a short name, 1-64 characters"},
                "source": {"type": "string", "description": "the program text"},
            },
            "required": ["name", "source"],
        },
    },
    {
        "name": "program_status",
        "description": "Status, logs and outcome of a program (all your programs without id).",
        "parameters": {
            "type": "object",
            "properties": {"id": protocol.PROGRAM_ID},
        },
    },
    {
        "name": "cancel_program",
        "description": "Stop a running program; its current operation is left to finish.",
        "parameters": {
            "type": "object",
            "properties": {"id": protocol.PROGRAM_ID},
            "required": ["id"],
        },
    },
    {
        "name": "wait_for_event",
        "description": "Do nothing until an event concerning you arrives (e.g. op_done, "
        "op_failed, program_outcome, damaged, down) or the timeout passes.",
        "parameters": {
            "type": "object",
            "properties": {
                "kinds": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "event kinds to wait for (any event concerning you without)",
                },
                "timeout_seconds": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": WAIT_LIMIT_SECONDS,
                    "default": WAIT_DEFAULT_SECONDS,
                    "description": "how long to wait at most",
                },
            },
        },
    },
]


def action_tools() -> list[dict[str, Any]]:
    """A tool per action type: the action's arguments become the tool's parameters."""
    return [
        {
            "name": action["type"],
            "description": f"Action ({action['category']}): {protocol.description(action)}.",
            "parameters": protocol.parameters_schema(action),
        }
        for action in protocol.actions()
    ]


def tool_specs() -> list[dict[str, Any]]:
    return action_tools() + EXTRA_TOOLS


def openai_tools(compact: bool = False) -> list[dict[str, Any]]:
    """The same tools in the OpenAI chat-completions `tools` format. `compact`: each tool's
    description without its category, its parameters without their descriptions and bounds
    (the server checks them all the same): about 2,200 tokens instead of 3,500 with SmolLM2's
    tokenizer, for a model whose context is small."""
    specs = tool_specs()
    if compact:
        specs = [{"name": s["name"], "description": ACTION_PREFIX.sub("", s["description"]),
                  "parameters": _slim(s["parameters"])} for s in specs]
    return [{"type": "function", "function": spec} for spec in specs]


ACTION_PREFIX = re.compile(r"^Action \([a-z_]+\): ")
SLIM_KEEPS = ("type", "enum", "default", "items", "properties", "required")


def _slim(schema: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in SLIM_KEEPS:
        if key not in schema:
            continue
        value = schema[key]
        if key == "properties":
            value = {name: _slim(sub) for name, sub in value.items()}
        elif key == "items":
            value = _slim(value)
        out[key] = value
    return out


def _failure(code: str, message: str) -> dict:
    return {"ok": False, "code": code, "message": message}


class ToolBox:
    """Runs tools against the agent API through the SDK client."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.action_names = {spec["name"] for spec in action_tools()}
        self.names = self.action_names | {spec["name"] for spec in EXTRA_TOOLS}

    def call(self, name: str, args: Any) -> dict:
        if not isinstance(args, dict):
            return _failure(codes.BAD_ARGUMENT, "tool arguments must be a JSON object")
        try:
            return self._call(name, args)
        except ApiError as err:
            return _failure(err.code, err.message)

    def _call(self, name: str, args: dict) -> dict:
        client = self.client
        if name in self.action_names:
            return client.act({"type": name, **args})
        if name == "observe":
            obs = client.observe("text")
            return {"ok": True, "tick": obs["tick"], "text": obs["text"]}
        if name == "submit_program":
            return client.run_program(args.get("name", ""), args.get("source", ""))
        if name == "program_status":
            return {"ok": True, **client.program_status(args.get("id"))}
        if name == "cancel_program":
            if type(args.get("id")) is not int:
                return _failure(codes.BAD_ARGUMENT, "cancel_program needs `id`: a program id")
            return client.cancel(args["id"])
        if name == "wait_for_event":
            timeout = args.get("timeout_seconds", WAIT_DEFAULT_SECONDS)
            if not isinstance(timeout, int | float) or timeout < 0:
                return _failure(codes.BAD_ARGUMENT, "timeout_seconds is a number of seconds >= 0")
            kinds = args.get("kinds")
            if kinds is not None and not (
                isinstance(kinds, list) and all(isinstance(k, str) for k in kinds)
            ):
                return _failure(codes.BAD_ARGUMENT,
                                "kinds is a list of event kinds, e.g. ['op_done']")
            event = client.wait_for_event(kinds, timeout=min(timeout, WAIT_LIMIT_SECONDS))
            return {"ok": True, "event": event}
        return _failure(codes.UNKNOWN_TOOL, f"there is no tool {name!r}")
