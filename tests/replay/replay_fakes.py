"""A small deterministic stand-in world that follows docs/engine-interface.md.

It has the contract's shape (World.create/add_character/submit/step/state_hash/input_log and a
FrameBuilder with keyframe()/frame(events)) so the replay layer can be tested without the engine.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
from dataclasses import dataclass

LEGEND = {"0": "grass", "1": "tree", "2": "rock", "3": "water", "4": "sand"}
DIRS = {"n": (0, -1), "s": (0, 1), "e": (1, 0), "w": (-1, 0)}


@dataclass(frozen=True)
class ActionResult:
    ok: bool
    code: str
    message: str
    op: int | None = None


class FakeWorld:
    def __init__(self, seed: int, size: int) -> None:
        self.seed = seed
        self.size = size
        self.rng = random.Random(seed)
        self.tiles = bytearray(
            self.rng.choice((0, 0, 0, 1, 1, 2, 3, 4)) for _ in range(size * size)
        )
        self.tick = 0
        self.entities: dict[int, dict] = {}
        self.next_id = 1
        self.queue: list[tuple[int, dict]] = []
        self.input_log: list[tuple[int, int | None, dict]] = []
        self.changed_tiles: list[list[int]] = []
        self.changed_entities: set[int] = set()
        self.removed: list[int] = []
        self.next_op = 1
        for _ in range(6):
            self._spawn("sheep")

    @classmethod
    def create(cls, seed: int, content: object = None, size: int = 32) -> FakeWorld:
        return cls(seed, size)

    def _spawn(self, kind: str) -> int:
        eid = self.next_id
        self.next_id += 1
        x, y = self.rng.randrange(self.size), self.rng.randrange(self.size)
        self.entities[eid] = {
            "id": eid,
            "kind": kind,
            "x": x,
            "y": y,
            "area": 0,
            "health": 10,
            "max_health": 10,
        }
        self.changed_entities.add(eid)
        return eid

    def add_character(self, name: str, label: str = "") -> int:
        cid = self._spawn("character")
        self.entities[cid].update(
            name=name, label=label, health=100, max_health=100, hunger=100, coins=0, inventory=[]
        )
        self.input_log.append(
            (self.tick, None, {"type": "join", "name": name, "label": label, "id": cid})
        )
        return cid

    def submit(self, cid: int, action: dict) -> ActionResult:
        if cid not in self.entities or self.entities[cid]["kind"] != "character":
            return ActionResult(False, "unknown_character", f"no character {cid}")
        if action.get("type") not in ("move", "gather", "wait"):
            return ActionResult(False, "unknown_action", f"unknown action {action.get('type')!r}")
        if action["type"] == "move" and action.get("dir") not in DIRS:
            return ActionResult(False, "bad_argument", "dir must be n, s, e or w")
        self.queue.append((cid, dict(action)))
        self.input_log.append((self.tick, cid, dict(action)))
        op = self.next_op
        self.next_op += 1
        return ActionResult(True, "accepted", "ok", op)

    def step(self, inputs: list | None = None) -> list[dict]:
        for cid, action in inputs or ():
            self.submit(cid, action)
        self.tick += 1
        events: list[dict] = []
        for cid, action in self.queue:
            ent = self.entities[cid]
            events.append(
                {"tick": self.tick, "kind": "action", "char": cid, "type": action["type"]}
            )
            if action["type"] == "move":
                dx, dy = DIRS[action["dir"]]
                ent["x"] = min(self.size - 1, max(0, ent["x"] + dx))
                ent["y"] = min(self.size - 1, max(0, ent["y"] + dy))
            elif action["type"] == "gather":
                i = ent["y"] * self.size + ent["x"]
                if self.tiles[i] == 1:
                    self.tiles[i] = 0
                    self.changed_tiles.append([0, ent["x"], ent["y"], 0])
                    ent["inventory"] = ent["inventory"] + [{"item": "wood", "count": 1}]
                    events.append(
                        {
                            "tick": self.tick,
                            "kind": "gathered",
                            "char": cid,
                            "item": "wood",
                            "count": 1,
                            "source": "tree",
                        }
                    )
            self.changed_entities.add(cid)
        self.queue = []
        for eid in sorted(self.entities):
            ent = self.entities[eid]
            if ent["kind"] == "sheep" and self.rng.random() < 0.3:
                dx, dy = self.rng.choice(list(DIRS.values()))
                ent["x"] = min(self.size - 1, max(0, ent["x"] + dx))
                ent["y"] = min(self.size - 1, max(0, ent["y"] + dy))
                self.changed_entities.add(eid)
        if self.tick % 97 == 0:  # sheep come and go, so frames carry removals
            sheep = [e for e in sorted(self.entities) if self.entities[e]["kind"] == "sheep"]
            gone = sheep[0]
            del self.entities[gone]
            self.changed_entities.discard(gone)
            self.removed.append(gone)
            self._spawn("sheep")
        return events

    def time(self) -> dict:
        minute = self.tick // 60
        return {
            "day": minute // 30 + 1,
            "minute": minute % 30,
            "phase": "day" if minute % 30 < 20 else "night",
        }

    def state_hash(self) -> str:
        blob = json.dumps(
            [self.tick, self.tiles.hex(), sorted(self.entities.items()), self.rng.getstate()[1][:4]]
        )
        return hashlib.sha1(blob.encode()).hexdigest()[:16]


class FakeFrameBuilder:
    def __init__(self, world: FakeWorld) -> None:
        self.world = world

    def _reset(self) -> None:
        self.world.changed_tiles, self.world.changed_entities, self.world.removed = [], set(), []

    def keyframe(self, events: list | None = None) -> dict:
        w = self.world
        self._reset()
        body = {
            "width": w.size,
            "height": w.size,
            "areas": {
                "0": {
                    "kind": "surface",
                    "w": w.size,
                    "h": w.size,
                    "tiles": base64.b64encode(bytes(w.tiles)).decode(),
                }
            },
            "entities": {str(i): dict(e) for i, e in sorted(w.entities.items())},
            "structures": [],
            "loot": [],
            "time": w.time(),
            "legend": LEGEND,
        }
        return {"tick": w.tick, "keyframe": body, "deltas": {}, "events": list(events or [])}

    def frame(self, events: list) -> dict:
        w = self.world
        deltas: dict = {"time": w.time()}
        if w.changed_tiles:
            deltas["tiles"] = w.changed_tiles
        changed = {
            str(i): dict(w.entities[i]) for i in sorted(w.changed_entities) if i in w.entities
        }
        if changed:
            deltas["entities"] = changed
        if w.removed:
            deltas["removed"] = w.removed
        self._reset()
        return {"tick": w.tick, "deltas": deltas, "events": events}


def play(world: FakeWorld, ticks: int, chars: list[int], seed: int = 1) -> list[tuple]:
    """Drive characters with a seeded policy; yields nothing, returns [(frame-producing inputs)]."""
    rng = random.Random(seed)
    plan = []
    for _ in range(ticks):
        inputs = []
        for cid in chars:
            r = rng.random()
            if r < 0.5:
                inputs.append((cid, {"type": "move", "dir": rng.choice("nsew")}))
            elif r < 0.6:
                inputs.append((cid, {"type": "gather"}))
        plan.append(inputs)
    return plan


def record_fake_run(recorder, seed: int = 3, ticks: int = 400, characters: int = 3, size: int = 32):
    """Run the fake world for `ticks` ticks, recording every frame; returns (frames, hashes)."""
    world = FakeWorld.create(seed, size=size)
    fb = FakeFrameBuilder(world)
    chars = [world.add_character(f"c{i}", "test") for i in range(characters)]
    frames = [fb.keyframe()]
    hashes: dict[int, str] = {}
    logged = 0
    recorder.record(frames[0], world.input_log[logged:])
    logged = len(world.input_log)
    for inputs in play(world, ticks, chars, seed):
        for cid, action in inputs:
            world.submit(cid, action)
        events = world.step()
        frame = fb.frame(events)
        h = world.state_hash() if recorder.wants_hash(world.tick) else None
        if h is not None:
            hashes[world.tick] = h
        recorder.record(frame, world.input_log[logged:], events, hash=h)
        logged = len(world.input_log)
        frames.append(frame)
    return frames, hashes


def busy_action(rng: random.Random, world, cid: int) -> dict:
    """A walk or a gather next to the character: busy play for recording tests (any world whose
    entities have x and y, the engine's too)."""
    ent = world.entities[cid]
    if rng.random() < 0.5:
        return {"type": "move_to", "x": ent.x + rng.randint(-6, 6), "y": ent.y + rng.randint(-6, 6)}
    dx, dy = rng.choice(((1, 0), (-1, 0), (0, 1), (0, -1)))
    return {"type": "gather", "x": ent.x + dx, "y": ent.y + dy}
