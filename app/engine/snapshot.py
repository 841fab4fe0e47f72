"""World snapshots as plain data: an explicit, versioned schema that is read without executing
anything, so a snapshot from someone else's replay or database is safe to open.

A snapshot is ``MAGIC`` + the schema version (u16, big-endian) + one msgpack document. The
document holds only msgpack's own types (nil, bool, int, float, str, bytes, array, map) plus two
extension types the engine's state needs: a tuple (positions, the random generator's state,
which the state hash tells apart from lists) and a numpy array (dtype from a short list, shape,
raw bytes). Records (areas, characters, creatures, operations, memories) are maps whose field
names are the lists in ``FIELDS``; a record with a missing or an unknown field is refused, and
a change to the model's fields must come with a new ``VERSION`` (a test holds the lists to the
model). What the world keeps only to go faster (path and sight caches, the tick's tile changes,
events not yet returned by `step`) is not in a snapshot. docs/engine-interface.md describes it.
"""

from __future__ import annotations

import dataclasses
import struct
from collections import deque
from typing import TYPE_CHECKING, Any

import msgpack
import numpy as np

from . import codes, vision
from .errors import SnapshotError
from .model import (
    Area,
    Character,
    Chest,
    Creature,
    DungeonLedger,
    Expedition,
    Instance,
    LootBag,
    Op,
    Structure,
)
from .worldgen import Landmarks

if TYPE_CHECKING:
    from .world import World

MAGIC = b"ASIWORLD"
VERSION = 2  # 2: typed dungeon state (instance, chest, expedition, dungeon_ledger)
HEAD = struct.Struct(">8sH")
_TUPLE, _ARRAY = 1, 2
# Array element types a world holds (tile codes, amounts, memory ticks, sight masks).
DTYPES = frozenset({"|u1", "|i1", "|b1", "<u2", "<i2", "<u4", "<i4", "<i8", "<f4", "<f8"})

# The schema: every record's fields, by record kind. Written out (not read from the classes)
# so the format is what this list says; tests/engine/test_snapshot.py holds it to the model.
FIELDS: dict[str, tuple[str, ...]] = {
    "world": ("seed", "tick", "next_id", "next_op", "next_area", "rng", "landmarks", "areas",
              "entities", "pending", "input_log", "input_log_base", "char_events", "memory",
              "expiries", "home_tiles", "dungeons", "structures_changed", "loot_changed"),
    "landmarks": ("plaza", "merchant", "gates", "altar"),
    "area": ("id", "kind", "terrain", "amount", "dark", "tier", "floor", "structures",
             "occupant", "loot", "version", "instance"),
    "instance": ("name", "entrance", "portal", "cleared", "chests", "owner", "entry",
                 "dark_radius", "boss", "members"),
    "chest": ("coins", "items"),
    "structure": ("kind", "owner", "has_lock", "locked"),
    "loot_bag": ("items", "expires", "owner"),
    "op": ("id", "type", "args", "wait", "remaining", "path", "stuck", "started", "result"),
    "creature": ("id", "kind", "area", "x", "y", "health", "max_health", "hostile", "target",
                 "lost_sight", "next_move", "next_attack", "wool_at", "boss", "tier", "phase",
                 "coins", "next_summon", "summoned_by"),
    "character": ("id", "kind", "area", "x", "y", "health", "max_health", "name", "label",
                  "hunger", "energy", "coins", "inventory", "equipment", "light_ticks", "crafted",
                  "op", "asleep", "down", "down_until", "next_attack", "spawn", "surface_pos",
                  "usable_bed", "home_area", "home_locked", "night_damage", "night_full",
                  "day_downs", "joined", "expedition", "entries", "sanctum_open", "tasks",
                  "grace_nights"),
    "expedition": ("number", "tier", "instance", "start", "solo", "party", "damage", "supplies",
                   "coins", "kills"),
    "dungeon_ledger": ("expeditions", "recover_at", "sweep"),
    "memory": ("areas", "entities", "key", "x0", "y0", "visible"),
    "area_memory": ("tiles", "ticks"),
}
# The model classes the records describe (for the test that holds FIELDS to them).
CLASSES: dict[str, type] = {
    "landmarks": Landmarks, "area": Area, "structure": Structure, "loot_bag": LootBag, "op": Op,
    "instance": Instance, "chest": Chest, "creature": Creature, "character": Character,
    "expedition": Expedition, "dungeon_ledger": DungeonLedger, "memory": vision.Memory,
    "area_memory": vision.AreaMemory,
}


