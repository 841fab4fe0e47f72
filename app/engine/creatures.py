"""Creatures: sheep graze, boars defend themselves, shades hunt at night; in dungeons enemies
wake near the characters inside, bosses guard the portal and the Shadow King follows his
pattern. Each acts on its own timer in id order; chasers follow what they can see and give up
once it is out of sight."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import tcod.los

from . import clock, dungeons, homes
from .model import SURFACE, Area, Character, Creature, Entity
from .rules.combat import harm

if TYPE_CHECKING:
    from .content import Content
    from .world import World

_STEPS = ((0, -1), (1, 0), (0, 1), (-1, 0))


def populate(world: World) -> None:
    """The map's starting animals, on grass away from the plaza."""
    for kind in ("sheep", "boar"):
        for _ in range(int(world.content.map.get(kind, 0))):
            pos = _random_open_tile(world, world.areas[SURFACE], "grass")
            if pos is not None:
                world.add_creature(kind, SURFACE, pos)


def _random_open_tile(world: World, area: Area, terrain: str, tries: int = 40):
    code = world.content.tile_code[terrain]
    px, py = world.landmarks.plaza
    for _ in range(tries):
        x = world.rng.randrange(area.width)
        y = world.rng.randrange(area.height)
        if area.terrain[y, x] == code and world.walkable(area, x, y) and \
                max(abs(x - px), abs(y - py)) > 10:
            return (x, y)
    return None


def sees(world: World, area: Area, a: Entity, b: Entity, radius: int) -> bool:
    """Line of sight within a Chebyshev radius, through tiles that let sight through."""
    if a.area != b.area or max(abs(a.x - b.x), abs(a.y - b.y)) > radius:
        return False
    see = world.content.see_lut
    for x, y in tcod.los.bresenham((a.x, a.y), (b.x, b.y)).tolist()[1:-1]:
        if not see[area.terrain[y, x]]:
            return False
        s = area.structures.get((x, y))
        if s is not None and homes.opaque(s, world.content):
            return False
    return True


def act(world: World, cr: Creature) -> None:
    if world.tick < cr.next_move:
        return
    spec = world.content.creatures[cr.kind]
    cr.next_move = world.tick + int(spec["move_every"])
    area = world.areas[cr.area]
    if area.kind in dungeons.INSIDE and _dungeon_turn(world, area, cr):
        return
    # A creature that neither chases nor hunts has no target to look for (most of them, most
    # of the time: grazing sheep and boars)
    target = _current_target(world, area, cr, spec) \
        if cr.target is not None or cr.hostile else None
    if target is None:
        if world.rng.random() < float(spec.get("wander", 0.5)):
            _step(world, area, cr, world.rng.choice(_STEPS))
        return
    if spec.get("damage", 0) > 0 and max(abs(cr.x - target.x), abs(cr.y - target.y)) <= 1:
        if world.tick >= cr.next_attack:
            cr.next_attack = world.tick + int(spec.get("attack_cooldown", 2))
            world.emit("attacked", char=None, attacker=cr.id, attacker_kind=cr.kind,
                       target=target.id, target_kind=target.kind, damage=int(spec["damage"]))
            harm(world, target, int(spec["damage"]), source=cr)
        return
    if spec.get("damage", 0) > 0:
        chase(world, area, cr, target.x, target.y)
    else:  # harmless animals flee from what hurt them
        chase(world, area, cr, 2 * cr.x - target.x, 2 * cr.y - target.y)


