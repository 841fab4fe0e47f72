"""The engine's action table in the shape outsiders read: JSON Schema.

`asiworld.engine.actions.describe()` is the one description of every action and argument (kind,
bounds, default, sentence). The OpenAPI document, the LLM tools and the MCP tools all publish the
schemas made here, so a bound changed in the engine shows everywhere at once; nothing here is
cached for the same reason.
"""

from __future__ import annotations

from typing import Any

KIND_TYPES = {"int": "integer", "str": "string", "dir": "string", "slot": "string"}

# A program id, as every outside description of the program calls puts it (the OpenAPI
# document, the LLM tools, the MCP tools): ids count per character (asiworld.programs.manager).
PROGRAM_ID = {
    "type": "integer",
    "minimum": 1,
    "description": "one of your own program ids: they count per character (your first program "
    "is 1) and are never given twice; another character's id is answered like an unused one",
}


def arg_schema(arg: dict[str, Any]) -> dict[str, Any]:
    """JSON Schema of one action argument from its engine description."""
    kind = arg["kind"]
    if kind == "int_list":
        out: dict[str, Any] = {
            "type": "array",
            "items": {"type": "integer"},
            "maxItems": arg["max_items"],
        }
    else:
        out = {"type": KIND_TYPES[kind]}
    if arg.get("choices") is not None:
        out["enum"] = list(arg["choices"])
    if kind == "int":
        if arg.get("low") is not None:
            out["minimum"] = arg["low"]
        if arg.get("high") is not None:
            out["maximum"] = arg["high"]
    if kind == "str":
        out.update(minLength=arg["min_len"], maxLength=arg["max_len"])
    if arg.get("default") is not None:
        out["default"] = arg["default"]
    if arg.get("help"):
        out["description"] = arg["help"]
    return out


def parameters_schema(action: dict[str, Any]) -> dict[str, Any]:
    """The object schema of an action's own arguments (without `type`)."""
    props = {name: arg_schema(arg) for name, arg in action["args"].items()}
    required = [name for name, arg in action["args"].items() if arg["required"]]
    out: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        out["required"] = required
    return out


def description(action: dict[str, Any]) -> str:
    """The action's sentence, and which arguments go together when it takes one of two forms."""
    out = action["help"]
    if action.get("forms"):
        out += "; give " + ", or ".join(" and ".join(form) for form in action["forms"])
    return out


def action_schema(action: dict[str, Any]) -> dict[str, Any]:
    """The whole action as sent to the world: `type` fixed to this action, then its arguments."""
    params = parameters_schema(action)
    out = {
        "type": "object",
        "title": action["type"],
        "description": f"{description(action)} (category: {action['category']})",
        "properties": {"type": {"type": "string", "enum": [action["type"]]}, **params["properties"]},
        "required": ["type", *params.get("required", [])],
        "additionalProperties": False,
    }
    if action.get("forms"):
        out["anyOf"] = [{"required": list(form)} for form in action["forms"]]
    return out


def actions() -> list[dict[str, Any]]:
    """The engine's action table, read now (a test may have changed a bound)."""
    # the engine when the table is read: `asiworld mcp` imports this module and answers its
    # client first (tests/agents/test_mcp_server.py keeps the engine out of its start-up)
    from asiworld.engine import actions as table

    return table.describe()
