"""Every game API call from a program builds exactly the contract's action dict, and the program
gets the engine's own answer (a small seeded real world; `world.submit` is watched, not replaced)."""

from __future__ import annotations

import pytest
from asiworld.engine import World
from asiworld.engine.model import SURFACE
from asiworld.programs.manager import ProgramManager

from tests.programs.helpers import run_ticks, run_until_done, watch_submits


def world_with_ada(seed: int = 3) -> tuple[World, int]:
    world = World.create(seed=seed, size=48)
    return world, world.add_character("ada")


CALLS = [
    ("move('n')", {"type": "move", "dir": "n"}),
    ("move_to(3, 4)", {"type": "move_to", "x": 3, "y": 4}),
    ("gather(3, 4)", {"type": "gather", "x": 3, "y": 4}),
    ("gather(target=9)", {"type": "gather", "target": 9}),
    ("attack(9)", {"type": "attack", "target": 9}),
    ("craft('axe')", {"type": "craft", "recipe": "axe", "count": 1}),
    ("craft('torch', 5)", {"type": "craft", "recipe": "torch", "count": 5}),
    ("place('wall', 3, 4)", {"type": "place", "item": "wall", "x": 3, "y": 4}),
    ("dismantle(3, 4)", {"type": "dismantle", "x": 3, "y": 4}),
    ("eat('berries')", {"type": "eat", "item": "berries"}),
    ("use('healing_potion')", {"type": "use", "item": "healing_potion"}),
    ("equip('axe')", {"type": "equip", "item": "axe"}),
    ("unequip('weapon')", {"type": "unequip", "slot": "weapon"}),
    ("install_lock(3, 4)", {"type": "install_lock", "x": 3, "y": 4}),
    ("lock(3, 4)", {"type": "lock", "x": 3, "y": 4}),
    ("unlock(3, 4)", {"type": "unlock", "x": 3, "y": 4}),
    ("sleep()", {"type": "sleep"}),
    ("wake()", {"type": "wake"}),
    ("enter()", {"type": "enter"}),
    ("enter(party=[1, 2])", {"type": "enter", "party": [1, 2]}),
    ("leave()", {"type": "leave"}),
    ("offer()", {"type": "offer"}),
    ("buy('torch', 2)", {"type": "buy", "item": "torch", "count": 2}),
    ("give(2, 'wood', 3)", {"type": "give", "target": 2, "item": "wood", "count": 3}),
    ("drop('wood')", {"type": "drop", "item": "wood", "count": 1}),
    ("pick_up()", {"type": "pick_up"}),
    ("say('hello')", {"type": "say", "text": "hello"}),
    ("wait(3)", {"type": "wait", "ticks": 3}),
]


@pytest.mark.parametrize("call,action", CALLS, ids=[c for c, _ in CALLS])
def test_each_api_call_submits_the_contract_action_and_returns_the_result(call, action):
    world, ada = world_with_ada()
    submits = watch_submits(world)
    manager = ProgramManager(world, in_process=True)
    pid = manager.submit(ada, "one call", f"def main():\n    return {call}\n")["id"]
    events = []
    while manager.status(ada, pid)["status"] in ("running", "waiting") and world.tick < 500:
        events += run_ticks(manager, world, 1)
    ((char, sent, answer),) = submits
    assert (char, sent) == (ada, action)
    outcome = manager.outcome(ada, pid)
    if answer.ok:  # the call returns the operation's result
        (done,) = [e for e in events if e["kind"] == "op_done" and e["op"] == answer.op]
        assert manager.status(ada, pid)["status"] == "finished"
        assert outcome["value"] == done["result"]
    else:  # a refusal is a GameError with the engine's code and sentence
        assert manager.status(ada, pid)["status"] == "failed"
        assert outcome["error"]["code"] == answer.code
        assert outcome["error"]["message"] == f"line 2: {answer.message}"


def test_calls_the_engine_accepts_and_refuses_are_both_covered():
    answers = set()
    for call, _ in CALLS:
        world, ada = world_with_ada()
        submits = watch_submits(world)
        manager = ProgramManager(world, in_process=True)
        manager.submit(ada, "one call", f"def main():\n    return {call}\n")
        run_ticks(manager, world, 1)
        answers.add(submits[0][2].ok)
    assert answers == {True, False}


@pytest.mark.parametrize(
    "call",
    [
        "move('up')",
        "move_to('3', 4)",
        "move_to(True, 4)",
        "craft('axe', 0)",
        "unequip('hat')",
        "wait(601)",
        "enter(party=[1, 'x'])",
        "give(2, '', 1)",
        "gather()",
    ],
)
def test_bad_arguments_raise_game_error_before_reaching_the_world(call):
    world, ada = world_with_ada()
    submits = watch_submits(world)
    manager = ProgramManager(world, in_process=True)
    pid = manager.submit(ada, "bad", f"{call}\n")["id"]
    status = run_until_done(manager, world, ada, pid)
    assert status["status"] == "failed"
    assert status["outcome"]["error"]["code"] == "bad_argument"
    assert status["outcome"]["error"]["line"] == 1
    assert submits == []


