"""Golden frames: a small seeded world played for 30 ticks, its keyframe, every delta frame after
it and the state they make, committed in tests/golden/frames/ so the builder, the replay's
applier (app/replay/apply.py) and the browser's (app/static/js/frames.js) are held to the same
frames.

The 30 ticks show every kind of delta: characters moving and gathering (a tree felled: a tile
changes), a sheep killed (removed, loot), a wall and a floor placed (structures), meat dropped
(loot), a character entering a dungeon and leaving it (an area opened and closed with its
creatures), one joining, and the clock at tick 60 (time).

    python tests/golden/golden_frames.py     # rewrite tests/golden/frames/ from the builder

Run it when a frame's format or the world's play changes on purpose, and commit what it writes
(with app/frames_schema.json and docs/frames.md when the format changed).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from asiworld.engine import World
from asiworld.engine.frames import FrameBuilder
from asiworld.engine.model import SURFACE

FOLDER = Path(__file__).resolve().parent / "frames"
SEED, SIZE = 3, 48
START, TICKS = 30, 30  # the keyframe's tick and how many deltas follow (ends on a clock tick)


def _plain(value: Any) -> Any:
    """As JSON delivers it (tuples become lists)."""
    return json.loads(json.dumps(value))


def _setup() -> tuple[World, dict[int, list[dict]]]:
    """The world at START, set up directly, and each character's actions in order."""
    world = World.create(seed=SEED, size=SIZE)
    ada = world.entities[world.add_character("ada", label="golden")]
    bo = world.entities[world.add_character("bo", label="golden")]
    for _ in range(START):
        world.step()
    area = world.areas[SURFACE]
    world.move_entity(ada, *world.free_tile_near(SURFACE, (ada.x + 8, ada.y)), SURFACE)
    ada.inventory += [["wall", 1], ["floor", 1], ["wooden_sword", 1], ["raw_meat", 1]]
    tree = (ada.x + 1, ada.y)
    world.set_tile(area, *tree, "tree")
    area.amount[tree[1], tree[0]] = 1  # one gather fells it
    sheep = world.add_creature("sheep", SURFACE, world.free_tile_near(SURFACE, (ada.x, ada.y - 1), 1))
    sheep.next_move = 10**6  # it stands still to be caught
    world.move_entity(bo, *world.landmarks.gates[0], SURFACE)
    plans = {
        ada.id: [{"type": "equip", "item": "wooden_sword"}]
        + [{"type": "attack", "target": sheep.id}] * 3
        + [{"type": "gather", "x": tree[0], "y": tree[1]},
           {"type": "place", "item": "wall", "x": ada.x, "y": ada.y + 1},
           {"type": "place", "item": "floor", "x": ada.x - 1, "y": ada.y},
           {"type": "drop", "item": "raw_meat", "count": 1},
           {"type": "say", "text": "hello"}],
        bo.id: [{"type": "enter"}, {"type": "wait", "ticks": 5}, {"type": "leave"}],
    }
    return world, plans


def play() -> tuple[dict, list[dict], dict]:
    """(keyframe frame, delta frames, the state they make), JSON-ready. The state is a fresh
    keyframe of the world at the end, with its tick: what applying the frames must give."""
    world, plans = _setup()
    builder = FrameBuilder(world)
    keyframe = _plain(builder.keyframe())
    deltas = []
    for step in range(TICKS):
        if step == 12:
            world.add_character("cy", label="golden")
        for cid, plan in plans.items():
            if world.entities[cid].op is None and plan:
                result = world.submit(cid, plan[0])
                if result.ok or result.code != "cooldown":  # a blow waits for the cooldown
                    assert result.ok, (plan[0], result)
                    plan.pop(0)
        deltas.append(_plain(builder.frame(world.step())))
    assert not any(plans.values()), plans
    state = {"tick": world.tick, **_plain(FrameBuilder(world).keyframe()["keyframe"])}
    return keyframe, deltas, state


def read(folder: Path = FOLDER) -> tuple[dict, list[dict], dict]:
    """The committed goldens: (keyframe frame, delta frames, expected state)."""
    load = lambda name: json.loads((folder / name).read_text(encoding="utf-8"))  # noqa: E731
    return load("keyframe.json"), load("deltas.json"), load("state.json")


def write(folder: Path = FOLDER) -> None:
    keyframe, deltas, state = play()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "keyframe.json").write_text(json.dumps(keyframe, indent=1) + "\n", encoding="utf-8")
    # one delta frame a line: a change in the builder shows as the frames it touched
    lines = ",\n".join(json.dumps(frame) for frame in deltas)
    (folder / "deltas.json").write_text(f"[\n{lines}\n]\n", encoding="utf-8")
    (folder / "state.json").write_text(json.dumps(state, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else FOLDER)
    print(f"wrote {FOLDER if len(sys.argv) < 2 else sys.argv[1]}")
