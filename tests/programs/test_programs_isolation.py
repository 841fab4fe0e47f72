"""One character's program cannot crash or stall the host of anyone else's (issue 16, weaknesses
1 and 2). Each attack runs while another character's program runs; the attacker's program ends
with a clear code, the other is still running, and neither host hangs its caller."""

from __future__ import annotations

import pytest
from asiworld.engine import World
from asiworld.programs.manager import ProgramManager

from tests.programs.helpers import run_ticks, run_until_done

SHARED = "a = [1] * 200\nfor i in range(8):\n    a = [a] * 200\n"
OTHER = "n = 0\nwhile True:\n    wait(1)\n    n += 1\n"

# name: (source, final status, code, a phrase of the message or outcome)
SHARED_REFERENCE_ATTACKS = {
    "outcome of shared references": (SHARED + "def main():\n    return a\n", "finished", None),
    "exception of shared references": (SHARED + "raise ValueError(a)\n", "failed", "program_error"),
    "GameError of shared references": (SHARED + "raise GameError(a, a)\n", "failed", None),
    "log of shared references": (SHARED + "log(a, a)\nprint(a)\n", "finished", None),
}


def two_programs(in_process: bool, source: str):
    world = World.create(seed=3, size=48)
    other_char = world.add_character(name="bystander")
    attacker = world.add_character(name="attacker")
    manager = ProgramManager(world, in_process=in_process)
    other = manager.submit(other_char, "steady", OTHER)["id"]
    pid = manager.submit(attacker, "attack", source)["id"]
    return world, manager, other, pid


@pytest.mark.timeout(120)
@pytest.mark.parametrize("in_process", [True, False], ids=["in-process", "process-host"])
@pytest.mark.parametrize("name", SHARED_REFERENCE_ATTACKS)
def test_values_built_from_shared_references_end_only_their_own_program(in_process, name):
    source, status, code = SHARED_REFERENCE_ATTACKS[name]
    world, manager, other, pid = two_programs(in_process, source)
    try:
        ended = run_until_done(manager, world, pid, limit=100)
        run_ticks(manager, world, 3)
        assert ended["status"] == status, ended
        if code is not None:
            assert ended["outcome"]["error"]["code"] == code
        assert len(str(ended["outcome"])) < 100_000  # the outcome is a bounded copy
        assert all(len(line) <= 300 for line in manager.logs(pid))
        assert manager.status(other)["status"] in ("running", "waiting")
        assert manager.host_restarts == 0
    finally:
        manager.close()


def test_an_outcome_of_shared_references_is_cut_off_not_walked_whole():
    world, manager, other, pid = two_programs(True, SHARED + "def main():\n    return a\n")
    try:
        value = run_until_done(manager, world, pid, limit=100)["outcome"]["value"]
    finally:
        manager.close()
    parts, stack = 0, [value]
    while stack:
        item = stack.pop()
        parts += 1
        if isinstance(item, list):
            stack.extend(item)
    assert 1000 <= parts <= 2001
    assert value[0][0][0][0][0][0][0][0][:3] == [1, 1, 1]  # the start of the value is kept
