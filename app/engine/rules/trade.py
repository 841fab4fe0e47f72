"""give to an adjacent character, drop into a bag on your tile, pick up an adjacent bag."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import codes, inventory
from ..errors import Refusal
from ..handlers import Arg, Handler, register
from ..model import Character, Op
from .common import chebyshev, entity_target, require_item

if TYPE_CHECKING:
    from ..world import World


def _check_give(world: World, char: Character, args: dict) -> None:
    target = entity_target(world, char, args["target"], "give to")
    if not isinstance(target, Character):
        raise Refusal(codes.NO_TARGET, f"{target.kind} {target.id} cannot take items")
    require_item(world, char, args["item"], args["count"])
    if inventory.room_for(target, args["item"], world.content) < args["count"]:
        raise Refusal(codes.INVENTORY_FULL,
                      f"{target.name} has no room for {args['count']} {args['item']}")


def _give(world: World, char: Character, op: Op) -> bool:
    target = world.entities[op.args["target"]]
    item, count = op.args["item"], op.args["count"]
    inventory.remove(char, item, count)
    inventory.add(target, item, count, world.content)
    world.emit("gave", char=char.id, target=target.id, item=item, count=count)
    op.result = {"target": target.id, "item": item, "count": count}
    return True


_COUNT = Arg("int", required=False, default=1, low=1, high=1000, help="how many of the item")
register(Handler("give", "trade", {"target": Arg("int", low=0, help="id of an adjacent character"),
                                   "item": Arg("str", help="an item in your inventory"),
                                   "count": _COUNT}, _check_give, _give,
                 help="hand items to an adjacent character"))


def _check_drop(world: World, char: Character, args: dict) -> None:
    require_item(world, char, args["item"], args["count"])


def _drop(world: World, char: Character, op: Op) -> bool:
    item, count = op.args["item"], op.args["count"]
    inventory.remove(char, item, count)
    world.drop_loot(world.area_of(char), (char.x, char.y), {item: count}, owner=char.id)
    world.emit("dropped", char=char.id, item=item, count=count)
    op.result = {"item": item, "count": count}
    return True


register(Handler("drop", "trade", {"item": Arg("str", help="an item in your inventory"), "count": _COUNT}, _check_drop, _drop,
                 help="drop items in a bag where you stand"))


def _bag_near(world: World, char: Character):
    area = world.area_of(char)
    for pos in sorted(area.loot, key=lambda p: (chebyshev(char.x, char.y, *p), p)):
        if chebyshev(char.x, char.y, *pos) <= world.content.place.reach:
            return pos, area.loot[pos]
    raise Refusal(codes.NO_TARGET, "there is no loot bag on or next to this tile")


def _check_pick(world: World, char: Character, args: dict) -> None:
    _, bag = _bag_near(world, char)
    if not any(inventory.room_for(char, item, world.content) for item in bag.items):
        raise Refusal(codes.INVENTORY_FULL, f"{char.name} has no room for anything in the bag")


def _pick(world: World, char: Character, op: Op) -> bool:
    pos, bag = _bag_near(world, char)
    taken: dict[str, int] = {}
    for item in list(bag.items):
        n = bag.items[item]
        left = inventory.add(char, item, n, world.content)
        if n - left:
            taken[item] = n - left
        if left:
            bag.items[item] = left
        else:
            del bag.items[item]
    if not bag.items:
        del world.area_of(char).loot[pos]
    world.loot_changed = True
    world.emit("picked_up", char=char.id, items=taken)
    op.result = {"items": taken}
    return True


register(Handler("pick_up", "trade", {}, _check_pick, _pick,
                 help="take what fits from a loot bag on or next to your tile"))
