"""The state hash: a stable digest of everything that decides the future (not caches, not what
characters remember or were told).

The digest is over `repr` of the state laid out as the engine first kept it, when dungeon state
was untyped dicts: an instance's bookkeeping as the area's `info` dict, the expedition ledger as
the surface's `info["dungeons"]`, a creature's coins and summons as its `info` dict, an
expedition as a dict. The typed records (model.py) are rendered back into that layout here, so
runs and replays recorded before keep their state hashes (the README's runs, the sample
replays' recorded hashes)."""

from __future__ import annotations

import hashlib
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from .model import Area, Creature, Entity, Expedition, Op

if TYPE_CHECKING:
    from .world import World

_CREATURE_INFO = ("coins", "next_summon", "summoned_by")  # in the order they were first set
_RECORDS = (Op, Expedition)  # a field holding one is hashed as its dict (made once, not per field)


def state_hash(world: World) -> str:
    h = hashlib.blake2b(digest_size=16)
    h.update(repr((world.tick, world.seed, world.next_id, world.next_op,
                   world.next_area)).encode())
    h.update(repr(world.rng.getstate()).encode())
    for area_id, area in world.areas.items():
        h.update(repr((area_id, area.kind, area.dark, area.tier)).encode())
        h.update(area.terrain.tobytes())
        h.update(area.amount.tobytes())
        h.update(repr((area.floor, {p: vars(s) for p, s in area.structures.items()},
                       {p: vars(b) for p, b in area.loot.items()},
                       _area_info(world, area))).encode())
    # One update of the entities' text, the same bytes as one per entity (the digest reads a
    # stream).
    h.update("".join([_entity_text(ent) for ent in world.entities.values()]).encode())
    h.update(repr(world.expiries).encode())
    h.update(repr(world.pending).encode())
    return h.hexdigest()


def _area_info(world: World, area: Area) -> dict[str, Any]:
    if area.instance is not None:
        info = dict(vars(area.instance))
        info["chests"] = {p: vars(c) for p, c in area.instance.chests.items()}
        if info["dark_radius"] is None:  # only dark tiers had one
            del info["dark_radius"]
        return info
    if area.kind == "surface" and world.dungeons is not None:
        return {"dungeons": vars(world.dungeons)}
    return {}


def _entity_text(ent: Entity) -> str:
    """`repr` of the entity's fields as first laid out (see the module's docstring)."""
    if isinstance(ent, Creature):
        return _creature_text(ent)
    return repr(_character_fields(ent))


# A creature's fields, by the order its attributes were set: the text before each value and
# what reads them. Most entities are creatures, a recorder hashes them all every minute, and
# nearly every one has changed since (it wanders, its next move moves): the text is written
# again each time, from a template instead of a dict built for repr.
_CREATURE_TEXT: dict[tuple[str, ...], tuple[str, Any, Any]] = {}


def _creature_text(ent: Creature) -> str:
    fields = vars(ent)
    names = tuple(fields)
    made = _CREATURE_TEXT.get(names)
    if made is None:
        made = _CREATURE_TEXT[names] = _creature_template(names)
    template, plain, info = made
    # A creature's fields are plain values (model.py): no record to render, no grace nights;
    # `%r` writes each as repr of the dict would.
    coins, next_summon, summoned_by = info(fields)
    if coins is None and next_summon is None and summoned_by is None:  # most creatures
        return template % plain(fields) + "{}}"
    extra = {k: v for k, v in zip(_CREATURE_INFO, (coins, next_summon, summoned_by), strict=True)
             if v is not None}
    return template % plain(fields) + repr(extra) + "}"


def _creature_template(names: tuple[str, ...]) -> tuple[str, Any, Any]:
    plain = [k for k in names if k not in _CREATURE_INFO]
    # the same text as repr of {**the other fields, "info": {the info fields set}}: a creature's
    # coins and summons were first kept in an `info` dict
    template = "{" + "".join(f"{k!r}: %r, " for k in plain) + "'info': "
    return template, itemgetter(*plain), itemgetter(*_CREATURE_INFO)


def _character_fields(ent: Entity) -> dict[str, Any]:
    fields = {k: (vars(v) if isinstance(v, _RECORDS) else v) for k, v in vars(ent).items()}
    if not fields.get("grace_nights", 1):  # a field added later: the default keeps old hashes
        del fields["grace_nights"]
    return fields
