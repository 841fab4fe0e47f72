"""The program API is made from the engine's action table: one function per action with the
table's argument order and defaults, the engine's own refusals for bad values, and the docs page's
table of action calls written from the same table."""

from __future__ import annotations

from pathlib import Path

import pytest
from asiworld.engine import Refusal, actions
from asiworld.programs.api import GameError, api_doc, build_api, checked, doc_section

DOCS = Path(__file__).resolve().parents[2] / "docs" / "programs.md"


class Recorder:
    def __init__(self) -> None:
        self.calls: list[dict] = []

    def call(self, action: dict) -> dict:
        self.calls.append(action)
        return {}

    def latest_observation(self) -> dict:
        return {}

    def log(self, text: str) -> None:
        pass


def test_every_action_in_the_table_is_a_program_function_and_nothing_else_acts():
    table = actions.describe()
    api = build_api(Recorder(), table)
    readers = {"observe", "me", "position", "inventory", "count", "tick", "entities", "log", "print"}
    assert set(api) - readers == {a["type"] for a in table}


def test_the_docs_page_lists_the_calls_exactly_as_the_table_says():
    page = DOCS.read_text()
    assert doc_section(page) == api_doc(actions.describe()), (
        "docs/programs.md's table of action calls differs from the engine's action table: "
        "replace it with the output of `asiworld program api-doc`"
    )


# Bad inputs tried, each refused by the program API before the world sees it, with the very
# code and sentence the engine's own check gives the same action from a REST agent.
BAD = [
    {"type": "move", "dir": "up"},
    {"type": "move", "dir": 3},
    {"type": "move_to", "x": "3", "y": 4},
    {"type": "move_to", "x": True, "y": 4},
    {"type": "move_to", "x": -1, "y": 4},
    {"type": "move_to", "x": 4096, "y": 4},
    {"type": "craft", "recipe": "axe", "count": 0},
    {"type": "craft", "recipe": "axe", "count": 51},
    {"type": "craft", "recipe": "", "count": 1},
    {"type": "craft", "recipe": "a" * 65},
    {"type": "unequip", "slot": "hat"},
    {"type": "wait", "ticks": 601},
    {"type": "wait", "ticks": 2.5},
    {"type": "enter", "party": [1, "x"]},
    {"type": "enter", "party": list(range(9))},
    {"type": "give", "target": 2, "item": "", "count": 1},
    {"type": "gather"},
    {"type": "gather", "x": 3},
    {"type": "say", "text": "x" * 201},
]


@pytest.mark.parametrize("action", BAD, ids=[str(a) for a in BAD])
def test_a_bad_value_gets_the_engines_own_code_and_sentence(action):
    table = {a["type"]: a for a in actions.describe()}
    with pytest.raises(Refusal) as engine:
        actions.parse(action)
    given = {k: v for k, v in action.items() if k != "type"}
    with pytest.raises(GameError) as program:
        checked(table[action["type"]], given)
    assert (program.value.code, program.value.message) == (engine.value.code, engine.value.message)
    assert program.value.code == "bad_argument"


def test_a_good_call_builds_what_the_engine_would_normalise_it_to():
    table = {a["type"]: a for a in actions.describe()}
    for action in [{"type": "craft", "recipe": "axe"}, {"type": "gather", "target": 9},
                   {"type": "enter"}, {"type": "wait"}, {"type": "say", "text": ""}]:
        given = {k: v for k, v in action.items() if k != "type"}
        assert checked(table[action["type"]], given) == actions.parse(action)


def test_the_program_host_makes_the_api_without_loading_the_engine():
    """The table comes as data: a host that imported the engine would spend a second and the
    world's memory on every start."""
    import subprocess
    import sys

    code = "import sys, asiworld.programs.host; print(sorted(m for m in sys.modules if 'engine' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
