"""Dungeons inside the engine: instances opened for an entry, expeditions and their records,
T-coins, a boss's fall (its sigil, the open portal), knockdowns inside (back to the gate) and the
sweeping of instances nobody is in. The actions (`enter`, `leave`, `offer`) are in
rules/dungeons.py, chests in rules/chests.py, the dungeon creatures' turns in creatures.py and
the layouts in dungeon_gen.py. Every number is in content/dungeons.toml.

The state is typed (model.py): an instance's `Area.instance`, a character's `expedition`, a
creature's `coins`, and the world's `dungeons` ledger (the expedition counter, who recovers at a
gate, instances waiting to be swept), created by the first expedition."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import inventory
from .dungeon_gen import Layout, generate_instance, generate_sanctum
from .model import (
    SURFACE,
    Area,
    Character,
    Chest,
    Creature,
    DungeonLedger,
    Entity,
    Expedition,
    Instance,
    Pos,
)

if TYPE_CHECKING:
    from .content import Content
    from .world import World

INSIDE = ("dungeon", "sanctum")


# ---------------------------------------------------------------------------- content
def tiers(content: Content) -> dict[int, dict[str, Any]]:
    return {int(k): v for k, v in content.raw["dungeons"]["tiers"].items()}


def sanctum_spec(content: Content) -> dict[str, Any]:
    return content.raw["dungeons"]["sanctum"]


def rules(content: Content) -> dict[str, Any]:
    return content.raw["dungeons"]["rules"]


def is_sanctum(content: Content, tier: int) -> bool:
    return tier == int(sanctum_spec(content)["tier"])


# ---------------------------------------------------------------------------- state
def ledger(world: World) -> DungeonLedger:
    """Only effects call this (it creates the ledger); checks must not change anything."""
    if world.dungeons is None:
        world.dungeons = DungeonLedger()
    return world.dungeons


def characters_in(world: World, area_id: int) -> list[Character]:
    area = world.areas.get(area_id)
    ids = sorted(area.instance.members) if area is not None and area.instance else []
    return [world.entities[i] for i in ids if i in world.entities]


# ---------------------------------------------------------------------------- instances
def open_instance(world: World, char: Character, tier: int) -> Area:
    """A new instance for `char`'s next entry of `tier`, with its creatures in place."""
    count = char.entries.get(tier, 0)
    if is_sanctum(world.content, tier):
        layout = generate_sanctum(world.content, world.seed, char.id, count)
        spec, kind = sanctum_spec(world.content), "sanctum"
    else:
        layout = generate_instance(world.content, world.seed, char.id, tier, count)
        spec, kind = tiers(world.content)[tier], "dungeon"
    dark = bool(spec.get("dark"))
    instance = Instance(
        name=spec["name"], entrance=layout.entrance, portal=layout.portal,
        chests={p: Chest(coins=c["coins"], items=dict(c["items"])) for p, c in layout.chests.items()},
        owner=char.id, entry=count, dark_radius=int(spec["dark_radius"]) if dark else None,
    )
    area = world.new_area(kind, layout.terrain, dark=dark, tier=tier, instance=instance)
    _populate(world, area, layout, spec, tier)
    return area


def _populate(world: World, area: Area, layout: Layout, spec: dict, tier: int) -> None:
    for pos, coins in zip(layout.enemies, layout.enemy_coins, strict=True):
        world.add_creature(spec["enemy"], area.id, pos, tier=tier, coins=coins)
    boss = world.add_creature(spec["boss"], area.id, layout.boss, boss=True, tier=tier,
                              coins=layout.boss_coins)
    area.instance.boss = boss.id


def start_expedition(world: World, char: Character, area: Area, party: list[int]) -> Expedition:
    """`char` (one of `party`) walks in at the instance's entrance."""
    state = ledger(world)
    char.entries[area.tier] = char.entries.get(area.tier, 0) + 1
    char.surface_pos = (char.x, char.y)
    pos = world.free_tile_near(area.id, area.instance.entrance)
    world.move_entity(char, pos[0], pos[1], area.id)
    state.expeditions += 1
    char.expedition = Expedition(number=state.expeditions, tier=area.tier, instance=area.id,
                                 start=world.tick, solo=len(party) == 1, party=list(party))
    world.emit("dungeon_entered", char=char.id, tier=area.tier, instance=area.id,
               party=list(party), solo=len(party) == 1, expedition=state.expeditions)
    return char.expedition


