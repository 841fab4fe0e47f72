"""Frames hold to their schema (app/frames_schema.json): every frame the builder emits over a few
hundred ticks of a seeded world, and the sample replays' recorded frames, validate; a frame with a
field missing, of the wrong type or unknown is refused, at that field; and docs/frames.md's
tables are what `asiworld.frames_doc` writes from the schema."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from asiworld import frames_doc
from asiworld.agents.bots.builtin import make_agent
from asiworld.engine import World
from asiworld.engine.frames import FrameBuilder
from asiworld.frames_schema import schema
from asiworld.replay import Replay
from jsonschema import Draft202012Validator

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "frames.md"
GOLDEN = REPO / "tests" / "golden" / "frames"
VALIDATOR = Draft202012Validator(schema())


def problems(frame: dict) -> list[str]:
    """Where and why the frame, as JSON delivers it, breaks the schema ([] when it holds)."""
    plain = json.loads(json.dumps(frame))
    return [f"{e.json_path}: {e.message}" for e in VALIDATOR.iter_errors(plain)]


def test_the_schema_is_a_valid_draft_2020_12_schema():
    Draft202012Validator.check_schema(schema())


def test_every_frame_of_a_seeded_world_holds_to_the_schema():
    world = World.create(seed=3, size=48)
    agents = {world.add_character(f"{name}{i}", label=name): make_agent(name, seed=i)
              for i, name in enumerate(["rusher", "planner", "builder", "reckless"])}
    builder = FrameBuilder(world)
    frames = [builder.keyframe()]
    for _ in range(400):
        if world.tick % 3 == 0:
            for cid, agent in agents.items():
                action = agent.decide(world.observe(cid))
                if action is not None and action.get("type") != "program":
                    world.submit(cid, action)
        frames.append(builder.frame(world.step()))
    found = {frame["tick"]: problems(frame) for frame in frames}
    assert {tick: said for tick, said in found.items() if said} == {}
    shown = {key for frame in frames for key in frame["deltas"]}
    assert {"entities", "tiles", "structures", "removed", "areas", "time"} <= shown, shown


def test_the_sample_replays_recorded_frames_hold_to_the_schema():
    """What a replay stores and hands back (chunks unpacked, a seek's keyframe rebuilt by
    replay/apply.py) is the builder's format too."""
    with Replay.open(REPO / "replays" / "three-configurations-30min.asirep") as replay:
        frames = [replay.frame_at(replay.first_tick + 600),
                  *replay.frames(replay.first_tick, replay.first_tick + 120)]
    assert len(frames) > 120
    assert [p for frame in frames for p in problems(frame)] == []


def golden_keyframe() -> dict:
    return json.loads((GOLDEN / "keyframe.json").read_text(encoding="utf-8"))


def golden_delta(tick: int) -> dict:
    deltas = json.loads((GOLDEN / "deltas.json").read_text(encoding="utf-8"))
    return next(frame for frame in deltas if frame["tick"] == tick)


def first_character(frame: dict) -> dict:
    entities = (frame.get("keyframe") or frame["deltas"])["entities"]
    return next(e for e in entities.values() if e["kind"] == "character")


def first_creature(frame: dict) -> dict:
    entities = (frame.get("keyframe") or frame["deltas"])["entities"]
    return next(e for e in entities.values() if e["kind"] != "character")


