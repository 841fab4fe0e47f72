"""A program sees its game functions by plain names (issue 16, weakness 7): `repr(move)` showed
`<function build_api.<locals>.move at 0x7f...>`, the host's own names and a memory address.

Bad inputs tried: repr() and str() of game functions, logging one, a wrong call (too many
arguments), in the in-process host and in the host process."""

from __future__ import annotations

import pytest
from asiworld.engine import World
from asiworld.programs.manager import ProgramManager

from tests.programs.helpers import run_until_done

SOURCE = """
log(repr(move), str(craft), repr(wait), repr(log))
log(move)
try:
    move("n", 1, 2)
except Exception as err:
    log("error", err)
"""


@pytest.mark.parametrize("in_process", [True, False])
def test_game_functions_show_plain_names_and_no_addresses(in_process):
    world = World.create(seed=3, size=48)
    char = world.add_character(name="ada")
    manager = ProgramManager(world, in_process=in_process)
    try:
        pid = manager.submit(char, "look", SOURCE)["id"]
        assert run_until_done(manager, world, char, pid)["status"] == "finished"
        lines = [str(line) for line in manager.logs(char, pid)]
    finally:
        manager.close()
    text = "\n".join(lines)
    assert "<game function move> <game function craft> <game function wait>" in text
    assert "<game function move>" in lines[1]
    assert "error move()" in text  # a wrong call names the function plainly too
    for leak in ("0x", "build_api", "locals", "GameFunction", "asiworld"):
        assert leak not in text, (leak, text)
