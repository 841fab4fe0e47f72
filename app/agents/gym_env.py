"""Gymnasium environment: one character in a headless world (no server), for RL policies.

Observation (a Dict of arrays, from the character's own observation only):
- `tiles`: WINDOW x WINDOW uint8 terrain codes around the character (index into TILE_NAMES;
  0 = not visible), the character in the centre
- `entities`: WINDOW x WINDOW uint8 (0 none, 1 character, 2 hostile creature, 3 other creature)
- `stats`: float32 [health, hunger, energy, coins, asleep, down, in_dungeon, phase, has_action]
- `inventory`: float32 count per item of the content (ITEM order = sorted item names)

`info["text"]` holds the text observation (the one language models get) and `info["result"]`
the world's answer to the step's action. Actions are a Discrete set of common moves
(ACTIONS); `env.act(action_dict)` sends any action as JSON and `env.submit_program(name,
source)` hosts a program (both then need `step(NOOP)` to let time pass).

Reward: +0.1 per item gathered, +1 per item crafted, +1 per creature killed, -0.01 per point of
damage taken, -5 per knockdown. An episode is truncated after `max_ticks`; it never terminates
(a knocked-down character wakes again, as in the live world).
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import gymnasium as gym
    from gymnasium import spaces
except ImportError as err:  # pragma: no cover - optional dependency
    raise ImportError("the Gymnasium environment needs `pip install asiworld[agents]`") from err

WINDOW = 17
SOURCES = "T#cifb"
WALKABLE = ".,_=123:EoO;"
PHASES = ("day", "dusk", "night", "dawn")
CRAFTS = ("wooden_pickaxe", "wooden_sword", "stone_pickaxe", "stone_sword", "torch", "cloth")
STEPS = {"n": (0, -1), "s": (0, 1), "e": (1, 0), "w": (-1, 0)}

# The discrete actions, in order. "noop" lets the ongoing operation run.
ACTIONS: tuple[str, ...] = (
    "noop",
    "move_n",
    "move_s",
    "move_e",
    "move_w",
    "gather_nearest",
    "eat",
    "attack_nearest",
    "sleep",
    "wake",
    "wait",
    *(f"craft_{recipe}" for recipe in CRAFTS),
)
NOOP = 0
STAT_HIGH = 1e6


def _content() -> Any:
    from asiworld.engine import load_content

    return load_content()


class Encoder:
    """Turns one character's observation dict into the arrays and a Discrete index into an
    action dict. Shared by the Gymnasium and the PettingZoo environments."""

    def __init__(self, content: Any) -> None:
        self.tile_index = {ch: i + 1 for i, ch in enumerate(sorted(content.legend()))}
        self.items = sorted(content.items)
        self.item_index = {name: i for i, name in enumerate(self.items)}
        self.food = [n for n in self.items if content.items[n].get("category") == "food"]

    def space(self) -> spaces.Dict:
        n_codes = len(self.tile_index) + 1
        return spaces.Dict(
            {
                "tiles": spaces.Box(0, n_codes, (WINDOW, WINDOW), np.uint8),
                "entities": spaces.Box(0, 3, (WINDOW, WINDOW), np.uint8),
                "stats": spaces.Box(0.0, STAT_HIGH, (9,), np.float32),
                "inventory": spaces.Box(0.0, STAT_HIGH, (len(self.items),), np.float32),
            }
        )

    def encode(self, obs: dict) -> dict[str, np.ndarray]:
        me, view = obs["self"], obs["view"]
        half = WINDOW // 2
        left, top = me["x"] - half, me["y"] - half
        tiles = np.zeros((WINDOW, WINDOW), np.uint8)
        for row, line in enumerate(view["tiles"]):
            y = view["y0"] + row - top
            if not 0 <= y < WINDOW:
                continue
            for col, ch in enumerate(line):
                x = view["x0"] + col - left
                if 0 <= x < WINDOW and ch != " ":
                    tiles[y, x] = self.tile_index.get(ch, 0)
        entities = np.zeros((WINDOW, WINDOW), np.uint8)
        for e in obs["entities"]:
            x, y = e["x"] - left, e["y"] - top
            if 0 <= x < WINDOW and 0 <= y < WINDOW:
                entities[y, x] = 1 if e["kind"] == "character" else 2 if e.get("hostile") else 3
        phase = obs["time"].get("phase", "day")
        stats = np.array(
            [
                me["health"],
                me["hunger"],
                me["energy"],
                me["coins"],
                me["asleep"],
                me["down"],
                me.get("area", 0) != 0,
                PHASES.index(phase) if phase in PHASES else 0,
                me["action"] is not None,
            ],
            np.float32,
        )
        inventory = np.zeros(len(self.items), np.float32)
        for stack in me["inventory"]:
            if stack["item"] in self.item_index:
                inventory[self.item_index[stack["item"]]] += stack["count"]
        return {
            "tiles": tiles,
            "entities": entities,
            "stats": np.clip(stats, 0, STAT_HIGH),
            "inventory": np.clip(inventory, 0, STAT_HIGH),
        }

    def action(self, index: int, obs: dict) -> dict | None:
        """The action dict for a discrete action in this observation (None: nothing to send)."""
        name = ACTIONS[int(index)]
        me = obs["self"]
        if name == "noop":
            return None
        if name.startswith("move_"):
            return {"type": "move", "dir": name[-1]}
        if name.startswith("craft_"):
            return {"type": "craft", "recipe": name[len("craft_") :]}
        if name in ("sleep", "wake"):
            return {"type": name}
        if name == "wait":
            return {"type": "wait", "ticks": 1}
        if name == "eat":
            have = {s["item"] for s in me["inventory"]}
            food = next((f for f in self.food if f in have), None)
            return {"type": "eat", "item": food or "berries"}
        if name == "attack_nearest":
            others = [e for e in obs["entities"] if e["kind"] != "character"]
            if not others:
                return {"type": "wait", "ticks": 1}
            target = min(others, key=lambda e: abs(e["x"] - me["x"]) + abs(e["y"] - me["y"]))
            if max(abs(target["x"] - me["x"]), abs(target["y"] - me["y"])) <= 1:
                return {"type": "attack", "target": target["id"]}
            return {"type": "move_to", "x": target["x"], "y": target["y"]}
        return self._gather(obs)

    def _gather(self, obs: dict) -> dict:
        me, view = obs["self"], obs["view"]
        best = None
        for row, line in enumerate(view["tiles"]):
            for col, ch in enumerate(line):
                if ch in SOURCES:
                    x, y = view["x0"] + col, view["y0"] + row
                    d = abs(x - me["x"]) + abs(y - me["y"])
                    if best is None or d < best[0]:
                        best = (d, x, y)
        if best is None:  # nothing in view: walk a widening square spiral to find some
            dx, dy = list(STEPS.values())[(obs["tick"] // 20) % 4]
            reach = 6 + obs["tick"] // 80
            return {"type": "move_to", "x": me["x"] + dx * reach, "y": me["y"] + dy * reach}
        _, x, y = best
        if abs(x - me["x"]) + abs(y - me["y"]) == 1:
            return {"type": "gather", "x": x, "y": y}
        for dx, dy in STEPS.values():
            nx, ny = x + dx, y + dy
            row, col = ny - view["y0"], nx - view["x0"]
            if 0 <= row < len(view["tiles"]) and 0 <= col < len(view["tiles"][row]):
                if view["tiles"][row][col] in WALKABLE:
                    return {"type": "move_to", "x": nx, "y": ny}
        return {"type": "wait", "ticks": 1}


def reward_of(events: list[dict], char: int) -> float:
    reward = 0.0
    for e in events:
        if e.get("char") != char:
            continue
        kind = e["kind"]
        if kind == "gathered":
            reward += 0.1 * e.get("count", 1)
        elif kind == "crafted":
            reward += 1.0 * e.get("count", 1)
        elif kind == "killed":
            reward += 1.0
        elif kind == "damaged":
            reward -= 0.01 * e.get("amount", 0)
        elif kind == "down":
            reward -= 5.0
    return reward


class HeadlessWorld:
    """A world, its programs and its characters on a pipeline (asiworld.pipeline), stepped by an
    environment: the policy's action is submitted between two steps, like any driver's."""

    def __init__(self, seed: int, size: int, names: list[str], label: str) -> None:
        from asiworld.engine import World
        from asiworld.pipeline import Pipeline
        from asiworld.programs.manager import ProgramManager

        self.world = World.create(seed=seed, content=_content(), size=size)
        self.chars = [self.world.add_character(name=n, label=label) for n in names]
        self.programs = ProgramManager(self.world, in_process=True)
        self.pipeline = Pipeline(self.world, programs=self.programs)

    def act(self, char: int, action: dict | None) -> dict | None:
        if action is None:
            return None
        try:
            return self.pipeline.submit(char, action)
        except (TypeError, ValueError, KeyError) as err:
            return {"ok": False, "code": "bad_action", "message": str(err), "op": None}

    def advance(self, ticks: int) -> list[dict]:
        events: list[dict] = []
        for _ in range(ticks):
            events.extend(self.pipeline.step().events)
        return events

    def close(self) -> None:
        self.pipeline.close()


class AsiWorldEnv(gym.Env):
    metadata = {"render_modes": ["ansi"], "render_fps": 10}

    def __init__(
        self,
        seed: int = 7,
        size: int = 64,
        max_ticks: int = 2000,
        ticks_per_step: int = 1,
        render_mode: str | None = None,
    ) -> None:
        self.world_seed = seed
        self.size = size
        self.max_ticks = max_ticks
        self.ticks_per_step = ticks_per_step
        self.render_mode = render_mode
        self.encoder = Encoder(_content())
        self.observation_space = self.encoder.space()
        self.action_space = spaces.Discrete(len(ACTIONS))
        self.headless: HeadlessWorld | None = None
        self._obs: dict = {}

    @property
    def char(self) -> int:
        return self.headless.chars[0]

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if self.headless is not None:
            self.headless.close()
        world_seed = self.world_seed if seed is None else seed
        self.headless = HeadlessWorld(world_seed, self.size, ["gym"], "gym")
        return self._observe(None)

    def step(self, action: Any):
        assert self.headless is not None, "call reset() first"
        result = self.headless.act(self.char, self.encoder.action(int(action), self._obs))
        return self._advance(result)

    def act(self, action: dict):
        """Send any action dict (the text/JSON action path), then advance like step()."""
        return self._advance(self.headless.act(self.char, action))

    def submit_program(self, name: str, source: str) -> dict:
        """Host a program for the character; it runs as the environment steps (use NOOP)."""
        return self.headless.programs.submit(self.char, name, source)

    def _advance(self, result: dict | None):
        events = self.headless.advance(self.ticks_per_step)
        obs, info = self._observe(result)
        truncated = self.headless.world.tick >= self.max_ticks
        return obs, reward_of(events, self.char), False, truncated, info

    def _observe(self, result: dict | None):
        world = self.headless.world
        text = world.observe_text(self.char)  # first: observe() below consumes the events
        self._obs = world.observe(self.char) | self.headless.programs.observation_extra(self.char)
        info = {"text": text, "result": result, "tick": world.tick}
        return self.encoder.encode(self._obs), info

    def render(self) -> str | None:
        if self.render_mode == "ansi" and self.headless is not None:
            return self.headless.world.observe_text(self.char)
        return None

    def close(self) -> None:
        if self.headless is not None:
            self.headless.close()
            self.headless = None