# Each bad input tried: a name, how it breaks a golden frame (a delta: of which tick), and where
# the schema must refuse it (the start of the field's path, words of the complaint).
BROKEN = [
    ("frame without tick", lambda f: f.pop("tick"), ("$", "'tick' is a required")),
    ("tick as a string", lambda f: f.update(tick="30"), ("$.tick", "not of type 'integer'")),
    ("events not a list", lambda f: f.update(events={}), ("$.events", "not of type 'array'")),
    ("event without kind", lambda f: f["events"].append({"tick": 30}), ("$.events[0]", "'kind' is a required")),
    ("keyframe without legend", lambda f: f["keyframe"].pop("legend"), ("$.keyframe", "'legend' is a required")),
    ("unknown keyframe field", lambda f: f["keyframe"].update(weather="rain"),
     ("$.keyframe", "'weather' was unexpected")),
    ("area kind unknown", lambda f: f["keyframe"]["areas"]["0"].update(kind="cave"),
     ("$.keyframe.areas['0'].kind", "not one of")),
    ("area tiles not base64", lambda f: f["keyframe"]["areas"]["0"].update(tiles="no tiles!"),
     ("$.keyframe.areas['0'].tiles", "does not match")),
    ("entity id key not a number", lambda f: f["keyframe"]["entities"].update(
        ada=first_character(f)), ("$.keyframe.entities", "'ada' does not match")),
    ("character without x", lambda f: first_character(f).pop("x"),
     ("$.keyframe.entities[", "'x' is a required")),
    ("character without inventory", lambda f: first_character(f).pop("inventory"),
     ("$.keyframe.entities[", "'inventory' is a required")),
    ("health as a float", lambda f: first_character(f).update(health=9.5),
     ("$.keyframe.entities[", ".health: 9.5 is not of type 'integer'")),
    ("inventory count zero", lambda f: first_character(f)["inventory"].append(
        {"item": "wood", "count": 0}), ("$.keyframe.entities[", ".count: 0 is less than")),
    ("unknown equipment slot", lambda f: first_character(f)["equipment"].update(hat="cap"),
     ("$.keyframe.entities[", "'hat' was unexpected")),
    ("asleep as 0", lambda f: first_character(f).update(asleep=0),
     ("$.keyframe.entities[", ".asleep: 0 is not of type 'boolean'")),
    ("creature with a character's field", lambda f: first_creature(f).update(coins=3),
     ("$.keyframe.entities[", "'coins' was unexpected")),
    ("phase on a creature that is no boss", lambda f: first_creature(f).update(phase=1),
     ("$.keyframe.entities[", "should not be valid under {'required': ['phase']}")),
    ("time phase dusk", lambda f: f["keyframe"]["time"].update(phase="dusk"),
     ("$.keyframe.time.phase", "not one of")),
    ("gate not a pair", lambda f: f["keyframe"]["landmarks"]["gates"].append([1, 2, 3]),
     ("$.keyframe.landmarks.gates[", "at most 2 items")),
]
BROKEN_DELTAS = [
    ("unknown delta key", lambda f: f["deltas"].update(entity={}), 42,
     ("$.deltas", "'entity' was unexpected")),
    ("tile change of three numbers", lambda f: f["deltas"]["tiles"].append([0, 1, 2]), 42,
     ("$.deltas.tiles[", "is too short")),
    ("removed id as a string", lambda f: f["deltas"]["removed"].append("57"), 36,
     ("$.deltas.removed[", "not of type 'integer'")),
    ("loot count as a string", lambda f: f["deltas"]["loot"][0]["items"].update(wood="2"), 45,
     ("$.deltas.loot[0].items.wood", "not of type 'integer'")),
    ("floor with a lock", lambda f: next(s for s in f["deltas"]["structures"]
                                         if s["kind"] == "floor").update(has_lock=False), 44,
     ("$.deltas.structures[", "False schema does not allow")),
    ("wall without locked", lambda f: next(s for s in f["deltas"]["structures"]
                                           if s["kind"] != "floor").pop("locked"), 44,
     ("$.deltas.structures[", "'locked' is a required")),
    ("boss without its phase", lambda f: next(e for e in f["deltas"]["entities"].values()
                                              if e.get("boss")).pop("phase"), 31,
     ("$.deltas.entities[", "'phase' is a required")),
]


def test_the_golden_frames_it_breaks_hold_to_the_schema_whole():
    assert problems(golden_keyframe()) == []
    assert all(problems(golden_delta(tick)) == [] for _, _, tick, _ in BROKEN_DELTAS)


@pytest.mark.parametrize("name, breaks, where", BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_keyframe_is_refused_at_its_field(name, breaks, where):
    frame = golden_keyframe()
    breaks(frame)
    found = problems(frame)
    assert found, f"{name}: accepted"
    path, says = where
    assert any(p.startswith(path) and says in p for p in found), found


@pytest.mark.parametrize("name, breaks, tick, where", BROKEN_DELTAS,
                         ids=[b[0] for b in BROKEN_DELTAS])
def test_a_broken_delta_is_refused_at_its_field(name, breaks, tick, where):
    frame = copy.deepcopy(golden_delta(tick))
    breaks(frame)
    found = problems(frame)
    assert found, f"{name}: accepted"
    path, says = where
    assert any(p.startswith(path) and says in p for p in found), found


def test_the_frames_page_tables_are_the_schemas():
    page = PAGE.read_text(encoding="utf-8")
    assert frames_doc.BLOCK.search(page), "docs/frames.md has no <!-- frames:tables --> block"
    assert frames_doc.render(page) == page, "run: python -m asiworld.frames_doc docs/frames.md"


def test_every_field_of_the_schema_is_on_the_page():
    page = PAGE.read_text(encoding="utf-8")
    for name, node in schema()["$defs"].items():
        assert f"### {node['title']}\n" in page, name
        for field, prop in node.get("properties", {}).items():
            if set(prop) != {"not"}:
                assert f"| `{field}` |" in page, f"{name}.{field}"


def test_a_changed_meaning_in_the_schema_shows_in_the_page(monkeypatch):
    changed = schema()
    changed["$defs"]["time"]["properties"]["day"]["description"] = "the day, counted in moons"
    monkeypatch.setattr(frames_doc, "schema", lambda: changed)
    assert "| `day` | integer | yes | the day, counted in moons |" in frames_doc.render(
        PAGE.read_text(encoding="utf-8"))
