"""Dungeon state is part of the engine: typed records (model.py), reached through fixed calls
(no hooks, no handler replaced by another rule module), all of it in the state hash and in
snapshots; the state hash of a dungeon run is the one the engine gave when that state was
untyped dicts, so earlier runs and replays keep their hashes."""

from __future__ import annotations

import dataclasses
import random

import pytest
from asiworld.engine import HANDLERS, World, hashing, load_content
from asiworld.engine import world as world_module
from asiworld.engine.model import SURFACE, Chest, Creature, DungeonLedger, Expedition, Instance
from asiworld.engine.rules.combat import harm

CONTENT = load_content()
# dungeon_run's hashes from the engine before dungeon state was typed (commit 8f260c1).
HASHES = ["a72d82414b598778a7d22663fd4d7b62", "bc51207ce37fccea8445c5ef61352975",
          "e15d4e9bedba6686dd704b31ef8bf91e", "b10a8d92d5b3a56907827b12da3d30b4",
          "8a8195e82a2862b01d187c111b39b951"]


def tiles(world, area_id, name):
    area = world.areas[area_id]
    code = CONTENT.tile_code[name]
    return [(int(x), int(y)) for y, x in zip(*(area.terrain == code).nonzero(), strict=True)]


def foes(world, area_id, kind=None):
    return sorted((e for e in world.entities.values() if isinstance(e, Creature)
                   and e.area == area_id and (kind is None or e.kind == kind)), key=lambda e: e.id)


def named(world, name):
    return next(c for c in world.characters() if c.name == name)


def beside(world, char, pos):
    spot = world.free_tile_near(char.area, (pos[0] + 1, pos[1]), radius=3)
    world.move_entity(char, spot[0], spot[1], char.area)


