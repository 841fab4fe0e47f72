"""Frames: the engine's output for viewers, `{tick, keyframe?, deltas, events}`. A keyframe is
the whole public state; a delta carries only what changed since the previous frame. The same
frames go to live spectators and into replay files, and one applier draws both."""

from __future__ import annotations

import base64
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from . import clock, inventory
from .model import Character, Creature, Entity

if TYPE_CHECKING:
    from .world import World


# Every field public_entity gives of a creature: the same tuple means the same public dict
# (FrameBuilder reuses a creature's dict while it is unchanged). A field added there goes here,
# and wherever the engine writes one that can change, it calls World.entity_changed (frames
# read again only the creatures it noted).
creature_view = attrgetter("kind", "x", "y", "area", "health", "max_health", "hostile", "boss",
                           "phase")
_BOSS, _PHASE = 7, 8  # where creature_view puts them
_character_fields = attrgetter("x", "y", "area", "health", "max_health", "name", "label",
                               "hunger", "energy", "coins", "asleep", "down", "home_area",
                               "usable_bed", "sanctum_open")


def character_view(ent: Character) -> tuple:
    """Every field public_entity gives of a character, as values later writes cannot change (a
    pack's slots are lists, written in place): the same view means the same public dict. An
    operation's type and arguments never change while its id stays. A field added to
    public_entity goes here too."""
    op = ent.op
    return (_character_fields(ent), tuple(map(tuple, ent.inventory)),
            tuple(ent.equipment.items()), tuple(ent.tasks.items()),
            None if op is None else op.id)


def public_entity(ent: Entity) -> dict[str, Any]:
    """What a spectator sees of an entity (characters include their pack and action)."""
    out: dict[str, Any] = {"id": ent.id, "kind": ent.kind, "x": ent.x, "y": ent.y,
                           "area": ent.area, "health": ent.health, "max_health": ent.max_health}
    if isinstance(ent, Character):
        op = ent.op
        out.update(name=ent.name, label=ent.label, hunger=ent.hunger, energy=ent.energy,
                   coins=ent.coins, inventory=inventory.as_list(ent),
                   equipment=dict(ent.equipment), asleep=ent.asleep, down=ent.down,
                   action={"op": op.id, "type": op.type, "args": op.args} if op else None,
                   home_area=ent.home_area, usable_bed=ent.usable_bed, tasks=dict(ent.tasks),
                   sanctum_open=ent.sanctum_open)
    elif isinstance(ent, Creature):
        out.update(hostile=ent.hostile, boss=ent.boss)
        if ent.boss:
            out["phase"] = ent.phase
    return out


def _creature_entity(eid: int, view: tuple) -> dict[str, Any]:
    """public_entity of a creature from its fields as creature_view reads them (the same dict,
    keys in the same order)."""
    kind, x, y, area, health, max_health, hostile, boss, phase = view
    out = {"id": eid, "kind": kind, "x": x, "y": y, "area": area, "health": health,
           "max_health": max_health, "hostile": hostile, "boss": boss}
    if boss:
        out["phase"] = phase
    return out


def _b64(arr: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(arr, dtype=np.uint8).tobytes()).decode("ascii")


def area_dict(world: World, area_id: int) -> dict[str, Any]:
    area = world.areas[area_id]
    return {"id": area.id, "kind": area.kind, "tier": area.tier, "dark": area.dark,
            "w": area.width, "h": area.height, "tiles": _b64(area.terrain)}


def structures_list(world: World) -> list[dict[str, Any]]:
    out = []
    for area_id, area in world.areas.items():
        for (x, y), owner in area.floor.items():
            out.append({"kind": "floor", "x": x, "y": y, "owner": owner, "area": area_id})
        for (x, y), s in area.structures.items():
            d = s.to_dict(x, y)
            d["area"] = area_id
            out.append(d)
    return out


def loot_list(world: World) -> list[dict[str, Any]]:
    return [{"x": x, "y": y, "area": area_id, "items": dict(bag.items)}
            for area_id, area in world.areas.items() for (x, y), bag in area.loot.items()]


