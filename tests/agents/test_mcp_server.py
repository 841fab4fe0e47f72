"""The MCP server: an in-process `mcp` client lists the tools and plays a few turns against a
test server (the world is stepped between turns)."""

from __future__ import annotations

import asyncio
import json

import mcp
from asiworld.agents.mcp_server import build_server
from asiworld.agents.sdk import Client


def _payload(result) -> dict:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


def test_an_mcp_client_lists_the_tools_and_plays_a_few_turns(served, runner):
    client = Client(served)
    client.join("mcp-ada", label="mcp")
    server = build_server(client)

    async def play() -> dict:
        async with mcp.Client(server) as session:
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert {
                "move",
                "gather",
                "craft",
                "observe",
                "submit_program",
                "cancel_program",
                "program_status",
                "wait_for_event",
            } <= set(tools)
            assert tools["move"].input_schema["properties"]["dir"]["enum"] == ["n", "s", "e", "w"]
            seen = _payload(await session.call_tool("observe", {}))
            assert "mcp-ada at" in seen["text"]
            start = client.observe()["self"]
            for direction in ("s", "s", "e"):
                answer = _payload(await session.call_tool("move", {"dir": direction}))
                assert answer["ok"], answer
                runner.step(2)
            refused = await session.call_tool("move", {"dir": "up"})
            assert refused.is_error  # the schema refuses it before it reaches the world
            eaten = _payload(await session.call_tool("eat", {"item": "berries"}))
            assert eaten["ok"] is False and eaten["code"] == "not_in_inventory"
            program = _payload(
                await session.call_tool(
                    "submit_program", {"name": "idle", "source": "def main():\n    wait(50)\n"}
                )
            )
            runner.step(2)
            status = _payload(await session.call_tool("program_status", {"id": program["id"]}))
            assert status["status"] == "waiting"
            stopped = _payload(await session.call_tool("cancel_program", {"id": program["id"]}))
            assert stopped["status"] == "stopped"
            return start

    start = asyncio.run(play())
    me = client.observe()["self"]
    assert (me["x"], me["y"]) == (start["x"] + 1, start["y"] + 2)
