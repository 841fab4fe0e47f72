"""Applying frames to a plain state: the one algorithm the recorder, the reader and the browser share.

A frame is ``{"tick", "keyframe"?, "deltas", "events"}`` (docs/engine-interface.md, Frames). The state
is the keyframe body with each area's ``tiles`` decoded from base64 into a bytearray (a
``Uint8Array`` in the browser) and entity ids as string keys (as JSON delivers them):

* ``keyframe`` present: the state is replaced by the keyframe body; the frame's deltas then apply.
* ``deltas.tiles`` ``[[area, x, y, code], ...]``: set the terrain code of one tile
  (``tiles[y * w + x] = code`` in that area).
* ``deltas.entities`` ``{id: entity}``: each entity dict replaces (or inserts) the whole entity.
* ``deltas.removed`` ``[id, ...]``: those entities are deleted (applied after ``entities``).
* ``deltas.structures`` / ``deltas.loot``: replace the whole list when present.
* ``deltas.time``: replaces the clock.
* ``deltas.areas`` ``{area: area_body}`` (a dungeon instance opened): inserts or replaces the
  area (tiles in base64, as in a keyframe); ``deltas.areas_removed`` ``[area, ...]`` deletes areas.
  Both apply before ``tiles``.

Nested values are never mutated, only replaced, so states may share entity dicts with the frames
they came from; copying a state (``copy_state``) is cheap.
"""

from __future__ import annotations

import base64
from typing import Any

State = dict[str, Any]


def _decode_area(body: dict) -> dict:
    area = dict(body)
    tiles = area.get("tiles")
    if isinstance(tiles, str):
        area["tiles"] = bytearray(base64.b64decode(tiles))
    return area


def state_from_keyframe(body: dict, tick: int) -> State:
    """A fresh state from a keyframe body (the frame's ``keyframe`` value)."""
    state: State = {k: v for k, v in body.items() if k not in ("areas", "entities")}
    state["areas"] = {str(a): _decode_area(area) for a, area in body.get("areas", {}).items()}
    state["entities"] = {str(i): e for i, e in body.get("entities", {}).items()}
    state["tick"] = tick
    return state


def apply_frame(state: State | None, frame: dict) -> State:
    """Apply one frame; returns the state (a new one after a keyframe, else `state` updated in place)."""
    if frame.get("keyframe") is not None:
        state = state_from_keyframe(frame["keyframe"], frame["tick"])
    if state is None:
        raise ValueError("the first frame applied must carry a keyframe")
    deltas = frame.get("deltas")
    if not deltas:  # nothing changed (many ticks of a recording)
        state["tick"] = frame["tick"]
        return state
    for area_id in deltas.get("areas_removed") or ():
        state["areas"].pop(str(area_id), None)
    for area_id, body in (deltas.get("areas") or {}).items():
        state["areas"][str(area_id)] = _decode_area(body)
    for area_id, x, y, code in deltas.get("tiles") or ():
        area = state["areas"].get(str(area_id))
        if area is not None:
            area["tiles"][y * area["w"] + x] = code
    entities = state["entities"]
    for ent_id, ent in (deltas.get("entities") or {}).items():
        entities[str(ent_id)] = ent
    for ent_id in deltas.get("removed") or ():
        entities.pop(str(ent_id), None)
    for key in ("structures", "loot", "time"):
        if key in deltas:
            state[key] = deltas[key]
    state["tick"] = frame["tick"]
    return state


def copy_state(state: State) -> State:
    """A copy that later frames can be applied to without touching `state`."""
    out = dict(state)
    out["areas"] = {
        a: {**area, "tiles": bytearray(area["tiles"])} for a, area in state["areas"].items()
    }
    out["entities"] = dict(state["entities"])
    return out


def encode_keyframe(state: State) -> dict:
    """The keyframe body (JSON-ready, tiles in base64) that reproduces `state`."""
    body = {k: v for k, v in state.items() if k not in ("areas", "entities", "tick")}
    body["areas"] = {
        a: {**area, "tiles": base64.b64encode(bytes(area["tiles"])).decode("ascii")}
        for a, area in state["areas"].items()
    }
    body["entities"] = dict(state["entities"])
    return body


def keyframe_frame(state: State, events: list | None = None) -> dict:
    """A protocol frame carrying `state` as its keyframe (what a viewer needs to start at a tick)."""
    return {
        "tick": state["tick"],
        "keyframe": encode_keyframe(state),
        "deltas": {},
        "events": list(events or []),
    }
