"""The golden frames (tests/golden/frames/, written by golden_frames.py): the builder still emits
exactly them, they hold to the schema and show every kind of delta, and the replay's applier
(app/replay/apply.py) turns them into the state they make. The browser's applier is held to the
same files in e2e/test_frames_golden.py."""

from __future__ import annotations

from typing import Any

from asiworld.frames_schema import schema
from asiworld.replay.apply import apply_frame, encode_keyframe
from golden_frames import play, read
from jsonschema import Draft202012Validator

REGOLD = "python tests/golden/golden_frames.py"


def first_difference(expected: Any, actual: Any, path: str = "$") -> str | None:
    """Where two JSON values first differ (None when equal)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in [*expected, *(k for k in actual if k not in expected)]:
            if key not in expected or key not in actual:
                return f"{path}.{key}: only in the {'goldens' if key in expected else 'builder'}"
            found = first_difference(expected[key], actual[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
            found = first_difference(e, a, f"{path}[{i}]")
            if found:
                return found
        if len(expected) != len(actual):
            return f"{path}: {len(expected)} items in the goldens, {len(actual)} from the builder"
        return None
    return None if expected == actual else f"{path}: goldens {expected!r}, builder {actual!r}"


def test_the_builder_still_emits_the_golden_frames():
    """A change to the frame format (or to how this world plays) is a deliberate act: it fails
    here until the goldens are written again, and the schema and docs/frames.md with them."""
    golden, built = read(), play()
    for name, expected, actual in zip(("keyframe", "deltas", "state"), golden, built, strict=True):
        found = first_difference(expected, actual)
        assert found is None, f"{name} {found}; if meant, run: {REGOLD}"


def test_the_golden_frames_hold_to_the_schema():
    validator = Draft202012Validator(schema())
    keyframe, deltas, _ = read()
    for frame in [keyframe, *deltas]:
        assert [e.message for e in validator.iter_errors(frame)] == [], frame["tick"]


def test_the_golden_frames_show_every_kind_of_delta_and_entity():
    keyframe, deltas, _ = read()
    assert "keyframe" in keyframe and all("keyframe" not in frame for frame in deltas)
    assert [f["tick"] for f in deltas] == list(range(keyframe["tick"] + 1, deltas[-1]["tick"] + 1))
    shown = {key for frame in deltas for key in frame["deltas"]}
    assert shown == set(schema()["$defs"]["deltas"]["properties"])
    entities = [e for f in deltas for e in f["deltas"].get("entities", {}).values()]
    assert {"character", "sheep"} <= {e["kind"] for e in entities}
    assert any(e.get("boss") for e in entities)  # a dungeon's boss, with its phase
    structures = [s["kind"] for f in deltas for s in f["deltas"].get("structures", [])]
    assert {"floor", "wall"} <= set(structures)
    joined = {e["char"] for f in deltas for e in f["events"] if e["kind"] == "joined"}
    assert joined and all(str(c) not in keyframe["keyframe"]["entities"] for c in joined)


def test_applying_the_golden_frames_gives_the_state_they_make():
    keyframe, deltas, expected = read()
    state = apply_frame(None, keyframe)
    for frame in deltas:
        state = apply_frame(state, frame)
    assert {"tick": state["tick"], **encode_keyframe(state)} == expected


def test_the_keyframe_alone_is_not_the_state_they_make():
    """The deltas matter: the state after them differs from the keyframe in every part a delta
    touched, so the applier test above cannot pass by ignoring them."""
    keyframe, _, expected = read()
    before = {"tick": keyframe["tick"], **keyframe["keyframe"]}
    differ = {key for key in expected if before[key] != expected[key]}
    assert differ == {"tick", "areas", "entities", "structures", "loot", "time"}