def _current_target(world: World, area: Area, cr: Creature, spec: dict) -> Entity | None:
    sight = int(spec.get("sight", 0))
    if cr.target is not None:
        target = world.entities.get(cr.target)
        if target is None or getattr(target, "down", False) or target.area != cr.area:
            cr.target = None
            return None
        if sees(world, area, cr, target, sight or 6):
            cr.lost_sight = 0
        else:
            cr.lost_sight += int(spec["move_every"])
            if cr.lost_sight > world.content.creature_rules.give_up_ticks:
                cr.target, cr.lost_sight = None, 0
                return None
        return target
    if not (cr.hostile and sight):
        return None
    best = None
    night_only = bool(spec.get("night_only"))  # shades: they spare a character's grace nights
    for ent in world.entities.values():
        if isinstance(ent, Character) and ent.area == cr.area and not ent.down \
                and not (ent.grace_nights and night_only and spared(world, ent)):
            d = max(abs(ent.x - cr.x), abs(ent.y - cr.y))
            if d <= sight and (best is None or d < best[0]) and sees(world, area, cr, ent, sight):
                best = (d, ent)
    if best is not None:
        cr.target = best[1].id
        return best[1]
    return None


def chase(world: World, area: Area, cr: Creature, tx: int, ty: int) -> None:
    """A greedy step that shortens the distance; sideways when the straight way is blocked."""
    options = sorted(_STEPS, key=lambda d: (abs(cr.x + d[0] - tx) + abs(cr.y + d[1] - ty), d))
    for d in options[:3]:
        if _step(world, area, cr, d):
            return


def _step(world: World, area: Area, cr: Creature, d: tuple[int, int]) -> bool:
    x, y = cr.x + d[0], cr.y + d[1]
    if world.walkable(area, x, y, cr) and _allowed(world, area, cr, x, y):
        world.move_entity(cr, x, y)
        return True
    return False


_GRAZERS = ("sheep", "boar")


def _allowed(world: World, area: Area, cr: Creature, x: int, y: int) -> bool:
    # Animals keep to open country: no wandering onto the plaza or into doorways.
    s = area.structures.get((x, y))
    if s is not None and s.kind == "door":
        return False
    if cr.kind in _GRAZERS:
        return area.terrain.item(y, x) != world.content.tile_code["plaza"]
    return True


def spawn(world: World) -> None:
    rules = world.content.creature_rules
    t = world.tick
    if t and t % rules.respawn_interval == 0:
        counts = {"sheep": 0, "boar": 0}
        for ent in world.entities.values():
            if ent.kind in counts and ent.area == SURFACE:
                counts[ent.kind] += 1
        for kind in ("sheep", "boar"):
            if counts[kind] < int(world.content.map.get(kind, 0)):
                pos = _random_open_tile(world, world.areas[SURFACE], "grass", tries=10)
                if pos is not None:
                    world.add_creature(kind, SURFACE, pos)
    if clock.is_night(t, world.content) and t % rules.shade_spawn_interval == 0:
        for char in world.characters():
            if char.area != SURFACE or char.down or homes.inside_home(world, char):
                continue
            if char.grace_nights and spared(world, char):
                continue
            near = sum(1 for e in world.entities.values()
                       if e.kind == "shade" and e.area == SURFACE
                       and max(abs(e.x - char.x), abs(e.y - char.y)) <= rules.shade_near_radius)
            if near < rules.shade_max_near:
                _spawn_shade(world, char)


def spared(world: World, char: Character) -> bool:
    """A character in its grace nights: no shade comes for it, and none hunts it."""
    return clock.grace_nights_left(char.joined, char.grace_nights, world.tick,
                                   world.content) > 0


def _spawn_shade(world: World, char: Character) -> None:
    rules = world.content.creature_rules
    area = world.areas[SURFACE]
    for _ in range(8):
        r = world.rng.randint(rules.shade_spawn_min, rules.shade_spawn_max)
        angle = world.rng.random() * 2 * np.pi
        x = int(round(char.x + r * np.cos(angle)))
        y = int(round(char.y + r * np.sin(angle)))
        if world.walkable(area, x, y) and not homes.inside_home(world, char) and \
                world.tile_name(area, x, y) != "plaza":
            world.add_creature("shade", SURFACE, (x, y))
            return