def end_expedition(world: World, char: Character, alive: bool) -> dict[str, Any]:
    """Close the character's expedition record and publish it as `dungeon_left`."""
    area = world.area_of(char)
    exp = char.expedition or Expedition(number=0, tier=area.tier, instance=area.id,
                                        start=world.tick, solo=True, party=[char.id])
    record = {
        "tier": area.tier, "instance": area.id, "expedition": exp.number,
        "cleared": bool(area.instance and area.instance.cleared), "alive": alive,
        "damage": exp.damage, "supplies": exp.supplies, "coins": exp.coins, "kills": exp.kills,
        "start": exp.start, "end": world.tick, "solo": exp.solo, "party": list(exp.party),
    }
    char.expedition = None
    if area.instance is not None and char.id in area.instance.members:
        area.instance.members.remove(char.id)
    world.emit("dungeon_left", char=char.id, **record)
    ledger(world).sweep.append(area.id)
    return record


def to_surface(world: World, char: Character) -> Pos:
    pos = world.free_tile_near(SURFACE, char.surface_pos)
    world.move_entity(char, pos[0], pos[1], SURFACE)
    char.surface_pos = pos
    return pos


# ---------------------------------------------------------------------------- coins and bosses
def award(world: World, char: Character, amount: int, source: str) -> None:
    """T-coins are earned only here: chests and defeated dungeon enemies."""
    char.coins += amount
    if char.expedition is not None:
        char.expedition.coins += amount
    world.emit("coins", char=char.id, amount=amount, total=char.coins, source=source)


def on_defeat(world: World, creature: Creature, killer: Entity | None) -> None:
    """A creature fell (combat.defeat): its coins to the killer; a boss opens the way out."""
    if creature.coins and isinstance(killer, Character):
        award(world, killer, creature.coins, "boss" if creature.boss else "enemy")
    if creature.boss:
        _boss_falls(world, creature, killer)


def _boss_falls(world: World, boss: Creature, killer: Entity | None) -> None:
    area = world.areas[boss.area]
    if area.kind not in INSIDE or area.instance is None or area.instance.boss != boss.id:
        return
    area.instance.cleared = True
    px, py = area.instance.portal
    world.set_tile(area, px, py, "portal_open")
    sanctum = sanctum_spec(world.content)
    final = is_sanctum(world.content, area.tier)
    sigil = None if final else tiers(world.content)[area.tier]["sigil"]
    if sigil:
        left = (
            inventory.add(killer, sigil, 1, world.content) if isinstance(killer, Character) else 1
        )
        if left:
            world.drop_loot(area, (boss.x, boss.y), {sigil: 1}, owner=getattr(killer, "id", 0))
    if final:  # his shades fade with him
        for ent in list(world.entities.values()):
            if ent.area == area.id and ent.kind == sanctum["pattern"]["summon"]:
                world.remove_entity(ent)
    for ent in characters_in(world, area.id):
        world.emit("boss_defeated", char=ent.id, tier=area.tier, boss=boss.kind,
                   instance=area.id, expedition=ent.expedition.number if ent.expedition else None,
                   sigil=sigil)
        if final and "exploration" not in ent.tasks:
            ent.tasks["exploration"] = world.tick
            world.emit("task_complete", char=ent.id, task="exploration")


# ---------------------------------------------------------------------------- knockdowns
def on_down(world: World, char: Character) -> None:
    """A knockdown inside fails the expedition (combat.knock_down): the body (and its loot bag)
    goes back to the gate, where the character wakes."""
    area = world.area_of(char)
    if area.kind not in INSIDE:
        return
    bag = area.loot.pop((char.x, char.y), None)
    end_expedition(world, char, alive=False)
    pos = to_surface(world, char)
    if bag is not None:
        world.drop_loot(world.areas[SURFACE], pos, bag.items, owner=bag.owner)
    ledger(world).recover_at[char.id] = pos


def recover_spot(world: World, char: Character) -> tuple[Pos, str] | None:
    """Where a character knocked down inside wakes (combat.recover): at its gate; None for the
    others."""
    state = world.dungeons
    if state is None or state.recover_at.pop(char.id, None) is None:
        return None
    if char.area == SURFACE:
        return (char.x, char.y), "gate"
    return world.free_tile_near(SURFACE, char.surface_pos), "gate"


# ---------------------------------------------------------------------------- sweeping
def sweep(world: World) -> None:
    """Once a tick: instances nobody is in any more are removed with their creatures, bags and
    memories."""
    state = world.dungeons
    if state is None or not state.sweep:
        return
    pending, state.sweep = state.sweep, []
    for area_id in sorted(set(pending)):
        if area_id not in world.areas or characters_in(world, area_id):
            continue
        for ent in [e for e in world.entities.values() if e.area == area_id]:
            world.remove_entity(ent)
        if world.areas[area_id].loot:
            world.loot_changed = True
        del world.areas[area_id]
        for mem in world.memory.values():
            mem.areas.pop(area_id, None)
            mem.forget_view()
            for eid in [k for k, e in mem.entities.items() if e["area"] == area_id]:
                del mem.entities[eid]
