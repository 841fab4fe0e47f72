"""A tiny stand-in for the engine, following docs/engine-interface.md, for server tests that
must control exactly what exists where (e.g. a sheep far outside a player's view)."""

from __future__ import annotations

import base64
import copy
from dataclasses import asdict, dataclass

LEGEND = {0: "grass", 1: "tree", 2: "water"}
CHARS = {0: ".", 1: "T", 2: "~"}
STEPS = {"n": (0, -1), "s": (0, 1), "e": (1, 0), "w": (-1, 0)}


@dataclass(frozen=True)
class ActionResult:
    ok: bool
    code: str
    message: str
    op: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)


class FakeWorld:
    size = 32
    radius = 4

    def __init__(self) -> None:
        self.tick = 0
        self.tiles = [[0] * self.size for _ in range(self.size)]
        for y in range(4, 8):
            self.tiles[y][12] = 1  # a short line of trees east of spawn
        self.entities: dict[int, dict] = {
            1: {
                "id": 1,
                "kind": "sheep",
                "x": 28,
                "y": 28,
                "area": 0,
                "health": 10,
                "max_health": 10,
            },
        }
        self.pending: dict[int, dict] = {}
        self.events: list[dict] = []
        self.unread: dict[int, list[dict]] = {}
        self.next_id = 2
        self.next_op = 1
        self.input_log: list = []

    def add_character(self, name: str, label: str = "") -> int:
        cid = self.next_id
        self.next_id += 1
        self.entities[cid] = {
            "id": cid,
            "kind": "character",
            "x": 10,
            "y": 5,
            "area": 0,
            "health": 100,
            "max_health": 100,
            "name": name,
            "label": label,
            "hunger": 100,
            "energy": 100,
            "coins": 0,
            "inventory": [],
            "equipment": {},
            "action": None,
            "asleep": False,
            "down": False,
        }
        self.unread[cid] = []
        self.events.append(
            {
                "tick": self.tick,
                "kind": "joined",
                "char": cid,
                "name": name,
                "label": label,
                "x": 10,
                "y": 5,
            }
        )
        return cid

    def submit(self, cid: int, action: dict) -> ActionResult:
        if cid not in self.entities:
            return ActionResult(False, "unknown_character", f"there is no character {cid}")
        me = self.entities[cid]
        kind = action.get("type")
        if kind == "move":
            if action.get("dir") not in STEPS:
                return ActionResult(False, "bad_argument", "move needs dir: n, s, e or w")
            dx, dy = STEPS[action["dir"]]
            x, y = me["x"] + dx, me["y"] + dy
            if not (0 <= x < self.size and 0 <= y < self.size):
                return ActionResult(False, "out_of_bounds", "cannot move off the map")
            if self.tiles[y][x] == 1:
                return ActionResult(False, "blocked", f"cannot move {action['dir']}: a tree")
        elif kind == "gather":
            x, y = action.get("x"), action.get("y")
            if not isinstance(x, int) or not isinstance(y, int):
                return ActionResult(False, "bad_argument", "gather needs x and y")
            if abs(x - me["x"]) + abs(y - me["y"]) != 1:
                return ActionResult(False, "not_adjacent", "cannot gather: not adjacent")
            if self.tiles[y][x] != 1:
                return ActionResult(False, "nothing_to_gather", "cannot gather: nothing here")
        else:
            return ActionResult(False, "unknown_action", f"unknown action {kind!r}")
        op = self.next_op
        self.next_op += 1
        self.pending[cid] = dict(action, op=op)
        return ActionResult(True, "accepted", "ok", op)

    def step(self, inputs=None) -> list[dict]:
        for cid, action in inputs or []:
            self.submit(cid, action)
        events, self.events = self.events, []
        for cid, action in sorted(self.pending.items()):
            me = self.entities[cid]
            if action["type"] == "move":
                dx, dy = STEPS[action["dir"]]
                me["x"] += dx
                me["y"] += dy
            else:
                me["inventory"] = [
                    {"item": "wood", "count": 1 + sum(i["count"] for i in me["inventory"])}
                ]
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
        self.pending.clear()
        self.tick += 1
        for event in events:
            if "char" in event and event["char"] in self.unread:
                self.unread[event["char"]].append(event)
        return events

    def _visible(self, me: dict, x: int, y: int) -> bool:
        return abs(x - me["x"]) <= self.radius and abs(y - me["y"]) <= self.radius

    def observe(self, cid: int, full_memory: bool = False, consume: bool = True) -> dict:
        if cid not in self.entities or self.entities[cid]["kind"] != "character":
            raise KeyError(cid)
        me = self.entities[cid]
        r = self.radius
        x0, y0 = me["x"] - r, me["y"] - r
        rows = []
        for y in range(y0, y0 + 2 * r + 1):
            rows.append(
                "".join(
                    CHARS[self.tiles[y][x]] if 0 <= x < self.size and 0 <= y < self.size else " "
                    for x in range(x0, x0 + 2 * r + 1)
                )
            )
        events = self.unread[cid]
        if consume:
            self.unread[cid] = []
        obs = {
            "tick": self.tick,
            "time": {"day": 1, "minute": self.tick // 60, "phase": "day", "ticks_to_dawn": 0},
            "self": {k: copy.deepcopy(v) for k, v in me.items() if k != "kind"}
            | {"home_area": 0, "usable_bed": False},
            "view": {
                "radius": r,
                "x0": x0,
                "y0": y0,
                "w": 2 * r + 1,
                "h": 2 * r + 1,
                "tiles": rows,
                "legend": {c: LEGEND[k] for k, c in CHARS.items()},
            },
            "entities": [
                dict(e)
                for i, e in sorted(self.entities.items())
                if i != cid and self._visible(me, e["x"], e["y"])
            ],
            "structures": [],
            "loot": [],
            "events": events,
            "memory": {"seen_tiles": (2 * r + 1) ** 2, "entities": []},
        }
        if full_memory:
            obs["memory"]["tiles"] = [
                "".join(
                    CHARS[self.tiles[y][x]] if self._visible(me, x, y) else " "
                    for x in range(self.size)
                )
                for y in range(self.size)
            ]
            obs["memory"]["ticks"] = []
        return obs


class FakeFrameBuilder:
    def __init__(self, world: FakeWorld) -> None:
        self.world = world
        self.last = copy.deepcopy(world.entities)

    def keyframe(self) -> dict:
        w = self.world
        self.last = copy.deepcopy(w.entities)
        tiles = bytes(code for row in w.tiles for code in row)
        return {
            "tick": w.tick,
            "keyframe": {
                "width": w.size,
                "height": w.size,
                "areas": {
                    "0": {
                        "kind": "surface",
                        "w": w.size,
                        "h": w.size,
                        "tiles": base64.b64encode(tiles).decode(),
                        "floor": base64.b64encode(bytes(len(tiles))).decode(),
                    }
                },
                "entities": copy.deepcopy(w.entities),
                "structures": [],
                "loot": [],
                "time": {"day": 1, "minute": 0, "phase": "day"},
                "legend": {str(k): v for k, v in LEGEND.items()},
            },
            "deltas": {},
            "events": [],
        }

    def frame(self, events: list[dict]) -> dict:
        now = self.world.entities
        changed = {i: copy.deepcopy(e) for i, e in now.items() if self.last.get(i) != e}
        self.last = copy.deepcopy(now)
        return {"tick": self.world.tick, "deltas": {"entities": changed}, "events": events}


def fake_world(config: dict) -> tuple[FakeWorld, FakeFrameBuilder]:
    world = FakeWorld()
    return world, FakeFrameBuilder(world)