# ---------------------------------------------------------------------------- plain values
def _default(obj: Any) -> msgpack.ExtType:
    if type(obj) is tuple:
        return msgpack.ExtType(_TUPLE, _pack(list(obj)))
    if type(obj) is np.ndarray:
        if obj.dtype.str not in DTYPES:
            raise TypeError(f"an array of {obj.dtype} has no place in a snapshot")
        return msgpack.ExtType(_ARRAY, _pack([obj.dtype.str, list(obj.shape), obj.tobytes()]))
    raise TypeError(f"a snapshot holds plain data only, not {type(obj).__name__}")


def _pack(obj: Any) -> bytes:
    # strict_types: a tuple goes through _default (kept a tuple), not silently into a list.
    return msgpack.packb(obj, default=_default, strict_types=True, use_bin_type=True)


def _ext(code: int, data: bytes) -> Any:
    if code == _TUPLE:
        return tuple(_unpack(data))
    if code == _ARRAY:
        dtype, shape, raw = _unpack(data)
        if dtype not in DTYPES or not isinstance(raw, bytes):
            raise SnapshotError(codes.BAD_SNAPSHOT,
                                f"the snapshot holds an array of type {dtype!r}")
        return np.frombuffer(raw, dtype=np.dtype(dtype)).reshape(shape).copy()
    raise SnapshotError(codes.BAD_SNAPSHOT, f"the snapshot holds an unknown value type {code}")


def _unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, ext_hook=_ext, raw=False, strict_map_key=False)


# ---------------------------------------------------------------------------- records
# Fields added after snapshots were written: left out at their default, so a snapshot's bytes
# stay the same and an older snapshot (without them) still reads.
OPTIONAL: dict[str, dict[str, Any]] = {"character": {"grace_nights": 0}}


def _record(kind: str, obj: Any) -> dict[str, Any]:
    data = {name: getattr(obj, name) for name in FIELDS[kind]}
    for name, default in OPTIONAL.get(kind, {}).items():
        if data[name] == default:
            del data[name]
    return data


def _build(kind: str, data: Any, **nested: Any) -> Any:
    optional = OPTIONAL.get(kind)
    if optional and isinstance(data, dict):
        data = {**optional, **data}
    if not isinstance(data, dict) or set(data) != set(FIELDS[kind]):
        have = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise SnapshotError(codes.BAD_SNAPSHOT, f"a {kind} record has the fields {have}, not "
                                            f"{list(FIELDS[kind])}")
    return CLASSES[kind](**{**data, **nested})


def _area(area: Area) -> dict[str, Any]:
    data = _record("area", area)
    data["structures"] = {p: _record("structure", s) for p, s in area.structures.items()}
    data["loot"] = {p: _record("loot_bag", b) for p, b in area.loot.items()}
    if area.instance is not None:
        data["instance"] = _record("instance", area.instance)
        data["instance"]["chests"] = {p: _record("chest", c)
                                      for p, c in area.instance.chests.items()}
    return data


def _read_area(data: dict[str, Any]) -> Area:
    structures = {p: _build("structure", s) for p, s in _map(data, "structures").items()}
    loot = {p: _build("loot_bag", b) for p, b in _map(data, "loot").items()}
    instance = data.get("instance")
    if instance is not None:
        chests = {p: _build("chest", c) for p, c in _map(instance, "chests").items()}
        instance = _build("instance", instance, chests=chests)
    return _build("area", data, structures=structures, loot=loot, instance=instance)


