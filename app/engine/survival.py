"""Bodies and the clock: hunger, energy, health, knockdown recovery, torches burning down, dusk
and dawn (with their reports), plants regrowing and loot bags rotting away."""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING

from . import clock, creatures
from .model import Character
from .rules.combat import harm, recover, wake

if TYPE_CHECKING:
    from .world import World


def clock_edges(world: World) -> None:
    """Dusk and dawn happen at the start of their tick, before anyone moves."""
    c = world.content
    length = clock.day_ticks(c)
    t = world.tick
    in_day = t % length
    day = t // length + 1
    if t == 0:
        world.emit("day", day=1, phase="day")
    elif in_day == 0:
        _dawn(world, day)
    elif in_day == clock.night_start(c):
        world.emit("day", day=day, phase="dusk")
        for char in world.characters():
            char.night_damage = 0
            char.night_full = True


def _dawn(world: World, day: int) -> None:
    for char in world.characters():
        if char.night_full:
            world.emit("night_report", char=char.id, day=day - 1, damage=char.night_damage)
        full = char.joined <= world.tick - clock.day_ticks(world.content)
        world.emit("day_report", char=char.id, day=day - 1, downs=char.day_downs, full=full)
        char.day_downs = 0
        char.night_full = False
        if char.asleep:
            wake(world, char, "dawn")
    world.emit("day", day=day, phase="dawn")
    creatures.dawn(world)


def live(world: World, char: Character) -> None:
    """One tick of a body's needs."""
    c = world.content.character
    t = world.tick
    if char.down:
        if t >= char.down_until:
            recover(world, char)
        return
    if t and t % c.hunger_interval == 0 and char.hunger > 0:
        char.hunger -= 1
    if char.hunger <= 0 and t % c.starving_interval == 0:
        harm(world, char, 1, cause="hunger")
        if char.down:
            return
    if char.asleep:
        if t % c.sleep_energy_interval == 0:
            char.energy = min(c.max_energy, char.energy + 1)
    elif t and t % c.energy_interval == 0 and char.energy > 0:
        char.energy -= 1
    if char.hunger > c.regen_min_hunger and char.health < char.max_health:
        interval = c.sleep_regen_interval if char.asleep else c.regen_interval
        if t % interval == 0:
            char.health += 1
    if char.equipment.get("light"):
        char.light_ticks -= 1
        if char.light_ticks <= 0:
            item = char.equipment["light"]
            char.equipment["light"] = None
            world.emit("unequipped", char=char.id, slot="light", item=item, self_crafted=False,
                       reason="burnt out")


def world_systems(world: World) -> None:
    t = world.tick
    regrows = world.content.regrow_of
    while world.expiries and world.expiries[0][0] <= t:
        _, area_id, (x, y) = heapq.heappop(world.expiries)
        area = world.areas.get(area_id)
        if area is None:
            continue
        picked = world.tile_name(area, x, y)
        if picked in regrows:
            world.set_tile(area, x, y, regrows[picked])
    for area in world.areas.values():
        if area.loot:
            rotten = [p for p, bag in area.loot.items() if bag.expires <= t]
            for p in rotten:
                del area.loot[p]
                world.loot_changed = True
    creatures.spawn(world)

