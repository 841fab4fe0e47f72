"""Gymnasium environment: one character in a headless world (no server), for RL policies.

`gymnasium.make("ASIWorld-v0")` (arrays) and `gymnasium.make("ASIWorldText-v0")` (text in,
JSON actions out, for language-model agents); both are this class (asiworld.agents.envs.gym_register
registers them). docs/agents.md has the whole contract; in short:

- observation `"dict"`: `tiles` (WINDOW x WINDOW terrain codes around the character, 0 = not
  visible), `entities` (0 none, 1 character, 2 hostile creature, 3 other creature), `stats`
  (STATS), `inventory` (count per item, sorted item names); `"text"`: the text observation
  language models get.
- actions `"table"` (every action of the game, asiworld.agents.envs.action_space), `"macro"` (the 17
  discrete shortcuts of MACROS) or `"json"` (an action dict as JSON text).
- reward `"shaped"` (gathering, crafting, kills, damage, knockdowns) or `"curriculum"` (+1 per
  development stage of the evaluation newly met).
- `info`: `tick`, `result` (the world's answer to the step's action; `sent` False when there was
  none), `events` (the step's events of the character, as the evaluation reads them),
  `achievements` (stage name -> met so far, as in the evaluation) and `trial`.

Every reset builds a fresh world whose seed is drawn from `np_random` (a fixed `world_seed`
keeps one map for every episode). An episode is truncated after `max_ticks`; it never
terminates (a knocked-down character wakes again, as in the live world).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from asiworld.engine import codes

try:
    import gymnasium as gym
    from gymnasium import spaces
except ImportError as err:  # pragma: no cover - optional dependency
    raise ImportError("the Gymnasium environment needs `pip install asiworld[agents]`") from err

from asiworld.agents.envs.action_space import WINDOW, TableActions
from asiworld.agents.envs.pixels import ViewPainter
from asiworld.engine import clock, load_content, vision
from asiworld.evaluation.achievements import AchievementRecord
from asiworld.session import Session

SOURCES = "T#cifb"
WALKABLE = ".,_=123:EoO;"
PHASES = ("day", "dusk", "night", "dawn")
CRAFTS = ("wooden_pickaxe", "wooden_sword", "stone_pickaxe", "stone_sword", "torch", "cloth")
STEPS = {"n": (0, -1), "s": (0, 1), "e": (1, 0), "w": (-1, 0)}
STATS = ("health", "hunger", "energy", "coins", "asleep", "down", "in_dungeon", "phase",
         "has_action")

# The discrete shortcuts of `actions="macro"`, in order. "noop" lets the ongoing operation run.
MACROS: tuple[str, ...] = (
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
FLAT_ORDER = ("tiles", "entities", "stats", "inventory")  # Encoder.flat's layout
ACTIONS = MACROS  # the name this tuple had before the table actions
NOOP = 0
STAT_HIGH = 1e6
# The text observation's alphabet: printable ASCII and the newline; anything else (a name or a
# `say` in another script) shows as "?" so every observation is inside the space.
CHARSET = "".join(chr(c) for c in range(32, 127)) + "\n"
TEXT_LIMIT = 8192
_TEXT_CLEAN = {c: "?" for c in range(32) if c != 10} | {127: "?"}
JSON_LIMIT = 2048
NOTHING_SENT = {"sent": False, "ok": True, "code": "", "message": ""}


def _content() -> Any:
    return load_content()


def clean_text(text: str) -> str:
    text = text.encode("ascii", "replace").decode("ascii").translate(_TEXT_CLEAN)
    return text if len(text) <= TEXT_LIMIT else text[: TEXT_LIMIT - 4] + "\n..."


class Encoder:
    """Turns one character's observation dict into the arrays of the Dict observation. Shared
    by the Gymnasium and the PettingZoo environments."""

    def __init__(self, content: Any) -> None:
        self.tile_index = {ch: i + 1 for i, ch in enumerate(sorted(content.legend()))}
        self.lut = np.zeros(256, np.uint8)  # a tile's character -> its code; " " stays 0
        for ch, code in self.tile_index.items():
            if ch != " ":
                self.lut[ord(ch)] = code
        self.items = sorted(content.items)
        self.item_index = {name: i for i, name in enumerate(self.items)}
        # A terrain value (the engine's tile index) -> its code, for encoding straight from
        # the world's arrays (encode_world) instead of the observation's strings.
        self.terrain_code = self.lut[np.frombuffer(content.tile_chars.encode("latin-1"),
                                                   np.uint8)]
        # The last tiles layers (encode_world), ((world, character, view key), array): by the
        # id of an array written in place, and by character a copy for new arrays.
        self._rows: dict[int, tuple[tuple, np.ndarray]] = {}
        self._tiles: dict[int, tuple[tuple, np.ndarray]] = {}

    def space(self) -> spaces.Dict:
        n_codes = len(self.tile_index) + 1
        return spaces.Dict(
            {
                "tiles": spaces.Box(0, n_codes, (WINDOW, WINDOW), np.uint8),
                "entities": spaces.Box(0, 3, (WINDOW, WINDOW), np.uint8),
                "stats": spaces.Box(0.0, STAT_HIGH, (len(STATS),), np.float32),
                "inventory": spaces.Box(0.0, STAT_HIGH, (len(self.items),), np.float32),
            }
        )

    def flat_space(self) -> spaces.Box:
        """The Dict observation as one float32 vector (tiles, entities, stats, inventory), for
        libraries that want a Box (PettingZoo's tests warn about anything else)."""
        parts = self.space()
        high = np.concatenate([np.broadcast_to(parts[k].high, parts[k].shape).ravel()
                               for k in FLAT_ORDER])
        return spaces.Box(np.zeros_like(high, np.float32), high.astype(np.float32),
                          dtype=np.float32)

    def flat(self, obs: dict) -> np.ndarray:
        return self.flatten(self.encode(obs))

    @staticmethod
    def flatten(parts: dict[str, np.ndarray]) -> np.ndarray:
        """The Dict observation's arrays as the one vector of flat_space."""
        return np.concatenate([parts[k].ravel() for k in FLAT_ORDER]).astype(np.float32)

    def encode_world(self, world: Any, char_id: int,
                     out: dict[str, np.ndarray] | None = None) -> tuple[dict[str, np.ndarray], dict]:
        """The arrays `encode(world.observe(char_id))` gives, read straight from the world's
        state (its terrain, the character's field of view, the bodies round it), and the
        glance the table actions decode against (the character's position and the visible
        bodies of the window). Building the whole observation dict (structures, loot,
        memory, landmarks, strings) cost more than the world's tick; this reads only what the
        observation space holds. `out`: arrays to fill in place (a vector's batch rows)."""
        char = world.entities[char_id]
        area = world.areas[char.area]
        mem = world.memory[char_id]
        r = vision.radius(world, char)
        if mem.key != (char.area, char.x, char.y, r, area.version):
            # what world.observe does first: the tick's own view is stale (a radius that
            # changed with the clock); otherwise the tick already refreshed it
            vision.update(world, char, world.body_index(char.area))
        # The tiles layer follows from the view's key alone (place, radius, the area's
        # version, which moves with every terrain change): a character that did not move
        # keeps last step's layer. What each array was last written with is kept (a
        # vector's row is written in place, by its own world's character only), and per
        # character a copy for new arrays.
        written = (world, char_id, mem.key)
        kept = self._tiles.get(char_id) if out is None else self._rows.get(id(out["tiles"]))
        same_tiles = kept is not None and kept[0] == written and \
            (out is None or kept[1] is out["tiles"])
        if out is None:
            out = {"tiles": kept[1].copy() if same_tiles else np.zeros((WINDOW, WINDOW), np.uint8),
                   "entities": np.zeros((WINDOW, WINDOW), np.uint8),
                   "stats": np.zeros(len(STATS), np.float32),
                   "inventory": np.zeros(len(self.items), np.float32)}
            rows = False
        else:  # the stats are all written below
            for name in ("entities", "inventory") if same_tiles else \
                    ("tiles", "entities", "inventory"):
                out[name].fill(0)
            rows = True
        tiles, entities = out["tiles"], out["entities"]
        vis = mem.visible
        h, w = vis.shape
        x0, y0 = mem.x0, mem.y0
        left, top = char.x - WINDOW // 2, char.y - WINDOW // 2
        ax0, ay0 = max(x0, left), max(y0, top)  # the view and the window overlap here
        ax1, ay1 = min(x0 + w, left + WINDOW), min(y0 + h, top + WINDOW)
        seen: list[dict] = []
        if ax1 > ax0 and ay1 > ay0:  # the visible tiles' codes; the rest stays 0
            if not same_tiles:
                np.copyto(tiles[ay0 - top : ay1 - top, ax0 - left : ax1 - left],
                          self.terrain_code[area.terrain[ay0:ay1, ax0:ax1]],
                          where=vis[ay0 - y0 : ay1 - y0, ax0 - x0 : ax1 - x0])
            bodies = world.body_index(char.area)  # a crowd: only the cells of the window
            near = [((x, y), eid) for _, x, y, eid in bodies.within(ax0, ay0, ax1, ay1)] \
                if bodies else area.occupant.items()
            for (x, y), eid in near:
                if ax0 <= x < ax1 and ay0 <= y < ay1 and eid != char_id and vis[y - y0, x - x0]:
                    ent = world.entities[eid]
                    entities[y - top, x - left] = 1 if ent.kind == "character" \
                        else 2 if getattr(ent, "hostile", False) else 3
                    seen.append({"id": eid, "x": x, "y": y})
        if not same_tiles:
            if rows:
                self._rows[id(tiles)] = (written, tiles)
            else:
                self._tiles[char_id] = (written, tiles.copy())
        night = clock.is_night(world.tick, world.content)  # time_of's phase, without the rest
        # Clipped to the space's bounds here: np.clip's (or minimum's) own overhead per call is
        # more than the few values cost in Python.
        out["stats"][:] = [min(max(v, 0), STAT_HIGH) for v in (
            char.health, char.hunger, char.energy, char.coins, char.asleep, char.down,
            char.area != 0, PHASES.index("night") if night else 0, char.op is not None)]
        if char.inventory:
            counts: dict[int, int] = {}
            for name, count in char.inventory:
                index = self.item_index.get(name)
                if index is not None:
                    counts[index] = counts.get(index, 0) + count
            inventory = out["inventory"]
            for index, count in counts.items():
                inventory[index] = min(max(count, 0), STAT_HIGH)
        seen.sort(key=lambda e: e["id"])
        return out, {"self": {"x": char.x, "y": char.y}, "entities": seen}

    def encode(self, obs: dict) -> dict[str, np.ndarray]:
        me, view = obs["self"], obs["view"]
        half = WINDOW // 2
        left, top = me["x"] - half, me["y"] - half
        tiles = np.zeros((WINDOW, WINDOW), np.uint8)
        rows = view["tiles"]
        if rows:
            grid = self.lut[np.frombuffer("".join(rows).encode("latin-1"), np.uint8)]
            grid = grid.reshape(len(rows), -1)
            x0, y0 = view["x0"] - left, view["y0"] - top  # the view's corner in the window
            ys, xs = slice(max(0, y0), min(WINDOW, y0 + grid.shape[0])), slice(
                max(0, x0), min(WINDOW, x0 + grid.shape[1]))
            tiles[ys, xs] = grid[ys.start - y0 : ys.stop - y0, xs.start - x0 : xs.stop - x0]
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


class MacroActions:
    """The 17 discrete shortcuts (MACROS): each picks its own arguments from the observation."""

    def __init__(self, content: Any) -> None:
        self.food = [n for n in sorted(content.items) if content.items[n].get("category") == "food"]

    def action(self, index: int, obs: dict) -> dict | None:
        """The action dict for a discrete action in this observation (None: nothing to send)."""
        name = MACROS[int(index)]
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


class ActionDecoder:
    """One of the three action forms (table, macro, json): its space and its decoding."""

    def __init__(self, kind: str, content: Any) -> None:
        if kind not in ("table", "macro", "json"):
            raise ValueError(f"actions must be 'table', 'macro' or 'json', not {kind!r}")
        self.kind = kind
        self.table = TableActions(content)
        self.macros = MacroActions(content)

    def space(self) -> spaces.Space:
        if self.kind == "table":
            return self.table.space()
        if self.kind == "macro":
            return spaces.Discrete(len(MACROS))
        return spaces.Text(JSON_LIMIT, charset=CHARSET)

    def action(self, action: Any, obs: dict) -> dict | None:
        if self.kind == "table":
            verb, cell, choice = np.asarray(action).reshape(3).tolist()
            return self.table.action(int(verb), int(cell), int(choice), obs)
        if self.kind == "macro":
            return self.macros.action(int(action), obs)
        return decode_json(action)


def decode_json(text: Any) -> dict:
    """An action dict from JSON text; bad text is answered as a refusal (`ok` False)."""
    try:
        action = json.loads(text)
    except (TypeError, ValueError) as err:
        return {"ok": False, "code": codes.BAD_JSON, "message": f"the action is not JSON: {err}"}
    if not isinstance(action, dict) or "ok" in action:
        return {"ok": False, "code": codes.BAD_ACTION,
                "message": 'an action is a JSON object with a "type", e.g. {"type": "wait"}'}
    return action


def reward_of(events: list[dict], char: int) -> float:
    """The shaped reward: +0.1 per item gathered, +1 per item crafted, +1 per kill, -0.01 per
    point of damage taken, -5 per knockdown."""
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


REWARDS = ("shaped", "curriculum")


class HeadlessWorld:
    """A world, its programs and its characters on a pipeline (asiworld.pipeline), stepped by an
    environment: the policy's action is submitted between two steps, like any driver's."""

    def __init__(self, seed: int, size: int, names: list[str], label: str) -> None:
        session = Session.build(seed=seed, size=size, content=_content(), in_process=True)
        self.world = session.world
        self.chars = [self.world.add_character(name=n, label=label) for n in names]
        self.programs, self.pipeline = session.programs, session.pipeline

    def act(self, char: int, action: dict | None) -> dict:
        """Send an action; the answer always has the keys of NOTHING_SENT (stable types, so a
        vector of environments can stack it)."""
        if action is None:
            return dict(NOTHING_SENT)
        if action.get("ok") is False:  # the environment's own refusal (no target, bad JSON)
            reply = action
        else:
            try:
                reply = self.pipeline.submit(char, action)
            except (TypeError, ValueError, KeyError) as err:
                reply = {"ok": False, "code": codes.BAD_ACTION, "message": str(err)}
        return {"sent": True, "ok": bool(reply.get("ok")), "code": str(reply.get("code") or ""),
                "message": str(reply.get("message") or "")}

    def advance(self, ticks: int) -> list[dict]:
        events: list[dict] = []
        for _ in range(ticks):
            events.extend(self.pipeline.step().events)
        return events

    def observe(self, char: int) -> dict:
        return self.pipeline.observe(char)

    def close(self) -> None:
        self.pipeline.close()


class Seat:
    """One character of an environment: its last observation, its progress through the
    curriculum (the evaluation's own AchievementRecord, fed the character's events) and the
    encodings of both."""

    def __init__(self, char: int, encoder: Encoder, observation: str) -> None:
        self.char, self.encoder, self.observation = char, encoder, observation
        self.record = AchievementRecord()
        self.met = {r.name: bool(r.met) for r in self.record.stages}
        self.glance: dict = {"self": {"x": 0, "y": 0}, "entities": []}
        self._raw: dict | None = {}
        self._headless: HeadlessWorld | None = None

    @property
    def raw(self) -> dict:
        """The character's whole observation now, as the world gives it (built when asked: the
        arrays do not need it)."""
        if self._raw is None:
            self._raw = self._headless.observe(self.char)
        return self._raw

    def look(self, headless: HeadlessWorld, out: dict[str, np.ndarray] | None = None) -> Any:
        """The observation now: the text, or the arrays (into `out` when given)."""
        self._headless = headless
        if self.observation == "text":  # first: observe() below consumes the events
            text = clean_text(headless.world.observe_text(self.char))
            self._raw = headless.observe(self.char)
            return text
        self._raw = None
        arrays, self.glance = self.encoder.encode_world(headless.world, self.char, out)
        return arrays

    def decode(self, decoder: ActionDecoder, action: Any) -> dict | None:
        """The action dict for a policy's action now (the table reads only the glance)."""
        return decoder.action(action, self.glance if decoder.kind == "table" else self.raw)

    def progress(self, events: list[dict], tick: int) -> tuple[list[dict], int]:
        """The step's events of this character, and how many stages they newly met."""
        mine = [e for e in events if e.get("char") == self.char]
        before = len(self.record.coverage)
        for e in mine:
            self.record.feed(e)
        self.record.advance(tick)
        newly_met = len(self.record.coverage) - before
        if newly_met:  # the achievements change only when a stage is met
            self.met = {r.name: bool(r.met) for r in self.record.stages}
        return mine, newly_met

    def info(self, result: dict, events: list[dict], tick: int) -> dict:
        return {"tick": tick, "result": result, "events": events, "achievements": dict(self.met),
                "trial": self.record.trial}

    def reward(self, kind: str, events: list[dict], newly_met: int) -> float:
        return float(newly_met) if kind == "curriculum" else reward_of(events, self.char)


class AsiWorldEnv(gym.Env):
    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 10}

    def __init__(
        self,
        size: int = 64,
        max_ticks: int = 2000,
        ticks_per_step: int = 1,
        render_mode: str | None = None,
        observation: str = "dict",
        actions: str | None = None,
        reward: str = "shaped",
        world_seed: int | None = None,
    ) -> None:
        if observation not in ("dict", "text"):
            raise ValueError(f"observation must be 'dict' or 'text', not {observation!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be 'ansi', 'rgb_array' or None, not {render_mode!r}")
        content = _content()
        self.size, self.max_ticks, self.ticks_per_step = size, max_ticks, ticks_per_step
        self.render_mode, self.reward_kind, self.world_seed = render_mode, reward, world_seed
        self.observation = observation
        self.encoder = Encoder(content)
        self.decoder = ActionDecoder(actions or ("json" if observation == "text" else "table"),
                                     content)
        self.observation_space = (
            self.encoder.space() if observation == "dict" else spaces.Text(TEXT_LIMIT, charset=CHARSET)
        )
        self.action_space = self.decoder.space()
        self.headless: HeadlessWorld | None = None
        self.seat: Seat | None = None
        # Arrays the observation is written into instead of new ones (a batched vector's row
        # of this world, asiworld.agents.envs.gym_vector); None: new arrays every step.
        self.rows: dict[str, np.ndarray] | None = None
        self._painter: Any = None

    @property
    def char(self) -> int:
        return self.seat.char

    @property
    def _obs(self) -> dict:
        """The character's last observation as the world gave it."""
        return self.seat.raw

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if self.headless is not None:
            self.headless.close()
        world_seed = self.world_seed
        if world_seed is None:
            world_seed = int(self.np_random.integers(2**31 - 1))
        self.headless = HeadlessWorld(world_seed, self.size, ["gym"], "gym")
        self.seat = Seat(self.headless.chars[0], self.encoder, self.observation)
        obs = self.seat.look(self.headless, self.rows)
        return obs, self.seat.info(dict(NOTHING_SENT), [], self.headless.world.tick)

    def step(self, action: Any):
        assert self.headless is not None, "call reset() first"
        result = self.headless.act(self.char, self.seat.decode(self.decoder, action))
        return self._advance(result)

    def act(self, action: dict):
        """Send any action dict (the text/JSON action path), then advance like step()."""
        return self._advance(self.headless.act(self.char, action))

    def submit_program(self, name: str, source: str) -> dict:
        """Host a program for the character; it runs as the environment steps (send noop)."""
        return self.headless.programs.submit(self.char, name, source)

    def text(self) -> str:
        """The text observation of the character now (what `ASIWorldText-v0` observes)."""
        return self.headless.world.observe_text(self.char)

    def _advance(self, result: dict):
        events = self.headless.advance(self.ticks_per_step)
        tick = self.headless.world.tick
        mine, newly_met = self.seat.progress(events, tick)
        obs = self.seat.look(self.headless, self.rows)
        reward = self.seat.reward(self.reward_kind, events, newly_met)
        truncated = tick >= self.max_ticks
        return obs, reward, False, truncated, self.seat.info(result, mine, tick)

    def render(self) -> Any:
        if self.headless is None or self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return self.text()
        if self._painter is None:
            self._painter = ViewPainter(self.headless.world.content.legend(), WINDOW)
        return self._painter.paint(self.seat.raw)

    def close(self) -> None:
        if self.headless is not None:
            self.headless.close()
            self.headless = None