def dawn(world: World) -> None:
    """Shades fade at dawn."""
    for ent in list(world.entities.values()):
        if isinstance(ent, Creature) and world.content.creatures[ent.kind].get("night_only"):
            world.remove_entity(ent)


# ---------------------------------------------------------------------------- in dungeons
_NUMBERS: dict[str, tuple[str, int]] = {}


def _turn_numbers(content: Content) -> tuple[str, int]:
    """(the Sanctum boss's kind, doze ticks), read once per content (by its digest): this
    runs on every dungeon creature's turn."""
    numbers = _NUMBERS.get(content.hash)
    if numbers is None:
        numbers = (dungeons.sanctum_spec(content)["boss"],
                   int(dungeons.rules(content)["doze_ticks"]))
        _NUMBERS[content.hash] = numbers
    return numbers


def _dungeon_turn(world: World, area: Area, cr: Creature) -> bool:
    """Dungeon creatures look only at the characters inside their own instance (not at every
    entity in the world); with none near they doze for a few ticks, which changes nothing
    because nobody can cross the extra distance in that time. The Shadow King follows his
    pattern. True when the turn is spent."""
    king, doze = _turn_numbers(world.content)
    if cr.kind == king:
        return _king_turn(world, cr)
    if cr.target is not None:
        return False
    sight = int(world.content.creatures[cr.kind].get("sight", 0))
    near = False
    best = None
    for cid in area.instance.members if area.instance else ():
        char = world.entities.get(cid)
        if char is None or char.down:
            continue
        d = max(abs(char.x - cr.x), abs(char.y - cr.y))
        near = near or d <= sight + doze
        if d <= sight and (best is None or (d, cid) < best[:2]) and \
                sees(world, area, cr, char, sight):
            best = (d, cid, char)
    if best is not None:
        cr.target = best[2].id  # the common logic chases and strikes from here
        return False
    if not near:
        cr.next_move = world.tick + doze
    return True


def _king_turn(world: World, cr: Creature) -> bool:
    """The Shadow King: below half health he enters phase 2, strikes faster and calls shades.
    Returns True when his turn is spent (a strike); otherwise the common chase logic runs."""
    pattern = dungeons.sanctum_spec(world.content)["pattern"]
    if cr.phase == 1 and cr.health <= cr.max_health * float(pattern["phase2_at"]):
        cr.phase = 2
        world.entity_changed(cr)
        cr.next_summon = world.tick
        world.emit("boss_phase", char=None, boss=cr.kind, entity=cr.id, phase=2, instance=cr.area)
    if cr.phase == 2 and world.tick >= (cr.next_summon or 0):
        cr.next_summon = world.tick + int(pattern["summon_every"])
        _summon(world, cr, pattern)
    target = world.entities.get(cr.target) if cr.target is not None else None
    if (
        target is None
        or target.area != cr.area
        or getattr(target, "down", False)
        or max(abs(cr.x - target.x), abs(cr.y - target.y)) > 1
    ):
        return False
    if world.tick < cr.next_attack:
        return True  # he holds his ground next to his foe
    key = "phase2_attack_cooldown" if cr.phase == 2 else "attack_cooldown"
    cr.next_attack = world.tick + int(pattern[key])
    damage = int(world.content.creatures[cr.kind]["damage"])
    world.emit("attacked", char=None, attacker=cr.id, attacker_kind=cr.kind, target=target.id,
               target_kind=target.kind, damage=damage)
    harm(world, target, damage, source=cr)
    return True


def _summon(world: World, king: Creature, pattern: dict) -> None:
    kind = pattern["summon"]
    alive = sum(1 for e in world.entities.values() if e.area == king.area and e.kind == kind)
    if alive >= int(pattern["summon_max"]):
        return
    pos = world.find_free_tile(king.area, (king.x, king.y), radius=3)
    if pos is None:  # packed round him: no summon this time
        return
    shade = world.add_creature(kind, king.area, pos, summoned_by=king.id)
    shade.target = king.target
