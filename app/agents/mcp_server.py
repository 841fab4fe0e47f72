"""`asiworld mcp --server URL`: the agent tools over MCP (stdio), for MCP-capable coding agents.

The tools are the LLM harness's (app/agents/tools.py): one per action type, plus observe,
submit_program, program_status, cancel_program and wait_for_event. Each MCP tool is a function
whose signature is built from the tool's JSON schema, so the MCP SDK validates arguments and
publishes the same schema. The server joins the world on start (or reuses a token).
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any, Literal

from asiworld.agents.harness import system_prompt
from asiworld.agents.sdk import Client
from asiworld.agents.tools import ToolBox, tool_specs
from pydantic import Field

SIMPLE_TYPES: dict[str, Any] = {"integer": int, "string": str, "number": float, "boolean": bool}
# JSON Schema keyword -> pydantic Field keyword: the MCP SDK builds its published schema and its
# argument check from the function signature, so every bound has to be carried there.
FIELD_KEYWORDS = {
    "minimum": "ge",
    "maximum": "le",
    "maxLength": "max_length",
    "minLength": "min_length",
    "maxItems": "max_length",
    "description": "description",
}


def annotation(schema: dict) -> Any:
    """A Python type for a JSON schema (the subset the tools use), bounds and sentence kept."""
    if "enum" in schema:
        kind: Any = Literal[tuple(schema["enum"])]
    elif schema.get("type") == "array":
        kind = list[annotation(schema.get("items", {"type": "string"}))]
    else:
        kind = SIMPLE_TYPES.get(schema.get("type"), Any)
    limits = {FIELD_KEYWORDS[k]: v for k, v in schema.items() if k in FIELD_KEYWORDS}
    return Annotated[kind, Field(**limits)] if limits else kind


def tool_function(toolbox: ToolBox, spec: dict) -> Any:
    """A function with the tool's parameters as keyword arguments. An argument with a default
    publishes it; an optional one without (gather's x, y or target) is left out of the call when
    unset, so the world decides what its absence means."""
    name = spec["name"]

    def run(**kwargs: Any) -> dict:
        return toolbox.call(name, {k: v for k, v in kwargs.items() if v is not None})

    props = spec["parameters"].get("properties", {})
    required = set(spec["parameters"].get("required", []))
    params, annotations = [], {}
    for arg, schema in props.items():
        kind = annotation(schema)
        if arg in required:
            default: Any = inspect.Parameter.empty
        elif "default" in schema:
            default = schema["default"]
        else:
            kind, default = kind | None, None
        params.append(
            inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY, annotation=kind, default=default)
        )
        annotations[arg] = kind
    run.__signature__ = inspect.Signature(params, return_annotation=dict)  # type: ignore[attr-defined]
    run.__annotations__ = {**annotations, "return": dict}
    run.__name__ = name
    return run


def build_server(client: Client) -> Any:
    """An MCPServer whose tools act for the client's character."""
    from mcp.server.mcpserver import MCPServer

    toolbox = ToolBox(client)
    server = MCPServer(
        "asiworld",
        instructions=f"You play character {client.character} in ASIWorld.\n\n{system_prompt()}",
    )
    for spec in tool_specs():
        server.add_tool(
            tool_function(toolbox, spec), name=spec["name"], description=spec["description"]
        )
    return server


def serve_stdio(client: Client) -> None:
    build_server(client).run("stdio")
