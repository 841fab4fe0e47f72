"""craft: turn inputs into an item at a station within reach. A count crafts one after another;
each finished craft is one successful crafting operation (one `crafted` event)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import codes, inventory
from ..content import Recipe
from ..errors import Refusal
from ..handlers import Arg, Handler, register
from ..model import Character, Op
from .common import a

if TYPE_CHECKING:
    from ..world import World


def stations_near(world: World, char: Character) -> set[str]:
    area = world.area_of(char)
    reach = world.content.place.station_reach
    found = set()
    for dy in range(-reach, reach + 1):
        for dx in range(-reach, reach + 1):
            s = area.structures.get((char.x + dx, char.y + dy))
            if s is not None and world.content.structures[s.kind].get("station"):
                found.add(s.kind)
    return found


def _missing(world: World, char: Character, recipe: Recipe, stations: set[str]) -> list[str]:
    gaps = [f"{n} {item} (have {char.count(item)})" for item, n in recipe.inputs.items()
            if char.count(item) < n]
    if recipe.requires and not char.count(recipe.requires):
        gaps.append(f"the {recipe.requires}")
    if recipe.station not in stations:
        gaps.append(f"{a(recipe.station)} within {world.content.place.station_reach} tiles")
    return gaps


def choose_recipe(world: World, char: Character, name: str) -> Recipe:
    """A recipe id, or an item name whose first recipe that can be made now is taken."""
    content = world.content
    if name in content.recipes_by_output:  # an item: any of its recipes
        candidates = content.recipes_by_output[name]
    elif name in content.recipes:
        candidates = [content.recipes[name]]
    else:
        raise Refusal(codes.UNKNOWN_RECIPE, f"there is no recipe for {name!r}")
    stations = stations_near(world, char)
    for recipe in candidates:
        if not _missing(world, char, recipe, stations):
            return recipe
    recipe = candidates[0]
    gaps = _missing(world, char, recipe, stations)
    code = codes.NEEDS_DESIGN if recipe.requires and not char.count(recipe.requires) else (
        codes.NEEDS_STATION if recipe.station not in stations and len(gaps) == 1
        else codes.MISSING_MATERIALS)
    raise Refusal(code, f"cannot craft {name}: needs {' and '.join(gaps)}")


def _check(world: World, char: Character, args: dict) -> None:
    recipe = choose_recipe(world, char, args["recipe"])
    if inventory.room_for(char, recipe.output, world.content) < recipe.count:
        raise Refusal(codes.INVENTORY_FULL, f"{char.name} has no room for {recipe.output}")


def _begin(world: World, char: Character, op: Op) -> None:
    recipe = choose_recipe(world, char, op.args["recipe"])
    op.remaining = op.args.get("count", 1)
    op.wait = recipe.ticks
    op.result = {"item": recipe.output, "count": 0}


def _effect(world: World, char: Character, op: Op) -> bool:
    recipe = choose_recipe(world, char, op.args["recipe"])
    for item, n in recipe.inputs.items():
        inventory.remove(char, item, n)
    inventory.add(char, recipe.output, recipe.count, world.content)
    char.crafted[recipe.output] = char.crafted.get(recipe.output, 0) + recipe.count
    category = world.content.items[recipe.output]["category"]
    world.emit("crafted", char=char.id, recipe=recipe.id, item=recipe.output, count=recipe.count,
               station=recipe.station, category=category, cooking=recipe.cooking)
    if recipe.output == "travel_outfit" and "production" not in char.tasks:
        char.tasks["production"] = world.tick
        world.emit("task_complete", char=char.id, task="production")
    op.result["count"] += recipe.count
    op.remaining -= 1
    if op.remaining <= 0:
        return True
    # The next unit must still be possible; if not, the operation ends with what it made.
    _check(world, char, {"recipe": op.args["recipe"]})
    op.wait = recipe.ticks
    return False


register(Handler("craft", "crafting",
                 {"recipe": Arg("str", help="a recipe id or the name of the item it makes"),
                  "count": Arg("int", required=False, default=1, low=1, high=50,
                               help="how many times to craft the recipe")},
                 _check, _effect, begin=_begin,
                 help="craft a recipe (by recipe id or item name) count times at a station within 2 tiles"))