class FrameBuilder:
    """Turns a world's ticks into frames for viewers that saw everything before."""

    def __init__(self, world: World):
        self.world = world
        self._entities: dict[int, dict[str, Any]] = {}
        # Who the frames walk while nobody comes or goes, with each creature's fields as a
        # tuple: equal to its last frame's means the same public dict (most creatures stand or
        # wander; building and comparing their dicts every tick was most of a frame's cost)
        self._cast: _Cast | None = None
        # The world's count of noted changes when the cast's fields were last brought up to
        # date (World.entity_changed): while nobody comes or goes, only the creatures noted
        # since are read again.
        self._changes_seen = 0
        self._areas: set[int] = set()
        self._time_key: tuple[bool, int] | None = None
        # the day's length and when night starts, in ticks (read every frame; content is fixed)
        self._day = clock.day_ticks(world.content), clock.night_start(world.content)

    def keyframe(self, events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        w = self.world
        self._entities = {eid: public_entity(e) for eid, e in w.entities.items()}
        self._cast = None
        self._changes_seen = w.entity_change_count
        self._areas = set(w.areas)
        self._time_key = self._time_key_now()
        body = {
            "width": w.areas[0].width, "height": w.areas[0].height, "seed": w.seed,
            "areas": {str(a): area_dict(w, a) for a in w.areas},
            "entities": {str(k): v for k, v in self._entities.items()},
            "structures": structures_list(w), "loot": loot_list(w),
            "time": self._time(), "legend": [t["name"] for t in w.content.tiles],
            "landmarks": {"plaza": list(w.landmarks.plaza), "merchant": list(w.landmarks.merchant),
                          "gates": [list(g) for g in w.landmarks.gates],
                          "altar": list(w.landmarks.altar)},
        }
        return {"tick": w.tick, "keyframe": body, "deltas": {}, "events": list(events or [])}

    def frame(self, events: list[dict[str, Any]]) -> dict[str, Any]:
        """The delta since the last frame; call once after each `world.step()`."""
        w = self.world
        deltas: dict[str, Any] = {}
        cast = self._cast
        # Nobody came or went: an entity added takes a new id (World.next_id), one removed
        # leaves fewer (cheaper than comparing every id every tick).
        if cast is not None and w.next_id == cast.next_id and len(w.entities) == cast.count:
            changed, removed = self._changed_in(cast), []
        else:
            changed, removed = self._changed_entities()
        if changed:
            deltas["entities"] = changed
        if removed:
            deltas["removed"] = removed
        new_areas: list[int] = []
        gone_areas: list[int] = []
        if w.areas.keys() != self._areas:  # a dungeon instance opened or closed
            new_areas = [a for a in w.areas if a not in self._areas]
            gone_areas = [a for a in self._areas if a not in w.areas]
            self._areas = set(w.areas)
        if new_areas:
            deltas["areas"] = {str(a): area_dict(w, a) for a in new_areas}
        if gone_areas:
            deltas["areas_removed"] = gone_areas
        if w.tile_changes:
            new_area_ids = set(new_areas)
            tiles = [list(t) for t in w.tile_changes
                     if t[0] not in new_area_ids and t[0] in w.areas]
            if tiles:
                deltas["tiles"] = tiles
        if w.structures_changed or new_areas or gone_areas:
            deltas["structures"] = structures_list(w)
        if w.loot_changed or gone_areas:
            deltas["loot"] = loot_list(w)
        time_key = self._time_key_now()
        if time_key != self._time_key or w.tick % 60 == 0:
            self._time_key = time_key
            deltas["time"] = self._time()
        return {"tick": w.tick, "deltas": deltas, "events": list(events)}

    def _changed_entities(self) -> tuple[dict[str, Any], list[int]]:
        """The entities changed and removed since the last frame, walking every one (the first
        frame, or some came or went); the cast of the next frames."""
        current: dict[int, dict[str, Any]] = {}
        changed: dict[str, Any] = {}
        before = self._entities
        seen = self._cast.seen() if self._cast is not None else {}
        creatures: dict[int, tuple] = {}
        self._changes_seen = self.world.entity_change_count
        for eid, ent in self.world.entities.items():
            if type(ent) is Creature:
                key = creature_view(ent)
                creatures[eid] = key
                if seen.get(eid) == key:
                    current[eid] = before[eid]  # what public_entity would give again
                    continue
            d = public_entity(ent)
            current[eid] = d
            if before.get(eid) != d:
                changed[str(eid)] = d
        removed = [eid for eid in before if eid not in current]
        self._entities = current
        self._cast = _Cast(self.world, creatures)
        return changed, removed

    def _changed_in(self, cast: _Cast) -> dict[str, Any]:
        """The entities changed since the last frame when nobody came or went (most ticks):
        the creatures the world noted as changed since (World.entity_changed) whose fields
        differ from the last frame's, and the other entities (characters), built again, in the
        world's order."""
        world = self.world
        entities, views = world.entities, cast.views
        moved: list[int] = []
        if world.entity_change_count != self._changes_seen:
            for eid in world.entities_changed_since(self._changes_seen):
                was = views.get(eid)
                if was is None:  # not a creature: built below anyway
                    continue
                now = creature_view(entities[eid])
                if now != was:
                    views[eid] = now
                    # so did its dict, unless only its phase changed and it is no boss
                    # (public_entity shows a boss's phase alone)
                    if now[_PHASE] == was[_PHASE] or now[_BOSS] or now[:_PHASE] != was[:_PHASE]:
                        moved.append(eid)
            self._changes_seen = world.entity_change_count
        # The others are built again, but for the characters that stood still at the last
        # frame and whose fields are still the same (character_view): a character that stands
        # or works stays so for many ticks, one that walks changes every tick.
        still = cast.still
        others = cast.others
        if still:
            others = [eid for eid in others
                      if eid not in still or still[eid] != character_view(entities[eid])]
        before = self._entities
        changed: dict[str, Any] = {}
        for eid in cast.in_order(others, moved):
            view = views.get(eid)
            if view is not None:  # a creature that moved: its dict differs from the last one
                changed[str(eid)] = before[eid] = _creature_entity(eid, view)
                continue
            ent = entities[eid]
            d = public_entity(ent)
            if before[eid] != d:
                changed[str(eid)] = d
                before[eid] = d
                still.pop(eid, None)
            elif type(ent) is Character:
                still[eid] = character_view(ent)  # unchanged: its fields are read first next time
        return changed

    def _time_key_now(self) -> tuple[bool, int]:
        """Night or day, and the day: a frame carries the clock when either changes (read
        without building the clock's dict every tick)."""
        tick, (length, night) = self.world.tick, self._day
        return tick % length >= night, tick // length + 1

    def _time(self) -> dict[str, Any]:
        return clock.time_of(self.world.tick, self.world.content)


class _Cast:
    """The world's entities while nobody comes or goes (an entity keeps its object while it
    lives): each creature's fields in the last frame, by id, and the others (characters),
    which are built again every frame."""

    def __init__(self, world: World, creatures: dict[int, tuple]) -> None:
        entities = world.entities
        self.next_id, self.count = world.next_id, len(entities)
        self.views = creatures
        self.others = [eid for eid, e in entities.items() if type(e) is not Creature]
        # character_view of the characters the last frame found unchanged
        self.still: dict[int, tuple] = {}
        self._place = {eid: i for i, eid in enumerate(entities)}

    def seen(self) -> dict[int, tuple]:
        """Each creature's fields in the last frame, by id."""
        return self.views

    def in_order(self, others: list[int], moved: list[int]) -> list[int]:
        """Those of the others to build and the creatures that moved, in the world's order."""
        if not moved:
            return others
        return sorted(others + moved, key=self._place.__getitem__)
