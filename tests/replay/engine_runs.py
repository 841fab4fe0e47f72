"""Small seeded real runs for the replay tests: a 48-tile world (the smallest the engine makes)
whose characters a seeded policy keeps busy walking and gathering."""

from __future__ import annotations

import random

from asiworld.engine import World
from asiworld.engine.frames import FrameBuilder
from asiworld.replay import Recorder

SIZE = 48
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def busy_action(rng: random.Random, world: World, cid: int) -> dict:
    """A walk or a gather next to the character: busy play for recording tests."""
    ent = world.entities[cid]
    if rng.random() < 0.5:
        return {"type": "move_to", "x": ent.x + rng.randint(-6, 6), "y": ent.y + rng.randint(-6, 6)}
    dx, dy = rng.choice(STEPS)
    return {"type": "gather", "x": ent.x + dx, "y": ent.y + dy}


def walk_inputs(rng: random.Random, world: World, chars: list[int]) -> list[tuple[int, dict]]:
    """One tick's inputs: about half the characters take a step (a `move`, so a test can turn
    one around), a tenth gather next to themselves, the rest carry on."""
    inputs = []
    for cid in chars:
        roll = rng.random()
        if roll < 0.5:
            inputs.append((cid, {"type": "move", "dir": rng.choice("nsew")}))
        elif roll < 0.6:
            ent = world.entities[cid]
            dx, dy = rng.choice(STEPS)
            inputs.append((cid, {"type": "gather", "x": ent.x + dx, "y": ent.y + dy}))
    return inputs


def new_world(seed: int, characters: int = 3, size: int = SIZE) -> tuple[World, list[int]]:
    world = World.create(seed=seed, size=size)
    return world, [world.add_character(f"c{i}", "test") for i in range(characters)]


def record_engine_run(
    recorder: Recorder, seed: int = 3, ticks: int = 400, characters: int = 3, size: int = SIZE
) -> tuple[list[dict], dict[int, str]]:
    """Run a real world for `ticks` ticks, recording every frame, its input-log rows and the
    hashes the recorder asks for; returns (frames, hashes) as the world gave them."""
    world, chars = new_world(seed, characters, size)
    frames_of = FrameBuilder(world)
    frames = [frames_of.keyframe()]
    hashes: dict[int, str] = {}
    recorder.record(frames[0], world.inputs_since(0))
    logged = world.input_log_end
    rng = random.Random(seed)
    for _ in range(ticks):
        for cid, action in walk_inputs(rng, world, chars):
            world.submit(cid, action)
        events = world.step()
        frame = frames_of.frame(events)
        digest = world.state_hash() if recorder.wants_hash(world.tick) else None
        if digest is not None:
            hashes[world.tick] = digest
        recorder.record(frame, world.inputs_since(logged), events, hash=digest)
        logged = world.input_log_end
        frames.append(frame)
    return frames, hashes
