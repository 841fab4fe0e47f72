"""One table: the engine's action table is what the server checks, what the OpenAPI document
shows, what the program API refuses and what the LLM and MCP tools publish.
Bad inputs tried: craft count one past the patched maximum, over REST, from a program and through
the MCP SDK; each is refused with `bad_argument` and a sentence naming the bounds. Changing one bound
there (craft's `count` maximum, 50 -> 5) shows in all of them at once."""

from __future__ import annotations

import dataclasses

import mcp
import pytest
from asiworld.agents.clients.mcp_server import build_server
from asiworld.agents.clients.tools import openai_tools
from asiworld.engine import World, actions
from asiworld.programs.manager import ProgramManager

from tests.hardening.conftest import agent, bearer
from tests.programs.helpers import run_until_done, watch_submits

NEW_MAX = 5


@pytest.fixture
def craft_count_max_5(monkeypatch):
    craft = actions.HANDLERS["craft"]
    count = dataclasses.replace(craft.args["count"], high=NEW_MAX)
    monkeypatch.setitem(craft.args, "count", count)
    return count


def craft_count(schema: dict) -> dict:
    return schema["properties"]["count"]


def test_rest_validation_refuses_the_new_bound(craft_count_max_5, http):
    cid, token = agent(http)
    action = {"type": "craft", "recipe": "plank", "count": NEW_MAX + 1}
    reply = http.post(f"/api/agents/{cid}/act", json={"action": action}, headers=bearer(token))
    assert reply.status_code == 422
    error = reply.get_json()["error"]
    assert error["code"] == "bad_argument" and f"between 1 and {NEW_MAX}" in error["message"]
    action["count"] = NEW_MAX  # in bounds: whatever the world says, it is not the argument
    reply = http.post(f"/api/agents/{cid}/act", json={"action": action}, headers=bearer(token))
    assert reply.get_json().get("code") != "bad_argument"


def test_the_program_api_refuses_the_new_bound_before_the_world_sees_it(craft_count_max_5):
    world = World.create(seed=3, size=48)
    ada = world.add_character("ada")
    submits = watch_submits(world)
    manager = ProgramManager(world, in_process=True)
    source = (
        f"try:\n    craft('plank', {NEW_MAX})\nexcept GameError:\n    pass\n"  # no station here
        f"craft('plank', {NEW_MAX + 1})\n"
    )
    status = run_until_done(manager, world, ada, manager.submit(ada, "crafty", source)["id"])
    error = status["outcome"]["error"]
    assert error["code"] == "bad_argument" and f"between 1 and {NEW_MAX}" in error["message"]
    assert error["line"] == 5
    sent = [action for _, action, _ in submits]
    assert sent == [{"type": "craft", "recipe": "plank", "count": NEW_MAX}]


def test_the_openapi_document_shows_the_new_bound(craft_count_max_5, http):
    spec = http.get("/api/openapi.json").get_json()
    craft = next(s for s in spec["components"]["schemas"]["Action"]["oneOf"] if s["title"] == "craft")
    assert craft_count(craft) == {
        "type": "integer",
        "minimum": 1,
        "maximum": NEW_MAX,
        "default": 1,
        "description": craft_count_max_5.help,
    }


def test_the_llm_tool_publishes_the_new_bound(craft_count_max_5):
    tools = {t["function"]["name"]: t["function"] for t in openai_tools()}
    count = craft_count(tools["craft"]["parameters"])
    assert count["maximum"] == NEW_MAX and count["default"] == 1 and count["description"]


class _Client:
    character = 1


def test_the_mcp_tool_publishes_the_new_bound_and_refuses_past_it(craft_count_max_5, run_async):
    async def listed_and_refused() -> tuple[dict, bool]:
        async with mcp.Client(build_server(_Client())) as session:
            tools = {t.name: t for t in (await session.list_tools()).tools}
            refused = await session.call_tool("craft", {"recipe": "plank", "count": NEW_MAX + 1})
            return tools["craft"].input_schema, refused.is_error

    schema, refused = run_async(listed_and_refused())
    count = craft_count(schema)
    assert (count["type"], count["minimum"], count["maximum"]) == ("integer", 1, NEW_MAX)
    assert count["default"] == 1 and count["description"] == craft_count_max_5.help
    assert "count" not in schema.get("required", [])
    assert refused  # the MCP SDK's own check, before anything reaches the server


def test_without_the_patch_the_table_says_50():
    """The patch above is what moves the bound: the table itself says 50."""
    tools = {t["function"]["name"]: t["function"] for t in openai_tools()}
    assert craft_count(tools["craft"]["parameters"])["maximum"] == 50


def test_every_action_and_argument_in_the_table_says_what_it_is():
    """What the tools publish as descriptions: none may be missing."""
    for action in actions.describe():
        assert action["help"], action["type"]
        for name, arg in action["args"].items():
            assert arg["help"], f"{action['type']}.{name} has no sentence"


def test_a_program_id_is_described_the_same_in_the_openapi_document_and_both_tool_sets(http, run_async):
    from asiworld.protocol import PROGRAM_ID

    spec = http.get("/api/openapi.json").get_json()
    cancel = spec["paths"]["/api/agents/{cid}/programs/{pid}"]["delete"]["parameters"]
    assert {p["name"]: p["schema"] for p in cancel}["pid"] == PROGRAM_ID
    assert spec["components"]["schemas"]["ProgramStatus"]["properties"]["id"] == PROGRAM_ID
    assert "count per character" in PROGRAM_ID["description"]
    tools = {t["function"]["name"]: t["function"] for t in openai_tools()}
    for name in ("program_status", "cancel_program"):
        assert tools[name]["parameters"]["properties"]["id"] == PROGRAM_ID

    async def listed() -> dict:
        async with mcp.Client(build_server(_Client())) as session:
            return {t.name: t.input_schema for t in (await session.list_tools()).tools}

    schema = run_async(listed())["cancel_program"]["properties"]["id"]
    assert schema["description"] == PROGRAM_ID["description"] and schema["minimum"] == 1


def test_the_mcp_submit_program_answer_describes_its_id_as_the_table_does():
    from asiworld.agents.clients.mcp_server import output_schema
    from asiworld.protocol import PROGRAM_ID

    assert output_schema("submit_program")["properties"]["id"] == PROGRAM_ID
