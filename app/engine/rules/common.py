"""Small rule checks shared by several kinds of action."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import codes
from ..errors import Refusal
from ..model import Character, Entity

if TYPE_CHECKING:
    from ..world import World


def a(noun: str) -> str:
    """'a workbench', 'an anvil': sentences people read."""
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


def chebyshev(ax: int, ay: int, bx: int, by: int) -> int:
    return max(abs(ax - bx), abs(ay - by))


def require_in_area(world: World, char: Character, x: int, y: int) -> None:
    if not world.area_of(char).in_bounds(x, y):
        area = world.area_of(char)
        raise Refusal(codes.OUT_OF_BOUNDS, f"({x}, {y}) is outside the map"
                      f" (0..{area.width - 1}, 0..{area.height - 1})")


def require_adjacent(world: World, char: Character, x: int, y: int, what: str) -> None:
    require_in_area(world, char, x, y)
    reach = world.content.place.reach
    if chebyshev(char.x, char.y, x, y) > reach or (x, y) == (char.x, char.y) and what != "loot":
        raise Refusal(codes.NOT_ADJACENT, f"{what} at ({x}, {y}) is not next to {char.name}"
                      f" at ({char.x}, {char.y})")


def entity_target(world: World, char: Character, target: int, what: str) -> Entity:
    ent = world.entities.get(target)
    if ent is None or ent.area != char.area:
        raise Refusal(codes.NO_TARGET, f"there is no {what} {target} here")
    if ent.id == char.id:
        raise Refusal(codes.BAD_ARGUMENT, f"{char.name} cannot {what} itself")
    if chebyshev(char.x, char.y, ent.x, ent.y) > world.content.place.reach:
        raise Refusal(codes.NOT_ADJACENT,
                      f"{ent.kind} {ent.id} at ({ent.x}, {ent.y}) is not next to"
                      f" {char.name} at ({char.x}, {char.y})")
    return ent


def require_item(world: World, char: Character, item: str, count: int = 1) -> None:
    if item not in world.content.items:
        raise Refusal(codes.UNKNOWN_ITEM, f"there is no item called {item!r}")
    have = char.count(item)
    if have < count:
        raise Refusal(codes.NOT_IN_INVENTORY, f"{char.name} has {have} {item}, needs {count}")


def in_dungeon(world: World, char: Entity) -> bool:
    return world.areas[char.area].kind != "surface"
