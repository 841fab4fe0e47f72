"""Bad input gets a stable code and a sentence, and changes nothing. Tried here: unknown action
names, missing and unknown arguments, wrong argument types (text for numbers, booleans, floats,
lists, None, a non-dict action), targets off the map, ids of no one, another character's
structures and bodies, and huge counts."""

from __future__ import annotations

import pytest

BAD = [
    ({"type": "fly"}, "unknown_action"),
    ({"type": None}, "unknown_action"),
    ({}, "unknown_action"),
    ("move north", "bad_argument"),
    (["move"], "bad_argument"),
    (None, "bad_argument"),
    ({"type": "move"}, "bad_argument"),
    ({"type": "move", "dir": "up"}, "bad_argument"),
    ({"type": "move", "dir": 3}, "bad_argument"),
    ({"type": "move", "dir": "n", "speed": 9}, "bad_argument"),
    ({"type": "move_to", "x": "10", "y": 10}, "bad_argument"),
    ({"type": "move_to", "x": 1.5, "y": 10}, "bad_argument"),
    ({"type": "move_to", "x": True, "y": 10}, "bad_argument"),
    ({"type": "move_to", "x": -1, "y": 10}, "bad_argument"),
    ({"type": "move_to", "x": 500, "y": 10}, "out_of_bounds"),
    ({"type": "gather", "x": 999, "y": 999}, "out_of_bounds"),
    ({"type": "gather"}, "bad_argument"),
    ({"type": "craft", "recipe": "spaceship"}, "unknown_recipe"),
    ({"type": "craft", "recipe": "floor", "count": 0}, "bad_argument"),
    ({"type": "craft", "recipe": "floor", "count": 10**9}, "bad_argument"),
    ({"type": "craft", "recipe": ["floor"]}, "bad_argument"),
    ({"type": "place", "item": "castle", "x": 21, "y": 20}, "unknown_item"),
    ({"type": "eat", "item": "x" * 500}, "bad_argument"),
    ({"type": "eat", "item": "unobtainium"}, "unknown_item"),
    ({"type": "equip", "item": "wood"}, "not_in_inventory"),
    ({"type": "unequip", "slot": "hat"}, "bad_argument"),
    ({"type": "attack", "target": 99999}, "no_target"),
    ({"type": "attack", "target": "sheep"}, "bad_argument"),
    ({"type": "give", "target": 99999, "item": "wood"}, "no_target"),
    ({"type": "wait", "ticks": 100000}, "bad_argument"),
    ({"type": "say", "text": "x" * 201}, "bad_argument"),
    ({"type": "dismantle", "x": 21, "y": 20}, "no_target"),
]


@pytest.mark.parametrize("action,code", BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_input_is_refused_with_a_code_and_a_sentence_and_changes_nothing(arena, action, code):
    ada = arena.hero()
    assert arena.refused(ada.id, action) == code


@pytest.mark.parametrize("char_id", [99999, -1, "55", None, 1.0, True])
def test_actions_for_no_character_are_refused(arena, char_id):
    arena.hero()
    code = arena.refused(char_id, {"type": "move", "dir": "n"})
    assert code in ("unknown_character", "bad_argument")


def test_a_creature_id_is_not_a_character(arena):
    arena.hero()
    sheep = arena.creature("sheep", (25, 25))
    assert arena.refused(sheep.id, {"type": "move", "dir": "n"}) == "unknown_character"


def test_another_characters_door_cannot_be_dismantled_or_locked(arena):
    ada = arena.hero(items={"door": 1, "lock": 1})
    bob = arena.hero("bob", at=(22, 21))
    arena.act(ada, {"type": "place", "item": "door", "x": 21, "y": 20})
    arena.act(ada, {"type": "install_lock", "x": 21, "y": 20})
    for action in ({"type": "dismantle", "x": 21, "y": 20}, {"type": "lock", "x": 21, "y": 20},
                   {"type": "unlock", "x": 21, "y": 20}):
        assert arena.refused(bob.id, action) == "not_owner"


def test_an_action_that_became_impossible_fails_at_its_tick_with_a_reason(arena):
    ada = arena.hero(items={"wood": 4})
    bob = arena.hero("bob", at=(22, 21))
    arena.act(ada, {"type": "place", "item": "workbench", "x": 21, "y": 20})
    ada.inventory = [["wood", 3]]
    assert arena.world.submit(ada.id, {"type": "craft", "recipe": "wooden_pickaxe"}).ok
    ada.inventory.clear()  # something took the wood before the tick
    events = arena.run(1)
    failed = [e for e in events if e["kind"] == "op_failed"]
    assert failed and failed[0]["code"] == "missing_materials"
    del bob


def test_a_new_action_replaces_the_one_running(arena):
    ada = arena.hero()
    arena.tile(21, 20, "tree")
    arena.act(ada, {"type": "gather", "x": 21, "y": 20})
    events = arena.act(ada, {"type": "move", "dir": "w"})
    assert [e["reason"] for e in events if e["kind"] == "op_cancelled"] == ["replaced"]
    assert ada.count("wood") == 0


def test_say_does_not_interrupt(arena):
    ada = arena.hero()
    arena.tile(21, 20, "tree")
    arena.act(ada, {"type": "gather", "x": 21, "y": 20})
    arena.act(ada, {"type": "say", "text": "hello"}, ticks=6)
    assert ada.count("wood") == 1