def _entity(ent: Any) -> list[Any]:
    if isinstance(ent, Character):
        data = _record("character", ent)
        data["op"] = None if ent.op is None else _record("op", ent.op)
        data["expedition"] = _optional("expedition", ent.expedition)
        return ["character", data]
    if isinstance(ent, Creature):
        return ["creature", _record("creature", ent)]
    raise TypeError(f"a world entity of type {type(ent).__name__} has no record kind")


def _read_entity(row: Any) -> Any:
    if not isinstance(row, list) or len(row) != 2 or row[0] not in ("character", "creature"):
        raise SnapshotError(codes.BAD_SNAPSHOT, "an entity row is not [kind, record]")
    kind, data = row
    if kind == "character":
        op = data.get("op") if isinstance(data, dict) else None
        exp = data.get("expedition") if isinstance(data, dict) else None
        return _build(kind, data, op=None if op is None else _build("op", op),
                      expedition=None if exp is None else _build("expedition", exp))
    return _build(kind, data)


def _optional(kind: str, obj: Any) -> dict[str, Any] | None:
    return None if obj is None else _record(kind, obj)


def _memory(mem: vision.Memory) -> dict[str, Any]:
    mem.settle()  # the ticks of the bodies in view, written before they are saved
    data = _record("memory", mem)
    data["areas"] = {a: _record("area_memory", m) for a, m in mem.areas.items()}
    return data


def _read_memory(data: Any) -> vision.Memory:
    areas = {a: _build("area_memory", m) for a, m in _map(data, "areas").items()}
    return _build("memory", data, areas=areas)


def _map(data: Any, key: str) -> dict:
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, dict):
        raise SnapshotError(codes.BAD_SNAPSHOT, f"the snapshot's {key} is not a map")
    return value


# ---------------------------------------------------------------------------- the world
def dump(world: World, *, input_log: bool = True) -> bytes:
    """The world's state as snapshot bytes. Without `input_log` the rows are left out and
    counted as forgotten (a replay has them), so absolute row numbers stay right."""
    state = {
        "seed": world.seed, "tick": world.tick, "next_id": world.next_id,
        "next_op": world.next_op, "next_area": world.next_area, "rng": world.rng.getstate(),
        "landmarks": _record("landmarks", world.landmarks),
        "areas": [_area(a) for a in world.areas.values()],
        "entities": [_entity(e) for e in world.entities.values()],
        "pending": world.pending,
        "input_log": world.input_log if input_log else [],
        "input_log_base": world.input_log_base + (0 if input_log else len(world.input_log)),
        "char_events": {c: list(events) for c, events in world.char_events.items()},
        "memory": {c: _memory(m) for c, m in world.memory.items()},
        "expiries": world.expiries,
        "home_tiles": {c: sorted(t) for c, t in world.home_tiles.items()},
        "dungeons": _optional("dungeon_ledger", world.dungeons),
        "structures_changed": world.structures_changed, "loot_changed": world.loot_changed,
    }
    return HEAD.pack(MAGIC, VERSION) + _pack({"world": state})


def check(blob: bytes) -> None:
    """Refuse what is not a snapshot of this schema version, reading only its head."""
    if not isinstance(blob, bytes | bytearray | memoryview):
        raise SnapshotError(codes.BAD_SNAPSHOT, "a world snapshot is bytes")
    head = bytes(blob[: HEAD.size])
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        raise SnapshotError(
            codes.SNAPSHOT_PICKLED,
            "this world snapshot is a Python pickle (written before snapshots had a schema); "
            "it is not read because loading a pickle can run code",
        )
    if len(head) < HEAD.size or head[: len(MAGIC)] != MAGIC:
        raise SnapshotError(codes.BAD_SNAPSHOT, "these bytes are not a world snapshot")
    version = HEAD.unpack(head)[1]
    if version != VERSION:
        raise SnapshotError(
            codes.SNAPSHOT_VERSION,
            f"the world snapshot has schema version {version}; this engine reads version "
            f"{VERSION} only",
        )


