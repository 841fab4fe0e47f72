"""Chests in dungeon instances: `gather` on an adjacent chest opens it once for its coins and
supplies (gathering.py sends a gather at a chest tile here)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import codes, inventory
from ..dungeons import INSIDE, award, rules
from ..errors import Refusal
from ..model import Character, Chest, Op
from .common import require_adjacent

if TYPE_CHECKING:
    from ..world import World

TILES = ("chest", "chest_open")


def chest_at(world: World, char: Character, args: dict) -> str | None:
    """The chest tile a gather at (x, y) is aimed at, or None when it is aimed at no chest."""
    if "x" not in args or "y" not in args:
        return None
    area = world.area_of(char)
    if area.kind not in INSIDE or not area.in_bounds(args["x"], args["y"]):
        return None
    tile = world.tile_name(area, args["x"], args["y"])
    return tile if tile in TILES else None


def check(world: World, char: Character, args: dict, tile: str) -> None:
    require_adjacent(world, char, args["x"], args["y"], "the chest")
    if tile == "chest_open":
        raise Refusal(codes.NOTHING_TO_GATHER, f"the chest at ({args['x']}, {args['y']}) is empty")


def begin(world: World, char: Character, op: Op) -> None:
    op.wait = int(rules(world.content)["chest_ticks"])


def open_chest(world: World, char: Character, op: Op) -> bool:
    area = world.area_of(char)
    pos = (op.args["x"], op.args["y"])
    found = area.instance.chests.pop(pos, None) or Chest(coins=0, items={})
    world.set_tile(area, pos[0], pos[1], "chest_open")
    if found.coins:
        award(world, char, found.coins, "chest")
    spill: dict[str, int] = {}
    for item, count in found.items.items():
        left = inventory.add(char, item, count, world.content)
        if left:
            spill[item] = left
        world.emit("gathered", char=char.id, item=item, count=count - left, source="chest")
    world.drop_loot(area, (char.x, char.y), spill, owner=char.id)
    op.result = {"coins": found.coins, "items": dict(found.items)}
    return True