def dungeon_run():
    """Four characters: ada in a dark tier-3 instance opens a chest and fells a knight, bob
    faces the Shadow King in phase two, cy is knocked down in tier 1 and wakes at the gate, dan
    enters tier 2 and retreats; the state hash at five moments."""
    world = World.create(seed=7, content=CONTENT, size=64)
    ada, bob, cy, dan = (world.entities[world.add_character(n)] for n in ("ada", "bob", "cy", "dan"))
    ada.inventory.append(["inner_sigil", 1])
    dan.inventory.append(["outer_sigil", 1])
    ada.equipment["weapon"] = "iron_sword"
    bob.sanctum_open = True
    ada.max_health = ada.health = bob.max_health = bob.health = 5000
    cy.inventory.append(["cooked_meat", 2])
    for char, tier in ((ada, 3), (cy, 1), (dan, 2)):
        world.move_entity(char, *world.landmarks.gates[tier - 1], SURFACE)
        assert world.submit(char.id, {"type": "enter"}).ok
    ax, ay = world.landmarks.altar
    world.move_entity(bob, *world.free_tile_near(SURFACE, (ax + 1, ay)), SURFACE)
    assert world.submit(bob.id, {"type": "enter"}).ok
    world.step()
    hashes = [world.state_hash()]
    chest = tiles(world, ada.area, "chest")[0]
    beside(world, ada, chest)
    assert world.submit(ada.id, {"type": "gather", "x": chest[0], "y": chest[1]}).ok
    knight = foes(world, ada.area, "tomb_knight")[0]
    harm(world, knight, knight.health, source=ada)
    king = foes(world, bob.area, "shadow_king")[0]
    king.target = bob.id
    harm(world, king, king.max_health // 2 + 5, source=bob)
    assert world.submit(cy.id, {"type": "eat", "item": "cooked_meat"}).ok
    for _ in range(5):
        world.step()
    hashes.append(world.state_hash())
    guard = foes(world, cy.area, "guard")[0]
    harm(world, cy, 10_000, source=guard)
    world.move_entity(dan, *tiles(world, dan.area, "entrance")[0], dan.area)
    assert world.submit(dan.id, {"type": "leave"}).ok
    world.step()
    hashes.append(world.state_hash())
    rng = random.Random(3)
    for _ in range(80):
        for char in (ada, dan):
            if char.op is None and rng.random() < 0.5:
                world.submit(char.id, {"type": "move", "dir": rng.choice("nsew")})
        world.step()
    hashes.append(world.state_hash())
    assert not cy.down and cy.area == SURFACE and bob.area != SURFACE
    assert king.phase == 2 and foes(world, bob.area, "shadow_shade")
    for _ in range(40):
        world.step()
    hashes.append(world.state_hash())
    return world, hashes


@pytest.fixture(scope="module")
def run():
    return dungeon_run()


def test_a_dungeon_run_keeps_the_state_hashes_of_the_untyped_engine(run):
    assert run[1] == HASHES


def test_dungeon_state_is_typed(run):
    world, _ = run
    ada, bob = named(world, "ada"), named(world, "bob")
    assert isinstance(world.dungeons, DungeonLedger) and world.dungeons.expeditions == 4
    for char in (ada, bob):
        area = world.areas[char.area]
        assert isinstance(area.instance, Instance) and char.id in area.instance.members
        assert isinstance(char.expedition, Expedition) and char.expedition.instance == area.id
        assert all(isinstance(c, Chest) for c in area.instance.chests.values())
    assert world.areas[ada.area].instance.dark_radius == 3
    assert world.areas[bob.area].instance.dark_radius is None
    assert world.areas[SURFACE].instance is None
    assert ada.expedition.coins > 0 and ada.expedition.kills == 1
    king = foes(world, bob.area, "shadow_king")[0]
    assert king.next_summon is not None and king.coins is not None
    assert {s.summoned_by for s in foes(world, bob.area, "shadow_shade")} == {king.id}


def test_every_typed_dungeon_field_is_in_the_state_hash(run):
    world, _ = run
    ada, bob = named(world, "ada"), named(world, "bob")
    king = foes(world, bob.area, "shadow_king")[0]
    shade = foes(world, bob.area, "shadow_shade")[0]
    records = [world.areas[ada.area].instance, ada.expedition, world.dungeons]
    changed = []
    for record in records:
        for f in dataclasses.fields(record):
            copy = World.restore(world.snapshot(), CONTENT)
            twin = {id(world.areas[ada.area].instance): copy.areas[ada.area].instance,
                    id(ada.expedition): copy.entities[ada.id].expedition,
                    id(world.dungeons): copy.dungeons}[id(record)]
            value = getattr(twin, f.name)
            setattr(twin, f.name, _other(value))
            changed.append((type(record).__name__, f.name, copy.state_hash() != world.state_hash()))
    for ent, name in ((king, "coins"), (king, "next_summon"), (shade, "summoned_by")):
        copy = World.restore(world.snapshot(), CONTENT)
        setattr(copy.entities[ent.id], name, _other(getattr(ent, name)))
        changed.append(("Creature", name, copy.state_hash() != world.state_hash()))
    assert [c for c in changed if not c[2]] == []


def test_a_creatures_hashed_text_is_repr_of_its_fields_as_first_laid_out(run):
    """The hash writes a creature from a template (it hashes every creature every minute):
    the same text as repr of its fields with coins and summons in an `info` dict, set or not,
    and for a creature whose attributes were set in another order."""
    world, _ = run
    creatures = [e for e in world.entities.values() if type(e) is Creature]
    assert {c.coins is None for c in creatures} == {True, False}
    assert any(c.summoned_by is not None for c in creatures)
    reordered = dataclasses.replace(creatures[0])
    fields = list(vars(reordered))
    vars(reordered).clear()
    vars(reordered).update({k: getattr(creatures[0], k) for k in reversed(fields)})
    assert list(vars(reordered)) == fields[::-1]
    for creature in [*creatures, reordered]:
        assert hashing._entity_text(creature) == repr(_as_first_laid_out(creature))


def _as_first_laid_out(creature):
    """A creature's fields as the untyped engine kept them: coins and summons in `info`."""
    fields = dict(vars(creature))
    info = {k: fields.pop(k) for k in ("coins", "next_summon", "summoned_by")}
    fields["info"] = {k: v for k, v in info.items() if v is not None}
    return fields


def _other(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if value is None:
        return 1
    if isinstance(value, str):
        return value + "!"
    if isinstance(value, tuple):
        return (value[0] + 1, value[1])
    if isinstance(value, list):
        return [*value, 99]
    if isinstance(value, dict):
        return {**value, (0, 0): Chest(1, {})} if all(isinstance(k, tuple) for k in value) \
            else {**value, 99: (1, 1)}
    raise TypeError(value)


def test_a_restored_dungeon_run_has_the_same_future(run):
    world, _ = run
    world = World.restore(world.snapshot(), CONTENT)
    copy = World.restore(world.snapshot(), CONTENT)
    for _ in range(60):
        world.step()
        copy.step()
        assert copy.state_hash() == world.state_hash()


def test_no_rule_replaces_another_rules_handler_and_the_world_keeps_no_hook_lists():
    for handler in HANDLERS.values():
        owners = {fn.__module__ for fn in (handler.check, handler.effect, handler.begin) if fn}
        assert len(owners) == 1, (handler.type, owners)
    assert HANDLERS["gather"].effect.__module__ == "asiworld.engine.rules.gathering"
    world = World.create(seed=3, content=CONTENT, size=48)
    assert not hasattr(world, "extensions") and not hasattr(world_module, "_RESTORE_HOOKS")
