"""World snapshots: an explicit, versioned schema of plain data (app/engine/snapshot.py) that
restores a world with the same future and is read without running anything.

Bad inputs tried: a pickle (with a payload that would call a function), another schema
version, bytes that are not a snapshot (empty, junk, a cut-off snapshot, a str), an unknown
value type, an array of Python objects, a record with an unknown or a missing field, a field of
the wrong type, a world without its fields, rows of the input log or queue that are not rows."""

from __future__ import annotations

import ast
import pickle
import random
from pathlib import Path

import msgpack
import pytest
from asiworld.engine import World, load_content
from asiworld.engine import snapshot as snap
from asiworld.engine.errors import SnapshotError
from asiworld.engine.model import SURFACE, Character, Creature
from asiworld.engine.rules.combat import harm

from tests.engine.hostile import CALLS, hostile_pickle

CONTENT = load_content()
APP = Path(__file__).resolve().parents[2] / "app"
# What a world keeps only to go faster, or only until `step` returns: not in a snapshot.
# caches, and the grace new characters get (a setting of the serving process; each character
# keeps its own grace, which is snapshotted)
NOT_SNAPSHOTTED = {"content", "_events", "tile_changes", "path_cache", "path_memo",
                   "sight_cache", "bodies_moved", "_body_index", "_body_grids", "grace_nights",
                   "entity_changes", "entity_change_count", "_characters"}


