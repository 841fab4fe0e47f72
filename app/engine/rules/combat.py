"""attack, and what harm does: armor, damage, waking, knockdowns, defeats and drops."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import codes, dungeons, handlers, homes
from ..errors import Refusal
from ..handlers import Arg, Handler, register
from ..model import SURFACE, Character, Creature, Entity, Op
from .common import entity_target, in_dungeon

if TYPE_CHECKING:
    from ..world import World


def weapon_damage(world: World, char: Character) -> int:
    weapon = char.equipment.get("weapon")
    if weapon is None:
        return int(world.content.character.fist_damage)
    return int(world.content.items[weapon]["damage"])


def armor_reduction(world: World, char: Character) -> float:
    armor = char.equipment.get("armor")
    return float(world.content.items[armor]["reduction"]) if armor else 0.0


def _check(world: World, char: Character, args: dict) -> None:
    target = entity_target(world, char, args["target"], "attack")
    if isinstance(target, Character) and not world.content.character.pvp:
        raise Refusal(codes.PEACEFUL, "characters cannot attack each other in this world")
    if getattr(target, "down", False):
        raise Refusal(codes.NO_TARGET, f"{target.kind} {target.id} is already down")
    if char.next_attack > world.tick:
        raise Refusal(codes.COOLDOWN, f"{char.name} can attack again at tick {char.next_attack}")


def _attack(world: World, char: Character, op: Op) -> bool:
    target = world.entities[op.args["target"]]
    amount = weapon_damage(world, char)
    char.next_attack = world.tick + int(world.content.character.attack_cooldown)
    world.emit("attacked", char=char.id, target=target.id, target_kind=target.kind, damage=amount)
    dealt = harm(world, target, amount, source=char)
    op.result = {"target": target.id, "damage": dealt, "health": max(0, target.health)}
    return True


register(Handler("attack", "combat", {"target": Arg("int", low=0, help="id of an adjacent creature")}, _check, _attack,
                 help="strike an adjacent creature (weapon damage; 2-tick cooldown)"))


def harm(world: World, victim: Entity, amount: int, source: Entity | None = None,
         cause: str | None = None) -> int:
    """Deal damage; armor cuts what characters take. Returns the damage dealt."""
    if amount <= 0 or victim.id not in world.entities:
        return 0
    if isinstance(victim, Character):
        if victim.down:
            return 0
        amount = int(round(amount * (1 - armor_reduction(world, victim))))
        amount = max(amount, 1)
    victim.health -= amount
    world.entity_changed(victim)
    source_kind = cause or (source.kind if source is not None else "world")
    dungeon = in_dungeon(world, victim)
    if isinstance(victim, Character):
        victim.night_damage += amount
        if victim.expedition is not None:
            victim.expedition.damage += amount
        world.emit("damaged", char=victim.id, amount=amount, source=source_kind,
                   source_id=source.id if source else None, health=max(0, victim.health),
                   in_dungeon=dungeon)
        if victim.asleep:
            wake(world, victim, "damage")
        if victim.health <= 0:
            knock_down(world, victim, cause=source_kind)
    else:
        world.emit("damaged", entity=victim.id, entity_kind=victim.kind, amount=amount,
                   source=source_kind, source_id=source.id if source else None,
                   health=max(0, victim.health), in_dungeon=dungeon,
                   char=source.id if isinstance(source, Character) else None)
        if isinstance(victim, Creature):
            if victim.target is None and source is not None and victim.id in world.entities:
                victim.target = source.id  # it fights back or flees from what hurt it
            if victim.health <= 0:
                defeat(world, victim, source)
    return amount


def defeat(world: World, creature: Creature, killer: Entity | None) -> None:
    spec = world.content.creatures[creature.kind]
    area = world.areas[creature.area]
    world.remove_entity(creature)
    drops = {k: int(v) for k, v in spec.get("drops", {}).items()}
    if drops:
        world.drop_loot(area, (creature.x, creature.y), drops,
                        owner=killer.id if killer else 0)
    hostile = bool(spec.get("hostile") or spec.get("defends") or creature.boss)
    killer_id = killer.id if isinstance(killer, Character) else None
    world.emit("killed", char=killer_id, target=creature.id, target_kind=creature.kind,
               hostile=hostile, boss=creature.boss, in_dungeon=area.kind != "surface",
               x=creature.x, y=creature.y, area=area.id)
    if isinstance(killer, Character) and killer.expedition is not None:
        killer.expedition.kills += 1
    dungeons.on_defeat(world, creature, killer)


def knock_down(world: World, char: Character, cause: str) -> None:
    """Health 0: half of each stack drops in a loot bag; the character wakes later at its bed."""
    handlers.cancel(world, char, "knocked down")
    char.health = 0
    char.down = True
    char.asleep = False
    char.down_until = world.tick + int(world.content.knockdown.down_ticks)
    char.day_downs += 1
    dropped: dict[str, int] = {}
    fraction = float(world.content.knockdown.drop_fraction)
    for stack in char.inventory:
        n = int(stack[1] * fraction)
        if n:
            stack[1] -= n
            dropped[stack[0]] = dropped.get(stack[0], 0) + n
    char.inventory[:] = [s for s in char.inventory if s[1] > 0]
    area = world.area_of(char)
    world.drop_loot(area, (char.x, char.y), dropped, owner=char.id)
    dungeon = area.kind != "surface"
    world.emit("down", char=char.id, x=char.x, y=char.y, area=area.id, in_dungeon=dungeon,
               cause=cause, dropped=dropped)
    dungeons.on_down(world, char)


def recover(world: World, char: Character) -> None:
    """After the down time: health back to the wake value, at a usable bed or the plaza."""
    char.down = False
    char.health = int(world.content.knockdown.wake_health)
    spot = dungeons.recover_spot(world, char)  # a knockdown inside a dungeon wakes at its gate
    bed = homes.reachable_bed(world, char) if char.area == SURFACE and spot is None else None
    if spot is not None:
        pos, at = spot
    elif bed is not None and (near_bed := world.find_free_tile(SURFACE, bed, radius=3)):
        pos, at = near_bed, "bed"
    else:  # no bed, or a crowd round it: the plaza's nearest free tile
        pos, at = world.free_tile_near(SURFACE, world.landmarks.plaza), "plaza"
    world.move_entity(char, pos[0], pos[1], SURFACE)
    char.surface_pos = pos
    world.emit("recovered", char=char.id, x=pos[0], y=pos[1], at=at)


def wake(world: World, char: Character, reason: str) -> None:
    if not char.asleep:
        return
    char.asleep = False
    if char.op is not None and char.op.type == "sleep":
        char.op.result = {"reason": reason}
        world.emit("op_done", char=char.id, op=char.op.id, type="sleep", result={"reason": reason})
        char.op = None
    world.emit("woke", char=char.id, reason=reason)
