"""PettingZoo ParallelEnv: several characters in one headless world, acting simultaneously.

Agents are named `char_0` ... `char_{n-1}`; each has the Gymnasium environment's observation and
action spaces (app/agents/gym_env.py). Each step applies every agent's action (in agent order,
as the live server would within a tick), then advances the world `ticks_per_step` ticks.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from asiworld.agents.gym_env import ACTIONS, Encoder, HeadlessWorld, _content, reward_of, spaces
from pettingzoo import ParallelEnv


class AsiWorldParallelEnv(ParallelEnv):
    metadata = {"render_modes": ["ansi"], "name": "asiworld_v0"}

    def __init__(
        self,
        n_agents: int = 2,
        seed: int = 7,
        size: int = 64,
        max_ticks: int = 2000,
        ticks_per_step: int = 1,
        render_mode: str | None = None,
    ) -> None:
        self.possible_agents = [f"char_{i}" for i in range(n_agents)]
        self.agents: list[str] = []
        self.world_seed = seed
        self.size = size
        self.max_ticks = max_ticks
        self.ticks_per_step = ticks_per_step
        self.render_mode = render_mode
        self.encoder = Encoder(_content())
        self._obs_space = self.encoder.space()
        self._act_space = spaces.Discrete(len(ACTIONS))
        self.headless: HeadlessWorld | None = None
        self.char_of: dict[str, int] = {}
        self._raw: dict[str, dict] = {}

    @cache  # noqa: B019 - the spaces must be the same object every call
    def observation_space(self, agent: str) -> spaces.Dict:
        return self._obs_space

    @cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_space

    def reset(self, seed: int | None = None, options: dict | None = None):
        if self.headless is not None:
            self.headless.close()
        world_seed = self.world_seed if seed is None else seed
        self.headless = HeadlessWorld(world_seed, self.size, list(self.possible_agents), "pz")
        self.char_of = dict(zip(self.possible_agents, self.headless.chars, strict=True))
        self.agents = list(self.possible_agents)
        observations, infos = {}, {}
        for agent in self.agents:
            observations[agent], infos[agent] = self._observe(agent, None)
        return observations, infos

    def step(self, actions: dict[str, Any]):
        results = {}
        for agent in self.agents:
            if agent in actions:
                action = self.encoder.action(int(actions[agent]), self._raw[agent])
                results[agent] = self.headless.act(self.char_of[agent], action)
        events = self.headless.advance(self.ticks_per_step)
        truncated = self.headless.world.tick >= self.max_ticks
        observations, rewards, terminations, truncations, infos = {}, {}, {}, {}, {}
        for agent in self.agents:
            observations[agent], infos[agent] = self._observe(agent, results.get(agent))
            rewards[agent] = reward_of(events, self.char_of[agent])
            terminations[agent] = False
            truncations[agent] = truncated
        if truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _observe(self, agent: str, result: dict | None):
        world, char = self.headless.world, self.char_of[agent]
        text = world.observe_text(char)
        self._raw[agent] = world.observe(char)
        return self.encoder.encode(self._raw[agent]), {"text": text, "result": result}

    def render(self) -> str | None:
        if self.render_mode == "ansi" and self.headless is not None and self.agents:
            return self.headless.world.observe_text(self.char_of[self.agents[0]])
        return None

    def close(self) -> None:
        if self.headless is not None:
            self.headless.close()
            self.headless = None