def busy_world(seed: int = 7) -> tuple[World, list[Character]]:
    """Three characters on a 64-tile world: ada inside a tier-1 instance with a chest opened,
    bob inside the Shadow Sanctum with the Shadow King in phase two (shades called), cy walking
    and working on the surface; an action waits in the queue."""
    world = World.create(seed=seed, content=CONTENT, size=64)
    ada, bob, cy = (world.entities[world.add_character(n)] for n in ("ada", "bob", "cy"))
    ada.equipment["weapon"] = "iron_sword"
    world.move_entity(ada, *world.landmarks.gates[0], SURFACE)
    assert world.submit(ada.id, {"type": "enter"}).ok
    bob.sanctum_open = True
    bob.max_health = bob.health = 5000
    ax, ay = world.landmarks.altar
    world.move_entity(bob, *world.free_tile_near(SURFACE, (ax + 1, ay)), SURFACE)
    assert world.submit(bob.id, {"type": "enter"}).ok
    world.step()
    assert world.areas[ada.area].kind == "dungeon" and world.areas[bob.area].kind == "sanctum"
    king = world.entities[world.areas[bob.area].instance.boss]
    harm(world, king, king.max_health // 2 + 5, source=bob)
    rng = random.Random(4)
    for _ in range(60):
        for char in (ada, cy):
            if char.op is None:
                d = rng.choice("nsew")
                world.submit(char.id, rng.choice([{"type": "move", "dir": d},
                                                  {"type": "gather", "x": char.x + 1, "y": char.y},
                                                  {"type": "wait", "ticks": 3}]))
        world.step()
    assert king.phase == 2 and any(e.kind == "shadow_shade" for e in world.entities.values())
    world.submit(cy.id, {"type": "move", "dir": "n"})  # waits for the next step
    return world, [ada, bob, cy]


def run_both(a: World, b: World, chars: list[Character], ticks: int) -> None:
    rng_a, rng_b = random.Random(9), random.Random(9)
    for _ in range(ticks):
        for world, rng in ((a, rng_a), (b, rng_b)):
            for char in chars:
                if rng.random() < 0.2:
                    world.submit(char.id, {"type": "move", "dir": rng.choice("nsew")})
            world.step()
        assert a.state_hash() == b.state_hash(), f"the futures part at tick {a.tick}"


# --- the same future ---------------------------------------------------------------------------


def test_a_restored_world_in_dungeons_has_the_same_future_state_hashes():
    world, chars = busy_world()
    copy = World.restore(world.snapshot(), CONTENT)
    assert copy.state_hash() == world.state_hash()
    run_both(world, copy, chars, 150)
    for char in chars:
        assert copy.observe(char.id) == world.observe(char.id)


def test_a_snapshot_of_a_restored_world_is_the_same_bytes():
    world, _ = busy_world()
    blob = world.snapshot()
    assert World.restore(blob, CONTENT).snapshot() == blob
    assert World.create(seed=5, content=CONTENT, size=48).snapshot() == \
        World.create(seed=5, content=CONTENT, size=48).snapshot()


def test_a_snapshot_without_its_input_log_counts_the_rows_as_forgotten():
    world, _ = busy_world()
    state = snap.read(world.snapshot(input_log=False))
    assert state["input_log"] == [] and state["input_log_base"] == world.input_log_end
    assert World.restore(world.snapshot(input_log=False), CONTENT).input_log_end == \
        world.input_log_end


def test_the_schema_names_every_field_of_the_model_and_every_state_of_the_world():
    for kind in snap.CLASSES:
        assert snap.FIELDS[kind] == snap.fields_of(kind), f"{kind}: bump VERSION and the list"
    world, _ = busy_world()
    assert set(vars(world)) - NOT_SNAPSHOTTED == set(snap.FIELDS["world"])


# --- nothing is run ----------------------------------------------------------------------------


def test_a_snapshot_is_restored_with_no_pickle_in_the_path(monkeypatch):
    world, chars = busy_world()

    def refuse(*args, **kwargs):
        raise AssertionError("pickle was used")

    for name in ("loads", "load", "dumps", "dump", "Unpickler", "Pickler"):
        monkeypatch.setattr(pickle, name, refuse)
    copy = World.restore(world.snapshot(), CONTENT)
    assert copy.state_hash() == world.state_hash()
    for path in ("engine/snapshot.py", "engine/world.py", "replay/snapshots.py"):
        tree = ast.parse((APP / path).read_text())
        imported = {a.name.split(".")[0] for n in ast.walk(tree)
                    if isinstance(n, ast.Import | ast.ImportFrom) for a in n.names}
        imported |= {(n.module or "").split(".")[0] for n in ast.walk(tree)
                     if isinstance(n, ast.ImportFrom)}
        assert not imported & {"pickle", "marshal", "shelve", "dill", "cloudpickle"}, path


def code_of(blob) -> str:
    with pytest.raises(SnapshotError) as err:
        World.restore(blob, CONTENT)
    assert err.value.message and err.value.code in str(err.value)
    return err.value.code


def test_a_pickled_snapshot_is_refused_without_being_unpickled():
    for protocol in (2, 3, 4, 5):
        assert code_of(hostile_pickle(protocol, tick=1, seed=7)) == "snapshot_pickled"
    assert CALLS == []


def test_a_snapshot_of_another_schema_version_is_refused_with_its_version():
    body = World.create(seed=3, content=CONTENT, size=48).snapshot()[snap.HEAD.size:]
    for version in (0, snap.VERSION + 1):
        with pytest.raises(SnapshotError) as err:
            World.restore(snap.HEAD.pack(snap.MAGIC, version) + body, CONTENT)
        assert err.value.code == "snapshot_version"
        assert f"version {version}" in err.value.message
        assert f"version {snap.VERSION}" in err.value.message


def edited(change) -> bytes:
    state = snap.read(World.create(seed=3, content=CONTENT, size=48).snapshot())
    change(state)
    return snap.write(state)


def test_bytes_that_are_not_a_snapshot_are_refused_with_a_code():
    good = World.create(seed=3, content=CONTENT, size=48).snapshot()
    for blob in (b"", b"junk", good[:20], good[: len(good) // 2], snap.MAGIC, "text",
                 snap.HEAD.pack(snap.MAGIC, snap.VERSION) + b"\xc1"):
        assert code_of(blob) == "bad_snapshot", blob[:12]


def test_a_snapshot_with_foreign_values_or_records_is_refused():
    head = snap.HEAD.pack(snap.MAGIC, snap.VERSION)
    unknown_type = head + msgpack.packb({"world": msgpack.ExtType(99, b"x")})
    objects = head + msgpack.packb({"world": msgpack.ExtType(2, msgpack.packb(
        ["|O", [1], b"\0" * 8]))})
    assert code_of(unknown_type) == "bad_snapshot"
    assert code_of(objects) == "bad_snapshot"
    assert code_of(edited(lambda s: s["areas"][0].update(evil=1))) == "bad_snapshot"
    assert code_of(edited(lambda s: s["areas"][0].pop("terrain"))) == "bad_snapshot"
    assert code_of(edited(lambda s: s["entities"][0].__setitem__(0, "dragon"))) == "bad_snapshot"
    assert code_of(edited(lambda s: s.update(tick="soon"))) == "bad_snapshot"
    assert code_of(edited(lambda s: s.update(seed=None))) == "bad_snapshot"
    assert code_of(edited(lambda s: s.update(rng=7))) == "bad_snapshot"
    assert code_of(edited(lambda s: s.pop("memory"))) == "bad_snapshot"
    assert code_of(edited(lambda s: s.update(pending=[1]))) == "bad_snapshot"
    assert code_of(edited(lambda s: s.update(input_log=[[0, None, {}]]))) == "bad_snapshot"
    assert code_of(edited(lambda s: s.update(expiries={}))) == "bad_snapshot"
    assert code_of(head + msgpack.packb([1, 2])) == "bad_snapshot"


def test_creatures_and_characters_come_back_as_their_kinds():
    world, chars = busy_world()
    copy = World.restore(world.snapshot(), CONTENT)
    assert all(isinstance(copy.entities[c.id], Character) for c in chars)
    assert {type(e) for e in copy.entities.values()} == {Character, Creature}
    assert copy.landmarks == world.landmarks