def read(blob: bytes) -> dict[str, Any]:
    """The world's state from snapshot bytes, as plain data (records still maps)."""
    check(blob)
    try:
        doc = _unpack(bytes(blob[HEAD.size:]))
    except SnapshotError:
        raise
    except Exception as exc:  # whatever msgpack says about damaged bytes
        raise SnapshotError(codes.BAD_SNAPSHOT,
                            f"the world snapshot cannot be read ({exc})") from None
    state = doc.get("world") if isinstance(doc, dict) else None
    if not isinstance(state, dict) or set(state) != set(FIELDS["world"]):
        raise SnapshotError(codes.BAD_SNAPSHOT, "the snapshot does not hold a world's fields")
    if type(state["seed"]) is not int:
        raise SnapshotError(codes.BAD_SNAPSHOT, "the snapshot's seed is not a whole number")
    return state


def write(state: dict[str, Any]) -> bytes:
    """Snapshot bytes from the plain data `read` gives (for tools and tests that edit one)."""
    return HEAD.pack(MAGIC, VERSION) + _pack({"world": state})


def fill(world: World, state: dict[str, Any], event_memory: int) -> None:
    """Put a `read` state into a new World (made from the same seed)."""
    try:
        _fill(world, state, event_memory)
    except SnapshotError:
        raise
    except Exception as exc:  # a field of the wrong type
        raise SnapshotError(codes.BAD_SNAPSHOT,
                            f"the world snapshot does not fit ({exc})") from None


def _fill(world: World, state: dict[str, Any], event_memory: int) -> None:
    for key in ("seed", "tick", "next_id", "next_op", "next_area", "input_log_base"):
        if type(state[key]) is not int:
            raise SnapshotError(codes.BAD_SNAPSHOT, f"the snapshot's {key} is not a whole number")
        setattr(world, key, state[key])
    version, internal, gauss = state["rng"]
    world.rng.setstate((int(version), tuple(int(i) for i in internal), gauss))
    world.landmarks = _build("landmarks", state["landmarks"])
    world.areas = {a.id: a for a in map(_read_area, state["areas"])}
    world.entities = {e.id: e for e in map(_read_entity, state["entities"])}
    for key in ("pending", "input_log", "expiries"):  # rows of three, read every tick
        rows = state[key]
        if not isinstance(rows, list) or any(type(r) is not tuple or len(r) != 3 for r in rows):
            raise SnapshotError(codes.BAD_SNAPSHOT, f"the snapshot's {key} is not a list of rows")
    world.pending = list(state["pending"])
    world.input_log = list(state["input_log"])
    world.char_events = {c: deque(ev, maxlen=event_memory)
                         for c, ev in _map(state, "char_events").items()}
    world.memory = {c: _read_memory(m) for c, m in _map(state, "memory").items()}
    world.expiries = list(state["expiries"])
    world.home_tiles = {c: set(tiles) for c, tiles in _map(state, "home_tiles").items()}
    ledger = state["dungeons"]
    world.dungeons = None if ledger is None else _build("dungeon_ledger", ledger)
    world.structures_changed = bool(state["structures_changed"])
    world.loot_changed = bool(state["loot_changed"])


def fields_of(kind: str) -> tuple[str, ...]:
    """The model class's own field names for a record kind (what FIELDS must list): all but
    those marked `metadata={"derived": True}` (caches rebuilt from the rest, never saved)."""
    return tuple(f.name for f in dataclasses.fields(CLASSES[kind])
                 if not f.metadata.get("derived"))
