"""gather: take wood, stone, coal, ore, fibre or berries from an adjacent source tile, shear an
adjacent sheep, or (in a dungeon) open an adjacent chest (chests.py). Tools decide whether it is
possible and how long it takes."""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING

from .. import codes, inventory
from ..errors import Refusal
from ..handlers import Arg, Handler, register
from ..model import Character, Creature, Op
from . import chests
from .common import a, entity_target, require_adjacent

if TYPE_CHECKING:
    from ..world import World


def _source(world: World, char: Character, args: dict) -> tuple[str, dict]:
    area = world.area_of(char)
    x, y = args["x"], args["y"]
    require_adjacent(world, char, x, y, "the source")
    tile = world.tile_name(area, x, y)
    src = world.content.sources.get(tile)
    if src is None:
        raise Refusal(codes.NOTHING_TO_GATHER,
                      f"there is nothing to gather from {tile} at ({x}, {y})")
    return tile, src


def _ticks(world: World, char: Character, src: dict) -> int:
    if any(char.count(t) for t in src.get("tools", [])):
        return int(src.get("tool_ticks", src["ticks"]))
    return int(src["ticks"])


def _check(world: World, char: Character, args: dict) -> None:
    chest = chests.chest_at(world, char, args)
    if chest is not None:
        chests.check(world, char, args, chest)
        return
    if "target" in args:
        _check_shear(world, char, args)
        return
    tile, src = _source(world, char, args)
    needs = src.get("needs", [])
    if needs and not any(char.count(t) for t in needs):
        raise Refusal(codes.NEEDS_TOOL, f"gathering {tile} needs one of: {', '.join(needs)}")
    if inventory.room_for(char, src["item"], world.content) < 1:
        raise Refusal(codes.INVENTORY_FULL, f"{char.name} has no room for {src['item']}")


def _check_shear(world: World, char: Character, args: dict) -> None:
    sheep = entity_target(world, char, args["target"], "shear")
    shear = world.content.creatures.get(sheep.kind, {}).get("shear")
    if shear is None or not isinstance(sheep, Creature):
        raise Refusal(codes.NOTHING_TO_GATHER, f"{a(sheep.kind)} cannot be shorn")
    if not char.count(shear["tool"]):
        raise Refusal(codes.NEEDS_TOOL, f"shearing needs {shear['tool']}")
    if sheep.wool_at > world.tick:
        raise Refusal(codes.NOTHING_TO_GATHER,
                      f"sheep {sheep.id} has no wool until tick {sheep.wool_at}")
    if inventory.room_for(char, shear["item"], world.content) < 1:
        raise Refusal(codes.INVENTORY_FULL, f"{char.name} has no room for {shear['item']}")


def _begin(world: World, char: Character, op: Op) -> None:
    if chests.chest_at(world, char, op.args) is not None:
        chests.begin(world, char, op)
    elif "target" in op.args:
        sheep = world.entities[op.args["target"]]
        op.wait = int(world.content.creatures[sheep.kind]["shear"]["ticks"])
    else:
        op.wait = _ticks(world, char, _source(world, char, op.args)[1])


def _effect(world: World, char: Character, op: Op) -> bool:
    if chests.chest_at(world, char, op.args) is not None:
        return chests.open_chest(world, char, op)
    if "target" in op.args:
        sheep = world.entities[op.args["target"]]
        shear = world.content.creatures[sheep.kind]["shear"]
        sheep.wool_at = world.tick + int(shear["regrow"])
        item, count, source = shear["item"], int(shear["count"]), sheep.kind
    else:
        tile, src = _source(world, char, op.args)
        area = world.area_of(char)
        x, y = op.args["x"], op.args["y"]
        item, count, source = src["item"], int(src.get("count", 1)), tile
        if "amount" in src:
            area.amount[y, x] -= 1
            if area.amount[y, x] <= 0:
                world.set_tile(area, x, y, src["spent"])
        if "picked" in src:
            world.set_tile(area, x, y, src["picked"])
            heapq.heappush(world.expiries, (world.tick + int(src["regrow"]), area.id, (x, y)))
    left = inventory.add(char, item, count, world.content)
    got = count - left
    op.result = {"item": item, "count": got}
    world.emit("gathered", char=char.id, item=item, count=got, source=source)
    return True


register(Handler("gather", "gathering",
                 {"x": Arg("int", required=False, low=0, high=4095,
                           help="x of an adjacent source tile (with y)"),
                  "y": Arg("int", required=False, low=0, high=4095,
                           help="y of an adjacent source tile (with x)"),
                  "target": Arg("int", required=False, low=0,
                                help="id of an adjacent sheep to shear (instead of x and y)")},
                 _check, _effect, begin=_begin, forms=(("x", "y"), ("target",)),
                 help="gather from an adjacent source tile (x, y), or shear an adjacent sheep"
                      " (target); in a dungeon, open an adjacent chest (x, y) for coins and"
                      " supplies"))
