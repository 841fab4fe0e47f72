"""PettingZoo ParallelEnv: several characters in one headless world, acting simultaneously.

Agents are named `char_0` ... `char_{n-1}`. Each observes its own view as one float32 Box (the
Gymnasium environment's Dict observation flattened: tiles, entities, stats, inventory; see
Encoder.flat) and acts with one Discrete number: with `actions="table"` (the default) it is the
Gymnasium environment's `[verb, cell, choice]` flattened row-major, so every action of the game
is reachable; `actions="macro"` gives the 17 shortcuts. Infos are the Gymnasium environment's
(`result`, `events`, `achievements`, `trial`, `tick`); rewards are `"shaped"` or
`"curriculum"`. `state()` is every agent's observation, in agent order.

Each step applies every agent's action (in agent order, as the live server would within a
tick), then advances the world `ticks_per_step` ticks. Factories in asiworld.pettingzoo.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
from asiworld.agents.envs.action_space import WINDOW
from asiworld.agents.envs.gym_env import (
    MACROS,
    NOTHING_SENT,
    REWARDS,
    ActionDecoder,
    Encoder,
    HeadlessWorld,
    Seat,
    _content,
    spaces,
)
from asiworld.agents.envs.pixels import ViewPainter
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv


class AsiWorldParallelEnv(ParallelEnv):
    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "name": "asiworld_v0",
                "render_fps": 10, "is_parallelizable": True}

    def __init__(
        self,
        n_agents: int = 2,
        size: int = 64,
        max_ticks: int = 2000,
        ticks_per_step: int = 1,
        render_mode: str | None = None,
        actions: str = "table",
        reward: str = "shaped",
        world_seed: int | None = None,
    ) -> None:
        if actions not in ("table", "macro"):
            raise ValueError(f"actions must be 'table' or 'macro', not {actions!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {', '.join(self.metadata['render_modes'])}"
                             f" or None, not {render_mode!r}")
        if type(n_agents) is not int or n_agents < 1:
            raise ValueError(f"n_agents must be a whole number >= 1, not {n_agents!r}")
        content = _content()
        self.possible_agents = [f"char_{i}" for i in range(n_agents)]
        self.agents: list[str] = []
        self.size, self.max_ticks, self.ticks_per_step = size, max_ticks, ticks_per_step
        self.render_mode, self.reward_kind, self.world_seed = render_mode, reward, world_seed
        self.encoder = Encoder(content)
        self.decoder = ActionDecoder(actions, content)
        self._obs_space = self.encoder.flat_space()
        n = int(np.prod(self.decoder.table.nvec)) if actions == "table" else len(MACROS)
        self._act_space = spaces.Discrete(n)
        self.state_space = spaces.Box(
            np.tile(self._obs_space.low, n_agents), np.tile(self._obs_space.high, n_agents),
            dtype=np.float32)
        self.headless: HeadlessWorld | None = None
        self.seats: dict[str, Seat] = {}
        self._last: dict[str, np.ndarray] = {}
        self._np_random: np.random.Generator | None = None
        self._painter: Any = None

    @cache  # noqa: B019 - the spaces must be the same object every call
    def observation_space(self, agent: str) -> spaces.Box:
        return self._obs_space

    @cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_space

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        if self.headless is not None:
            self.headless.close()
        world_seed = self.world_seed
        if world_seed is None:
            world_seed = int(self._np_random.integers(2**31 - 1))
        self.headless = HeadlessWorld(world_seed, self.size, list(self.possible_agents), "pz")
        self.seats = {a: Seat(c, self.encoder, "dict")
                      for a, c in zip(self.possible_agents, self.headless.chars, strict=True)}
        self.agents = list(self.possible_agents)
        tick = self.headless.world.tick
        observations = {a: self._look(a) for a in self.agents}
        infos = {a: self.seats[a].info(dict(NOTHING_SENT), [], tick) for a in self.agents}
        return observations, infos

    def _look(self, agent: str) -> np.ndarray:
        seat = self.seats[agent]
        self._last[agent] = self.encoder.flatten(seat.look(self.headless))
        return self._last[agent]

    def _decode(self, agent: str, action: Any) -> dict | None:
        if self.decoder.kind == "table":
            action = np.unravel_index(int(action), self.decoder.table.nvec)
        return self.seats[agent].decode(self.decoder, action)

    def step(self, actions: dict[str, Any]):
        results = {}
        for agent in self.agents:
            seat = self.seats[agent]
            action = self._decode(agent, actions[agent]) if agent in actions else None
            results[agent] = self.headless.act(seat.char, action)
        events = self.headless.advance(self.ticks_per_step)
        tick = self.headless.world.tick
        truncated = tick >= self.max_ticks
        observations, rewards, terminations, truncations, infos = {}, {}, {}, {}, {}
        for agent in self.agents:
            seat = self.seats[agent]
            mine, newly_met = seat.progress(events, tick)
            observations[agent] = self._look(agent)
            rewards[agent] = seat.reward(self.reward_kind, mine, newly_met)
            terminations[agent] = False
            truncations[agent] = truncated
            infos[agent] = seat.info(results[agent], mine, tick)
        if truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def state(self) -> np.ndarray:
        """Every possible agent's last observation, in agent order (one Box, state_space)."""
        if not self._last:
            raise RuntimeError("call reset() before state()")
        return np.concatenate([self._last[a] for a in self.possible_agents])

    def render(self) -> Any:
        if self.headless is None or self.render_mode is None:
            return None
        world = self.headless.world
        if self.render_mode in ("human", "ansi"):
            text = "\n\n".join(world.observe_text(s.char) for s in self.seats.values())
            if self.render_mode == "ansi":
                return text
            print(text)
            return None
        if self._painter is None:
            self._painter = ViewPainter(world.content.legend(), WINDOW)
        # every character's view side by side, in agent order
        return np.concatenate([self._painter.paint(s.raw) for s in self.seats.values()], axis=1)

    def close(self) -> None:
        if self.headless is not None:
            self.headless.close()
            self.headless = None
