"""A vector of ASIWorld environments stepped in one process, with batched observations.

`gymnasium.make_vec("ASIWorld-v0", num_envs=8)` builds this (it is the id's
`vector_entry_point`, what `make_vec` uses when no `vectorization_mode` is named, or with
`vectorization_mode="vector_entry_point"`); `"sync"` and `"async"` still build Gymnasium's own
vectors of the same environment. It gives what `SyncVectorEnv` gives for the same seeds and
actions (the same worlds, observations, rewards, resets and infos, autoreset `NEXT_STEP`),
without its generic work per sub-environment: each world writes its observation straight into
its row of the batch (no concatenation, no wrappers round each world), and the infos are
stacked once per step for the known keys instead of merged key by key for every world.

Each world still ticks through its own pipeline (asiworld.pipeline), as a single environment's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
from asiworld.agents.envs.gym_env import AsiWorldEnv
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array, iterate


def stack_infos(infos: list[dict]) -> dict:
    """The infos of every world as `SyncVectorEnv` lays them out (an array per key, a `_key`
    mask beside it, dicts stacked key by key), for infos that all have the same keys."""
    return _stack(infos, iter(np.ones((_count_keys(infos[0]), len(infos)), dtype=np.bool_)))


def _count_keys(info: dict) -> int:
    return sum(1 + (_count_keys(v) if type(v) is dict else 0) for v in info.values())


def _stack(infos: list[dict], masks: Iterator[np.ndarray]) -> dict:
    # The masks are rows of one array made per step (a row each, not an array each).
    n = len(infos)
    out: dict[str, Any] = {}
    for key, first in infos[0].items():
        values = [info[key] for info in infos]
        kind = type(first)
        if kind is dict:
            out[key] = _stack(values, masks)
        elif kind in (int, float, bool) or isinstance(first, np.number):
            out[key] = np.array(values, dtype=kind)
        elif kind is str:
            out[key] = np.array(values, dtype=object)
        else:
            column = np.empty(n, dtype=object)  # lists stay lists, one per world
            for i, value in enumerate(values):
                column[i] = value
            out[key] = column
        out[f"_{key}"] = next(masks)
    return out


class AsiWorldVectorEnv(VectorEnv):
    """`num_envs` AsiWorldEnv worlds; every keyword is AsiWorldEnv's."""

    def __init__(self, num_envs: int = 1, copy: bool = True, **kwargs: Any) -> None:
        if type(num_envs) is not int or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number >= 1, not {num_envs!r}")
        kwargs.pop("max_episode_steps", None)  # episodes end at max_ticks (the env's own limit)
        self.envs = [AsiWorldEnv(**kwargs) for _ in range(num_envs)]
        first = self.envs[0]
        self.num_envs, self.copy = num_envs, copy
        self.metadata = {**first.metadata, "autoreset_mode": AutoresetMode.NEXT_STEP}
        self.render_mode = first.render_mode
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._in_place = first.observation == "dict"
        self._observations = create_empty_array(self.single_observation_space, num_envs)
        if self._in_place:  # each world fills its own row of the batch
            for i, env in enumerate(self.envs):
                env.rows = {k: v[i] for k, v in self._observations.items()}
        self._rewards = np.zeros(num_envs, dtype=np.float64)
        self._terminations = np.zeros(num_envs, dtype=np.bool_)
        self._truncations = np.zeros(num_envs, dtype=np.bool_)
        self._autoreset = np.zeros(num_envs, dtype=np.bool_)

    def reset(self, *, seed: int | list[int | None] | None = None, options: dict | None = None):
        """Every world afresh; seeds as SyncVectorEnv takes them (None, an int `s` for
        `s, s+1, ...`, or one per world)."""
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
        if len(seeds) != self.num_envs:
            raise ValueError(f"one seed per world: {self.num_envs} wanted, {len(seeds)} given")
        self._terminations[:] = self._truncations[:] = self._autoreset[:] = False
        results = [env.reset(seed=s, options=options) for env, s in zip(self.envs, seeds,
                                                                          strict=True)]
        return self._batch([obs for obs, _ in results]), stack_infos([i for _, i in results])

    def step(self, actions: Any):
        infos = []
        observations = []
        for i, (env, action) in enumerate(zip(self.envs, iterate(self.action_space, actions),
                                              strict=False)):
            if self._autoreset[i]:  # the step after an episode's end starts the next one
                obs, info = env.reset()
                self._rewards[i] = 0.0
                self._terminations[i] = self._truncations[i] = False
            else:
                obs, self._rewards[i], self._terminations[i], self._truncations[i], info = \
                    env.step(action)
            observations.append(obs)
            infos.append(info)
        self._autoreset = self._terminations | self._truncations
        return (self._batch(observations), self._rewards.copy(), self._terminations.copy(),
                self._truncations.copy(), stack_infos(infos))

    def _batch(self, observations: list) -> Any:
        if not self._in_place:
            self._observations = concatenate(self.single_observation_space, observations,
                                             self._observations)
        if not self.copy:
            return self._observations
        if self._in_place:
            return {k: v.copy() for k, v in self._observations.items()}
        return tuple(self._observations)

    def render(self) -> tuple | None:
        """Each world's render, in order (as SyncVectorEnv renders)."""
        if self.render_mode is None:
            return None
        return tuple(env.render() for env in self.envs)

    def close_extras(self, **kwargs: Any) -> None:
        for env in self.envs:
            env.close()