def test_observation_helpers_read_the_latest_observation_without_blocking():
    world, ada = world_with_ada()
    me = world.entities[ada]
    world.move_entity(me, 20, 21, SURFACE)
    me.inventory.append(["wood", 2])
    sheep = world.add_creature("sheep", SURFACE, (21, 21))
    seen = [e["id"] for e in world.observe(ada, consume=False)["entities"] if e["kind"] == "sheep"]
    assert sheep.id in seen
    submits = watch_submits(world)
    manager = ProgramManager(world, in_process=True)
    source = (
        "def main():\n"
        "    return [position(), inventory(), count('wood'), count('stone'), tick(),\n"
        "            [e['id'] for e in entities('sheep')], me()['id'], observe()['tick']]\n"
    )
    pid = manager.submit(ada, "look", source)["id"]
    assert run_until_done(manager, world, ada, pid)["status"] == "finished"
    assert manager.outcome(ada, pid)["value"] == [[20, 21], {"wood": 2}, 2, 0, 0, seen, ada, 0]
    assert submits == []


def test_log_and_print_both_go_to_the_program_log():
    world, ada = world_with_ada()
    manager = ProgramManager(world, in_process=True)
    pid = manager.submit(ada, "talk", "log('a', 1)\nprint('b', 2)\n")["id"]
    run_until_done(manager, world, ada, pid)
    assert manager.logs(ada, pid) == ["a 1", "b 2"]


def test_a_refused_call_raises_game_error_in_the_same_tick_and_the_program_can_go_on():
    world, ada = world_with_ada()
    submits = watch_submits(world)
    manager = ProgramManager(world, in_process=True)
    source = "try:\n    craft('nothing')\nexcept GameError as e:\n    log(e.code)\nmove('s')\n"
    pid = manager.submit(ada, "retry", source)["id"]
    manager.before_step()
    assert [(char, action, answer.code) for char, action, answer in submits] == [
        (ada, {"type": "craft", "recipe": "nothing", "count": 1}, "unknown_recipe"),
        (ada, {"type": "move", "dir": "s"}, "accepted"),
    ]
    assert manager.logs(ada, pid) == ["unknown_recipe"]


def test_submit_refuses_unknown_characters_bad_names_and_bad_source_without_a_program():
    world, ada = world_with_ada()
    sheep = next(e.id for e in world.entities.values() if e.kind == "sheep")
    manager = ProgramManager(world, in_process=True)
    for who in (999, sheep, "ada", True):
        assert manager.submit(who, "x", "pass")["code"] == "unknown_character", who
    assert manager.submit(ada, "", "pass")["code"] == "bad_argument"
    refused = manager.submit(ada, "x", "x = (1\n")
    assert refused["code"] == "syntax_error" and refused["line"] == 1
    assert manager.records == {}


def test_the_random_object_is_seeded_so_reruns_draw_the_same_numbers():
    draws = []
    for _ in range(2):
        world, ada = world_with_ada()
        manager = ProgramManager(world, in_process=True)
        pid = manager.submit(
            ada, "dice", "def main():\n    return [random.randint(1, 6) for i in range(8)]\n"
        )["id"]
        run_until_done(manager, world, ada, pid)
        draws.append(manager.outcome(ada, pid)["value"])
    assert draws[0] == draws[1]


def test_ordinary_python_still_works_under_the_guards():
    world, ada = world_with_ada()
    manager = ProgramManager(world, in_process=True)
    source = (
        "def main():\n"
        "    d = {'a': 1}\n"
        "    d['b'] = 2\n"
        "    items = [3, 1, 2]\n"
        "    items[0:1] = [0]\n"
        "    items += [4]\n"
        "    s = 'x' * 3 + f'{7:>3}' + '%d' % 5\n"
        "    a, (b, c) = 1, (2, 3)\n"
        "    total = sum(v for v in d.values())\n"
        "    return [1 in items, 9 not in items, 'a' in 'abc', sorted(items), s, a + b + c,\n"
        "            total, 2 ** 10, (lambda n: n * 2)(4), max(items), ', '.join(['p', 'q'])]\n"
    )
    pid = manager.submit(ada, "plain python", source)["id"]
    assert run_until_done(manager, world, ada, pid)["status"] == "finished", manager.outcome(ada, pid)
    assert manager.outcome(ada, pid)["value"] == [
        True,
        True,
        True,
        [0, 1, 2, 4],
        "xxx  75",
        6,
        3,
        1024,
        8,
        4,
        "p, q",
    ]
