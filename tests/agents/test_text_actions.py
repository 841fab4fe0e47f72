"""Actions read from a model's text (a study's `text_actions`): a JSON action or a command line
naming an offered tool is an action; a sentence that only mentions a tool is not."""

from __future__ import annotations

import pytest
from asiworld.agents.clients.text_actions import read_action
from asiworld.agents.clients.tools import tool_specs

TOOLS = {spec["name"]: spec["parameters"] for spec in tool_specs()}


@pytest.mark.parametrize("text, action", [
    ('{"tool": "move", "arguments": {"dir": "n"}}', ("move", {"dir": "n"})),
    ('{\n  "tool": "gather",\n  "arguments": {\n    }}', ("gather", {})),
    ('<tool_call>\n{"name": "craft", "arguments": {"recipe": "wooden_pickaxe"}}\n</tool_call>',
     ("craft", {"recipe": "wooden_pickaxe"})),
    ('```json\n{"name": "eat", "arguments": "{\\"item\\": \\"berries\\"}"}\n```',
     ("eat", {"item": "berries"})),
    ('I will do {"type": "move_to", "x": 70, "y": 60} now', ("move_to", {"x": 70, "y": 60})),
    ('{"function": {"name": "wait", "arguments": "{}"}}', ("wait", {})),
])
def test_a_json_action_naming_an_offered_tool_is_read(text, action):
    assert read_action(text, TOOLS) == (*action, "json")


@pytest.mark.parametrize("text, action", [
    ("move north", ("move", {"dir": "n"})),
    ("Move north.", ("move", {"dir": "n"})),
    ("- move_to 70 60", ("move_to", {"x": 70, "y": 60})),
    ("move to 70, 60", ("move_to", {"x": 70, "y": 60})),
    ("craft wooden_pickaxe", ("craft", {"recipe": "wooden_pickaxe"})),
    ("craft wooden_pickaxe 2", ("craft", {"recipe": "wooden_pickaxe", "count": 2})),
    ("gather x=64 y=63", ("gather", {"x": 64, "y": 63})),
    ("pick up", ("pick_up", {})),
    ("I see a tree.\nsleep", ("sleep", {})),
    ("1. attack 57", ("attack", {"target": 57})),
])
def test_a_command_line_is_read_with_the_tools_own_arguments(text, action):
    assert read_action(text, TOOLS) == (*action, "command")


@pytest.mark.parametrize("text", [
    "",
    None,
    "I will move north to the tree.",  # a sentence mentions a tool: no action
    "You approach the tree to the north and move one tile.",
    "move sideways",  # not a direction
    "move_to seventy sixty",  # not numbers
    "craft",  # its recipe is required
    "eat the berries now",  # more words than the tool takes
    '{"tool": "fly", "arguments": {}}',  # not offered
    '{"tool": "move", "arguments": [1]}',  # arguments not an object
    "{not json at all",
])
def test_anything_else_is_no_action(text):
    assert read_action(text, TOOLS) is None


def test_only_offered_tools_are_read():
    without_programs = {k: v for k, v in TOOLS.items() if k != "submit_program"}
    text = '{"tool": "submit_program", "arguments": {"name": "a", "source": "x"}}'
    assert read_action(text, TOOLS)[0] == "submit_program"
    assert read_action(text, without_programs) is None
