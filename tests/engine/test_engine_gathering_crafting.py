"""Gathering needs the right tool; crafting needs materials and a station within two tiles."""

from __future__ import annotations

from asiworld.engine.model import SURFACE


def kinds(events, kind):
    return [e for e in events if e["kind"] == kind]


def test_a_tree_gives_wood_after_six_ticks_and_an_axe_halves_that(arena):
    ada = arena.hero()
    arena.tile(21, 20, "tree")
    arena.act(ada, {"type": "gather", "x": 21, "y": 20}, ticks=5)
    assert ada.count("wood") == 0
    arena.run(1)
    assert ada.count("wood") == 1
    ada.inventory.append(["axe", 1])
    arena.act(ada, {"type": "gather", "x": 21, "y": 20}, ticks=3)
    assert ada.count("wood") == 2


def test_gathering_rock_needs_a_pickaxe(arena):
    ada = arena.hero()
    arena.tile(21, 20, "rock")
    assert arena.refused(ada.id, {"type": "gather", "x": 21, "y": 20}) == "needs_tool"
    ada.inventory.append(["wooden_pickaxe", 1])
    arena.act(ada, {"type": "gather", "x": 21, "y": 20}, ticks=6)
    assert ada.count("stone") == 1


def test_iron_ore_needs_a_stone_or_iron_pickaxe(arena):
    ada = arena.hero(items={"wooden_pickaxe": 1})
    arena.tile(21, 20, "iron")
    assert arena.refused(ada.id, {"type": "gather", "x": 21, "y": 20}) == "needs_tool"
    ada.inventory.append(["stone_pickaxe", 1])
    arena.act(ada, {"type": "gather", "x": 21, "y": 20}, ticks=8)
    assert ada.count("iron_ore") == 1


def test_a_spent_tree_becomes_ground(arena):
    ada = arena.hero(items={"axe": 1})
    arena.tile(21, 20, "tree", amount=1)
    arena.act(ada, {"type": "gather", "x": 21, "y": 20}, ticks=3)
    area = arena.world.areas[SURFACE]
    assert arena.world.tile_name(area, 21, 20) == "ground"


def test_picked_flax_grows_back_after_its_delay(arena):
    ada = arena.hero()
    arena.tile(21, 20, "flax")
    arena.act(ada, {"type": "gather", "x": 21, "y": 20}, ticks=3)
    area = arena.world.areas[SURFACE]
    assert ada.count("fibre") == 1
    assert arena.world.tile_name(area, 21, 20) == "flax_picked"
    assert arena.refused(ada.id, {"type": "gather", "x": 21, "y": 20}) == "nothing_to_gather"
    arena.run(arena.world.content.sources["flax"]["regrow"])
    assert arena.world.tile_name(area, 21, 20) == "flax"


def test_gathering_from_afar_is_refused(arena):
    ada = arena.hero()
    arena.tile(25, 20, "tree")
    assert arena.refused(ada.id, {"type": "gather", "x": 25, "y": 20}) == "not_adjacent"


def test_crafting_needs_its_station_within_two_tiles(arena):
    ada = arena.hero(items={"wood": 10})
    code = arena.refused(ada.id, {"type": "craft", "recipe": "wooden_pickaxe"})
    assert code == "needs_station"
    arena.act(ada, {"type": "place", "item": "workbench", "x": 21, "y": 20})
    assert ada.count("wood") == 6
    events = arena.act(ada, {"type": "craft", "recipe": "wooden_pickaxe"}, ticks=5)
    assert ada.count("wooden_pickaxe") == 1
    assert kinds(events, "crafted")[0]["item"] == "wooden_pickaxe"
    arena.world.move_entity(ada, 24, 20)
    assert arena.refused(ada.id, {"type": "craft", "recipe": "wooden_sword"}) == "needs_station"


def test_a_refused_craft_names_what_is_missing(arena):
    ada = arena.hero(items={"wood": 1})
    result = arena.world.submit(ada.id, {"type": "craft", "recipe": "iron_sword"})
    assert not result.ok and result.code == "missing_materials"
    assert "2 iron_ingot (have 0)" in result.message and "anvil" in result.message


def test_crafting_a_count_makes_one_crafted_event_per_item(arena):
    ada = arena.hero(items={"wood": 20})
    arena.act(ada, {"type": "place", "item": "workbench", "x": 21, "y": 20})
    events = arena.act(ada, {"type": "craft", "recipe": "floor", "count": 3}, ticks=9)
    assert len(kinds(events, "crafted")) == 3
    assert ada.count("floor") == 3 and ada.count("wood") == 16 - 3


def test_a_craft_by_item_name_takes_the_recipe_whose_inputs_are_at_hand(arena):
    ada = arena.hero(items={"stone": 2, "workbench": 0})
    ada.inventory = [["stone", 2], ["wood", 4]]
    arena.act(ada, {"type": "place", "item": "workbench", "x": 21, "y": 20})
    events = arena.act(ada, {"type": "craft", "recipe": "wall"}, ticks=3)
    assert kinds(events, "crafted")[0]["recipe"] == "stone_wall"


def test_cooking_is_a_stove_recipe_and_says_so(arena):
    ada = arena.hero(items={"stone": 4, "iron_ingot": 1, "raw_meat": 1, "wood": 1})
    arena.act(ada, {"type": "place", "item": "stove", "x": 21, "y": 20})
    events = arena.act(ada, {"type": "craft", "recipe": "cooked_meat"}, ticks=6)
    crafted = kinds(events, "crafted")[0]
    assert crafted["cooking"] is True and ada.count("cooked_meat") == 1
