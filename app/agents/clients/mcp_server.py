"""`asiworld mcp --server URL`: the agent tools over MCP (stdio), for MCP-capable coding agents.

The tools are the LLM harness's (app/agents/clients/tools.py): one per action type, plus observe,
submit_program, program_status, cancel_program and wait_for_event. Their input schemas are
published exactly as the one action table makes them (asiworld.protocol: bounds, defaults,
enums, descriptions), with no pydantic model in between, and every tool has an output schema:
its result comes back both as structured content and as JSON text.

Arguments are checked against the schema each tool publishes (jsonschema, the MCP SDK's own
dependency) and again by the world, as for every client; a bad one is a tool error whose text
is a short `bad_argument: sentence`. A refusal for a reason of the game (`not_in_inventory`, `blocked`) is a
normal result with `ok: false`: the call worked, the world said no.

Resources: the rules (docs/rules.md), the program API (docs/programs.md) and the action table
as JSON; one prompt, `play`, the harness's system prompt for this character. The MCP SDK is
imported when the server is built, not before (`asiworld mcp` through asiworld.agents.clients.mcp_sdk:
its stdio server without the SDK's client, pydantic's schemas built at first use); the tools
(the engine's action table) at the first call that needs them, after the answer to `initialize`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from asiworld import protocol, provenance
from asiworld.agents.clients.mcp_sdk import import_stdio_server
from asiworld.agents.clients.sdk import ApiError, Client
from asiworld.agents.clients.tools import ToolBox, tool_specs
from asiworld.engine import codes
from asiworld.protocol import PROGRAM_ID
from asiworld.resources import shipped

ENDED_POLL_SECONDS = 0.1  # how often the server looks whether its study ended
ENDED_LINGER_SECONDS = 0.5  # the last tool answer is written out before the server stops
# A refusal of the call itself (the arguments do not fit): published as a tool error.
CALL_ERRORS = {codes.BAD_ARGUMENT, codes.BAD_ACTION, codes.UNKNOWN_ACTION, codes.UNKNOWN_TOOL,
               codes.BAD_JSON, codes.BAD_PROGRAM, codes.BAD_NAME}
FAILURE: dict[str, Any] = {
    "ok": {"type": "boolean"},
    "code": {"type": "string", "description": "a stable code when ok is false"},
    "message": {"type": "string", "description": "a sentence when ok is false"},
}
ACTION_RESULT = {
    "type": "object",
    "properties": {
        **FAILURE,
        "op": {"type": ["integer", "null"], "description": "the operation's id when accepted"},
        "tick": {"type": "integer", "description": "the world's tick when it answered"},
    },
    "required": ["ok"],
}
OUTPUTS: dict[str, dict[str, Any]] = {
    "observe": {"properties": {"tick": {"type": "integer"}, "text": {"type": "string"}}},
    "submit_program": {"properties": {"id": PROGRAM_ID}},
    "program_status": {"properties": {"programs": {"type": "array"},
                                      "status": {"type": "string"}}},
    "cancel_program": {"properties": {"status": {"type": "string"}}},
    "wait_for_event": {"properties": {"event": {"type": ["object", "null"]}}},
    "next_turn": {"properties": {"turn": {"type": ["object", "null"]}}},
    "report_tokens": {"properties": {"reported": {"type": "object"}}},
}
TURN_WAIT_LIMIT = 120  # seconds, as the agent API's next_turn
# MCP's own tools (not the LLM harness's: its tool list is part of a model seat's prompt)
NEXT_TURN_TOOL: dict[str, Any] = {
    "name": "next_turn",
    "description": "On a lockstep study: wait until it is your turn; returns {tick, deadline, "
    "seconds_left}, or null after the timeout. Then observe and make ONE decision (an action, "
    "wait, or a program) before the deadline: the world waits for it. On a realtime world it "
    "answers no_turns: act whenever you like.",
    "parameters": {
        "type": "object",
        "properties": {
            "timeout_seconds": {"type": "number", "minimum": 0, "maximum": TURN_WAIT_LIMIT,
                                "default": 30},
            "after": {"type": "integer", "description": "only a turn after this tick"},
        },
    },
}
# The agent API's bounds for a reported token count (asiworld.server.endpoints.TOKENS)
TOKEN_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0, "maximum": 10**9}
REPORT_TOKENS_TOOL: dict[str, Any] = {
    "name": "report_tokens",
    "description": "On a lockstep study whose clock charges think time by tokens: the tokens "
    "your model used for the decision you are about to make. Your next action or program "
    "carries them and is charged think time for them, as a model seat's call is (the study's "
    "cost table shows them). Without it a decision is charged the clock's least.",
    "parameters": {
        "type": "object",
        "properties": {"input": TOKEN_COUNT, "output": TOKEN_COUNT},
        "required": ["input", "output"],
        "additionalProperties": False,
    },
}
DOCS = {
    "asiworld://docs/rules": ("rules.md", "The rules of the world, its numbers and tables."),
    "asiworld://docs/programs": ("programs.md", "The program API: what a hosted program may call."),
}
ACTIONS_URI = "asiworld://actions"


def output_schema(name: str) -> dict[str, Any]:
    extra = OUTPUTS.get(name)
    if extra is None:
        return ACTION_RESULT
    return {"type": "object", "properties": {**FAILURE, **extra["properties"]},
            "required": ["ok"]}


def resource_text(uri: str) -> str | None:
    if uri == ACTIONS_URI:
        return json.dumps([protocol.action_schema(a) for a in protocol.actions()], indent=1)
    if uri in DOCS:
        return (shipped("docs") / DOCS[uri][0]).read_text(encoding="utf-8")
    return None


def argument_error(validator: Any, name: str, arguments: dict) -> str | None:
    """The first way the arguments miss the tool's published schema, as one short sentence
    (jsonschema's own wording, which names the bound: "6 is greater than the maximum of 5")."""
    from jsonschema.exceptions import best_match

    error = best_match(validator.iter_errors(arguments))
    if error is None:
        return None
    where = ".".join(str(p) for p in error.absolute_path)
    return f"{name}: {where + ': ' if where else ''}{error.message}"


def call(toolbox: ToolBox, validators: dict[str, Any], name: str,
         arguments: dict | None) -> tuple[dict, bool]:
    """(the tool's result, whether it is a tool error). Arguments are checked against the
    schema the tool publishes, so a bound changed in the engine's table is enforced here as
    soon as it is published; the world then checks them again, as for every client."""
    arguments = arguments or {}
    if name == NEXT_TURN_TOOL["name"]:
        if (problem := argument_error(validators[name], name, arguments)) is not None:
            return {"ok": False, "code": codes.BAD_ARGUMENT, "message": problem}, True
        return next_turn(toolbox.client, arguments), False
    if name == REPORT_TOKENS_TOOL["name"]:
        if (problem := argument_error(validators[name], name, arguments)) is not None:
            return {"ok": False, "code": codes.BAD_ARGUMENT, "message": problem}, True
        reported = toolbox.client.report_tokens(arguments["input"], arguments["output"])
        return {"ok": True, "reported": reported}, False
    if name not in toolbox.names:
        result = {"ok": False, "code": codes.UNKNOWN_TOOL,
                  "message": f"there is no tool {name!r}; list_tools names them"}
    elif (problem := argument_error(validators[name], name, arguments)) is not None:
        result = {"ok": False, "code": codes.BAD_ARGUMENT, "message": problem}
    else:
        result = toolbox.call(name, arguments)
    failed = result.get("ok") is False and result.get("code") in CALL_ERRORS
    return result, failed


def next_turn(client: Client, arguments: dict) -> dict:
    try:
        turn = client.next_turn(arguments.get("timeout_seconds", 30),
                                arguments.get("after", -1))
    except ApiError as err:
        return {"ok": False, "code": err.code, "message": err.message}
    return {"ok": True, "turn": turn}


class Catalogue:
    """The tools, their validators and the toolbox, built at the first call that needs them:
    the action table is the engine's (numpy, tcod, the rules), which `initialize` does not
    need, so the client's first answer does not wait for it."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self._built: tuple[ToolBox, dict[str, Any], list] | None = None
        self._lock = threading.Lock()  # calls run on worker threads: build it once

    def get(self) -> tuple[ToolBox, dict[str, Any], list]:
        with self._lock:
            if self._built is None:
                self._built = self._build()
            return self._built

    def _build(self) -> tuple[ToolBox, dict[str, Any], list]:
        import mcp.types as types
        from jsonschema import Draft202012Validator

        specs = [*tool_specs(), NEXT_TURN_TOOL, REPORT_TOKENS_TOOL]
        validators = {s["name"]: Draft202012Validator(s["parameters"]) for s in specs}
        tools = [types.Tool(name=s["name"], description=s["description"],
                            input_schema=s["parameters"], output_schema=output_schema(s["name"]))
                 for s in specs]
        return ToolBox(self.client), validators, tools

    def call(self, name: str, arguments: dict | None) -> tuple[dict, bool]:
        toolbox, validators, _ = self.get()
        return call(toolbox, validators, name, arguments)


def build_server(client: Client) -> Any:
    """An MCP server whose tools act for the client's character."""
    import anyio
    import mcp.types as types
    from mcp.server.lowlevel import Server

    catalogue = Catalogue(client)
    # the player's guide as shipped (docs/player-guide.md, written from the content): reading
    # it loads no engine before the client's first answer
    guide = (shipped("docs") / "player-guide.md").read_text(encoding="utf-8")
    instructions = f"You play character {client.character} in ASIWorld.\n\n{guide}"

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        tools = (await anyio.to_thread.run_sync(catalogue.get))[2]
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        # The SDK client is blocking HTTP: off the event loop, so pings keep being answered.
        result, failed = await anyio.to_thread.run_sync(catalogue.call, params.name,
                                                        params.arguments)
        text = (f"{result.get('code')}: {result.get('message')}" if failed
                else json.dumps(result, separators=(",", ":")))
        return types.CallToolResult(content=[types.TextContent(text=text)],
                                    structured_content=result, is_error=failed)

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        found = [types.Resource(uri=uri, name=file.removesuffix(".md"), description=about,
                                mime_type="text/markdown") for uri, (file, about) in DOCS.items()]
        found.append(types.Resource(uri=ACTIONS_URI, name="actions", mime_type="application/json",
                                    description="Every action's JSON Schema (the one table)."))
        return types.ListResourcesResult(resources=found)

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> Any:
        uri = str(params.uri)
        text = resource_text(uri)
        if text is None:
            from mcp.shared.exceptions import MCPError

            raise MCPError(code=-32002, message=f"unknown_resource: there is no resource {uri}")
        mime = "application/json" if uri == ACTIONS_URI else "text/markdown"
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)])

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[types.Prompt(
            name="play", description="The rules and program API, and which character is yours.")])

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        return types.GetPromptResult(messages=[types.PromptMessage(
            role="user", content=types.TextContent(text=instructions))])

    return Server(
        "asiworld",
        version=provenance.version(),
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


def serve_stdio(client: Client, on_end: Callable[[], None]) -> None:
    """Serve the tools on stdin/stdout until the client closes stdin; `on_end` is called once
    the study has ended and must not return (the stdin reader is a thread blocked in a read
    that no cancellation reaches, so only the process's end stops it)."""
    import_stdio_server()  # first: the SDK's client and pydantic's eager builds left out
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(client)

    async def until_ended() -> None:
        """Told the study ended (a tool call answered 410 study_ended): once the tool's answer
        is written out, `on_end` ends the process."""
        while not client.ended:
            await anyio.sleep(ENDED_POLL_SECONDS)
        await anyio.sleep(ENDED_LINGER_SECONDS)
        on_end()

    async def main() -> None:
        async with stdio_server() as (read, write), anyio.create_task_group() as group:
            group.start_soon(until_ended)
            await server.run(read, write, server.create_initialization_options())
            group.cancel_scope.cancel()  # the client closed stdin: the watcher stops too

    anyio.run(main)
