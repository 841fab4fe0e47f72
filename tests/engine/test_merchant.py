"""Rules of the trading post (buy for T-coins) and of the travel outfit (tailoring needs the
design). Setup mutates the world directly; the rules run through `submit`/`step`."""

from __future__ import annotations

import pytest
from asiworld.engine import World, load_content
from asiworld.engine.model import SURFACE, Character, Structure

CONTENT = load_content()
PRICES = CONTENT.raw["merchant"]["sells"]


def make_world() -> World:
    return World.create(seed=7, content=CONTENT, size=64)


def shopper(world: World, coins: int = 0, items: dict | None = None) -> Character:
    char = world.entities[world.add_character("ada")]
    char.coins = coins
    for item, n in (items or {}).items():
        char.inventory.append([item, n])
    return char


def at_merchant(world: World, char: Character) -> None:
    pos = world.free_tile_near(SURFACE, world.landmarks.merchant, radius=1)
    world.move_entity(char, pos[0], pos[1], SURFACE)


def refused(world: World, char: Character, action: dict) -> str:
    before = world.state_hash()
    result = world.submit(char.id, action)
    assert not result.ok and result.message
    assert world.state_hash() == before, "a refused action changed the world"
    return result.code


def act(world: World, char: Character, action: dict) -> list[dict]:
    result = world.submit(char.id, action)
    assert result.ok, result
    return world.step()


def test_buying_needs_the_merchant_next_to_you():
    world = make_world()
    ada = shopper(world, coins=100)
    assert refused(world, ada, {"type": "buy", "item": "torch"}) == "not_at_merchant"


def test_the_merchant_refuses_without_enough_coins():
    world = make_world()
    ada = shopper(world, coins=PRICES["travel_outfit_design"] - 1)
    at_merchant(world, ada)
    assert (
        refused(world, ada, {"type": "buy", "item": "travel_outfit_design"}) == "not_enough_coins"
    )
    assert refused(world, ada, {"type": "buy", "item": "torch", "count": 40}) == "not_enough_coins"


@pytest.mark.parametrize(
    "action,code",
    [
        ({"type": "buy", "item": "dragon_egg"}, "unknown_item"),
        ({"type": "buy", "item": "wood"}, "not_sold"),
        ({"type": "buy", "item": "torch", "count": 0}, "bad_argument"),
        ({"type": "buy", "item": "torch", "count": 51}, "bad_argument"),
        ({"type": "buy", "item": "torch", "count": "3"}, "bad_argument"),
        ({"type": "buy"}, "bad_argument"),
    ],
)
def test_the_merchant_refuses_bad_orders(action, code):
    world = make_world()
    ada = shopper(world, coins=1000)
    at_merchant(world, ada)
    assert refused(world, ada, action) == code


def test_buying_spends_coins_and_says_so_in_the_bought_event_not_in_coins():
    world = make_world()
    ada = shopper(world, coins=50)
    at_merchant(world, ada)
    events = act(world, ada, {"type": "buy", "item": "travel_outfit_design"})
    bought = [e for e in events if e["kind"] == "bought"]
    assert bought == [
        dict(
            bought[0],
            char=ada.id,
            item="travel_outfit_design",
            count=1,
            cost=PRICES["travel_outfit_design"],
        )
    ]
    assert not [e for e in events if e["kind"] == "coins"]
    assert ada.coins == 50 - PRICES["travel_outfit_design"]
    assert ada.count("travel_outfit_design") == 1
    act(world, ada, {"type": "buy", "item": "torch", "count": 3})
    assert ada.count("torch") == 3 and ada.coins == 10 - 3 * PRICES["torch"]


def test_the_merchant_will_not_sell_what_does_not_fit():
    world = make_world()
    ada = shopper(world, coins=1000)
    ada.inventory[:] = [["stone", 50] for _ in range(CONTENT.character.inventory_slots)]
    at_merchant(world, ada)
    assert refused(world, ada, {"type": "buy", "item": "shears"}) == "inventory_full"


# ------------------------------------------------------------------------------ the outfit
OUTFIT_MATERIALS = {"cloth": 4, "leather": 2, "iron_ingot": 1}


def at_tailoring_table(world: World, char: Character) -> None:
    """A table of its own on a free tile within reach (placed directly: setup, not the rule)."""
    surface = world.areas[SURFACE]
    pos = world.free_tile_near(SURFACE, (char.x + 1, char.y), radius=1)
    surface.structures[pos] = Structure(kind="tailoring_table", owner=char.id)
    surface.version += 1


def test_the_travel_outfit_needs_the_design():
    world = make_world()
    ada = shopper(world, items=OUTFIT_MATERIALS)
    at_tailoring_table(world, ada)
    assert refused(world, ada, {"type": "craft", "recipe": "travel_outfit"}) == "needs_design"


def test_tailoring_the_outfit_keeps_the_design_and_completes_the_production_task():
    world = make_world()
    ada = shopper(world, items={**OUTFIT_MATERIALS, "travel_outfit_design": 1})
    at_tailoring_table(world, ada)
    events = act(world, ada, {"type": "craft", "recipe": "travel_outfit"})
    for _ in range(CONTENT.recipes["travel_outfit"].ticks):
        events += world.step()
    assert ada.count("travel_outfit") == 1 and ada.count("travel_outfit_design") == 1
    assert not any(ada.count(k) for k in OUTFIT_MATERIALS)
    done = [e for e in events if e["kind"] == "task_complete"]
    assert [(e["char"], e["task"]) for e in done] == [(ada.id, "production")]
