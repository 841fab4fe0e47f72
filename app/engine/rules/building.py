"""place and dismantle structures; install locks on doors, lock and unlock them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import codes, homes, inventory
from ..errors import Refusal
from ..handlers import Arg, Handler, register
from ..model import Character, Op, Structure
from .common import require_adjacent

if TYPE_CHECKING:
    from ..world import World


def _spec(world: World, item: str) -> dict:
    spec = world.content.structures.get(item)
    if spec is None:
        code = codes.CANNOT_PLACE_HERE if item in world.content.items else codes.UNKNOWN_ITEM
        raise Refusal(code, f"{item} is not something that can be placed")
    return spec


def _check_place(world: World, char: Character, args: dict) -> None:
    item, x, y = args["item"], args["x"], args["y"]
    spec = _spec(world, item)
    if "cost" in spec:
        gaps = [f"{n} {m} (have {char.count(m)})" for m, n in spec["cost"].items()
                if char.count(m) < n]
        if gaps:
            raise Refusal(codes.MISSING_MATERIALS, f"placing a {item} needs {' and '.join(gaps)}")
    elif not char.count(item):
        raise Refusal(codes.NOT_IN_INVENTORY, f"{char.name} has no {item} to place")
    require_adjacent(world, char, x, y, "the tile")
    area = world.area_of(char)
    if not world.content.build_lut[area.terrain[y, x]]:
        raise Refusal(codes.CANNOT_PLACE_HERE, f"cannot build on {world.tile_name(area, x, y)}"
                      f" at ({x}, {y})")
    if (x, y) in area.occupant or (x, y) in area.loot:
        raise Refusal(codes.CANNOT_PLACE_HERE, f"({x}, {y}) is not empty")
    if item == "floor":
        if (x, y) in area.floor or (x, y) in area.structures:
            raise Refusal(codes.CANNOT_PLACE_HERE, f"({x}, {y}) already has something on it")
        return
    if (x, y) in area.structures:
        raise Refusal(codes.CANNOT_PLACE_HERE, f"({x}, {y}) already has a"
                      f" {area.structures[(x, y)].kind}")
    owner = area.floor.get((x, y))
    if owner is not None and owner != char.id:
        raise Refusal(codes.NOT_OWNER, f"the floor at ({x}, {y}) belongs to someone else")


def _place(world: World, char: Character, op: Op) -> bool:
    item, x, y = op.args["item"], op.args["x"], op.args["y"]
    spec = _spec(world, item)
    area = world.area_of(char)
    if "cost" in spec:
        for m, n in spec["cost"].items():
            inventory.remove(char, m, n)
    else:
        inventory.remove(char, item, 1)
    if item == "floor":
        area.floor[(x, y)] = char.id
    else:
        area.structures[(x, y)] = Structure(kind=item, owner=char.id)
    area.version += 1
    world.structures_changed = True
    world.emit("placed", char=char.id, item=item, x=x, y=y, area=area.id)
    homes.structures_changed(world, area, char.id)
    op.result = {"item": item, "x": x, "y": y}
    return True


register(Handler("place", "building",
                 {"item": Arg("str", help="the structure to place: an item you carry (wall, door,"
                              " floor, bed) or a station built from materials"),
                  "x": Arg("int", low=0, high=4095, help="x of an adjacent empty land tile"),
                  "y": Arg("int", low=0, high=4095, help="y of an adjacent empty land tile")},
                 _check_place, _place,
                 help="place a structure (wall, door, floor, bed, or a station from materials) on an adjacent empty land tile"))


def _owned_at(world: World, char: Character, x: int, y: int) -> tuple[str, Structure | None]:
    require_adjacent(world, char, x, y, "the structure")
    area = world.area_of(char)
    s = area.structures.get((x, y))
    if s is not None:
        if s.owner != char.id:
            raise Refusal(codes.NOT_OWNER, f"the {s.kind} at ({x}, {y}) belongs to someone else")
        return s.kind, s
    if area.floor.get((x, y)) == char.id:
        return "floor", None
    if (x, y) in area.floor:
        raise Refusal(codes.NOT_OWNER, f"the floor at ({x}, {y}) belongs to someone else")
    raise Refusal(codes.NO_TARGET, f"there is no structure at ({x}, {y})")


def _check_dismantle(world: World, char: Character, args: dict) -> None:
    kind, s = _owned_at(world, char, args["x"], args["y"])
    spec = world.content.structures[kind]
    back = dict(spec.get("cost", {kind: 1}))
    if s is not None and s.has_lock:
        back["lock"] = back.get("lock", 0) + 1
    for m, n in back.items():
        if inventory.room_for(char, m, world.content) < n:
            raise Refusal(codes.INVENTORY_FULL, f"{char.name} has no room for {n} {m}")


def _dismantle(world: World, char: Character, op: Op) -> bool:
    x, y = op.args["x"], op.args["y"]
    kind, s = _owned_at(world, char, x, y)
    area = world.area_of(char)
    spec = world.content.structures[kind]
    back = dict(spec.get("cost", {kind: 1}))
    if s is not None:
        if s.has_lock:
            back["lock"] = back.get("lock", 0) + 1
        del area.structures[(x, y)]
    else:
        del area.floor[(x, y)]
    for m, n in back.items():
        inventory.add(char, m, n, world.content)
    area.version += 1
    world.structures_changed = True
    world.emit("dismantled", char=char.id, item=kind, x=x, y=y, area=area.id)
    homes.structures_changed(world, area, char.id)
    op.result = {"item": kind, "returned": back}
    return True


register(Handler("dismantle", "building",
                 {"x": Arg("int", low=0, high=4095, help="x of an adjacent structure of your own"),
                  "y": Arg("int", low=0, high=4095, help="y of an adjacent structure of your own")},
                 _check_dismantle, _dismantle,
                 help="take down an adjacent structure of your own (materials come back)"))


def _own_door(world: World, char: Character, args: dict) -> Structure:
    kind, s = _owned_at(world, char, args["x"], args["y"])
    if s is None or kind != "door":
        raise Refusal(codes.NOT_A_DOOR, f"the {kind} at ({args['x']}, {args['y']}) is not a door")
    return s


def _check_install(world: World, char: Character, args: dict) -> None:
    door = _own_door(world, char, args)
    if door.has_lock:
        raise Refusal(codes.BAD_ARGUMENT, "that door already has a lock")
    if not char.count("lock"):
        raise Refusal(codes.NOT_IN_INVENTORY, f"{char.name} has no lock to install")


def _install(world: World, char: Character, op: Op) -> bool:
    door = _own_door(world, char, op.args)
    inventory.remove(char, "lock", 1)
    door.has_lock = True
    world.structures_changed = True
    return True


def _check_lock(world: World, char: Character, args: dict) -> None:
    door = _own_door(world, char, args)
    if not door.has_lock:
        raise Refusal(codes.NEEDS_LOCK, "that door has no lock; install_lock first")


def _set_lock(locked: bool):
    def effect(world: World, char: Character, op: Op) -> bool:
        door = _own_door(world, char, op.args)
        door.locked = locked
        area = world.area_of(char)
        area.version += 1
        world.structures_changed = True
        homes.structures_changed(world, area, char.id)
        op.result = {"locked": locked}
        return True
    return effect


_XY = {"x": Arg("int", low=0, high=4095, help="x of an adjacent door of your own"),
       "y": Arg("int", low=0, high=4095, help="y of an adjacent door of your own")}
register(Handler("install_lock", "building", dict(_XY), _check_install, _install,
                 help="fit a lock (item) to an adjacent door of your own"))
register(Handler("lock", "building", dict(_XY), _check_lock, _set_lock(True),
                 help="lock an adjacent door of your own: it then passes only you"))
register(Handler("unlock", "building", dict(_XY), _check_lock, _set_lock(False),
                 help="unlock an adjacent door of your own"))
