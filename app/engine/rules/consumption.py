"""eat / use food and potions; equip and unequip weapons, armor, the outfit and torches."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import codes, inventory
from ..errors import Refusal
from ..handlers import SLOTS, Arg, Handler, register
from ..model import Character, Op
from .common import in_dungeon, require_item

if TYPE_CHECKING:
    from ..world import World


def _check_eat(world: World, char: Character, args: dict) -> None:
    item = args["item"]
    require_item(world, char, item)
    if world.content.items[item]["category"] not in ("food", "potion"):
        raise Refusal(codes.NOT_EDIBLE, f"{item} cannot be eaten or used")


def _eat(world: World, char: Character, op: Op) -> bool:
    item = op.args["item"]
    spec = world.content.items[item]
    c = world.content.character
    inventory.remove(char, item, 1)
    char.hunger = min(c.max_hunger, char.hunger + int(spec.get("hunger", 0)))
    char.health = max(1, min(char.max_health, char.health + int(spec.get("health", 0))))
    dungeon = in_dungeon(world, char)
    if dungeon and char.expedition is not None:
        char.expedition.supplies += 1
    world.emit("ate", char=char.id, item=item, hunger=char.hunger, health=char.health,
               in_dungeon=dungeon, supply=True)
    op.result = {"item": item, "hunger": char.hunger, "health": char.health}
    return True


_ITEM = {"item": Arg("str", help="an item in your inventory")}
register(Handler("eat", "consumption", dict(_ITEM), _check_eat, _eat,
                 help="eat food or drink a potion from the inventory"))
register(Handler("use", "consumption", dict(_ITEM), _check_eat, _eat,
                 help="the same as eat"))


def _check_equip(world: World, char: Character, args: dict) -> None:
    item = args["item"]
    require_item(world, char, item)
    slot = world.content.items[item].get("slot")
    if slot is None:
        raise Refusal(codes.NOT_EQUIPPABLE, f"{item} cannot be equipped")
    current = char.equipment[slot]
    if current is not None and inventory.room_for(char, current, world.content) < 1 \
            and char.count(item) > 1:
        raise Refusal(codes.INVENTORY_FULL, f"no room to take off the {current}")


def _equip(world: World, char: Character, op: Op) -> bool:
    item = op.args["item"]
    slot = world.content.items[item]["slot"]
    current = char.equipment[slot]
    inventory.remove(char, item, 1)
    if current is not None:
        inventory.add(char, current, 1, world.content)
        world.emit("unequipped", char=char.id, slot=slot, item=current,
                   self_crafted=current in char.crafted)
    char.equipment[slot] = item
    if slot == "light":
        char.light_ticks = int(world.content.vision.torch_ticks)
    world.emit("equipped", char=char.id, slot=slot, item=item, self_crafted=item in char.crafted)
    op.result = {"slot": slot, "item": item}
    return True


register(Handler("equip", "consumption", dict(_ITEM), _check_equip, _equip,
                 help="wear or wield an item (weapon, armor, outfit, torch)"))


def _check_unequip(world: World, char: Character, args: dict) -> None:
    item = char.equipment[args["slot"]]
    if item is None:
        raise Refusal(codes.SLOT_EMPTY, f"nothing is equipped as {args['slot']}")
    if inventory.room_for(char, item, world.content) < 1:
        raise Refusal(codes.INVENTORY_FULL, f"no room for the {item}")


def _unequip(world: World, char: Character, op: Op) -> bool:
    slot = op.args["slot"]
    item = char.equipment[slot]
    char.equipment[slot] = None
    if slot == "light":
        char.light_ticks = 0  # a torch put away is spent
    else:
        inventory.add(char, item, 1, world.content)
    world.emit("unequipped", char=char.id, slot=slot, item=item, self_crafted=item in char.crafted)
    op.result = {"slot": slot, "item": item}
    return True


register(Handler("unequip", "consumption", {"slot": Arg("slot", help="the slot to empty")}, _check_unequip, _unequip,
                 help=f"take off what is in a slot ({', '.join(SLOTS)}); a torch taken off is spent"))
