"""The frame chunk's compact form: inside one chunk, an entity that changed before is stored as
a patch of the fields that changed since (a character's inventory, equipment and name are not
repeated every tick). Each chunk decodes on its own, so chunks stay independently loadable.

A stored frame moves such entities from ``deltas.entities`` to ``entity_patches``:
``{id: {field: new value, ..., "-": [removed fields]}}``. Decoding rebuilds the full entity from
the last full value of that id earlier in the same chunk.
"""

from __future__ import annotations

REMOVED = "-"


class EntityPacker:
    """Replaces each frame's whole changed entities by patches against the last full value of
    that id it saw (the replay's chunks, one packer each; the live server's wire frames)."""

    def __init__(self) -> None:
        self.last: dict[str, dict] = {}

    def pack(self, frame: dict) -> dict:
        deltas = frame.get("deltas")
        entities = deltas.get("entities") if deltas else None
        if not entities:
            return frame
        last = self.last
        full, patches = {}, {}
        for ent_id, ent in entities.items():
            key = str(ent_id)
            before = last.get(key)
            last[key] = ent
            if before is None or REMOVED in ent or REMOVED in before:  # a real field named "-":
                full[key] = ent  # store it whole
            elif len(ent) == len(before):  # the same fields (nearly always): none gone
                try:  # as many fields, each of them in `before`: the same fields
                    patches[key] = {k: v for k, v in ent.items() if before[k] != v}
                except KeyError:  # one field renamed
                    patches[key] = _patch(ent, before)
            else:
                patches[key] = _patch(ent, before)
        # (most frames' deltas are their entities alone)
        stored_deltas = {} if len(deltas) == 1 else {k: v for k, v in deltas.items()
                                                     if k != "entities"}
        if full:
            stored_deltas["entities"] = full
        stored = {**frame, "deltas": stored_deltas}
        if patches:
            stored["entity_patches"] = patches
        return stored


def _patch(ent: dict, before: dict) -> dict:
    """The fields of `ent` new or changed since `before`, and those gone (under REMOVED)."""
    patch = {k: v for k, v in ent.items() if k not in before or before[k] != v}
    gone = [k for k in before if k not in ent]
    if gone:
        patch[REMOVED] = gone
    return patch


def pack_frames(frames: list[dict]) -> list[dict]:
    packer = EntityPacker()
    return [packer.pack(frame) for frame in frames]


def unpack_frames(stored: list[dict]) -> list[dict]:
    last: dict[str, dict] = {}
    out = []
    for frame in stored:
        deltas = frame.get("deltas") or {}
        patches = frame.get("entity_patches")
        entities = dict(deltas.get("entities") or {})
        for key, patch in (patches or {}).items():
            ent = {**last[key], **patch}
            for field in patch.get(REMOVED, ()):
                ent.pop(field, None)
            ent.pop(REMOVED, None)
            entities[key] = ent
        if patches is None:
            last.update(entities)
            out.append(frame)
            continue
        last.update(entities)
        frame = {k: v for k, v in frame.items() if k != "entity_patches"}
        frame["deltas"] = {**deltas, "entities": entities}
        out.append(frame)
    return out
