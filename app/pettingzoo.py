"""PettingZoo factories, by the convention every PettingZoo environment follows:

    from asiworld import pettingzoo as asiworld_pz
    env = asiworld_pz.env(n_agents=4)                  # AEC, wrapped (order enforced)
    parallel = asiworld_pz.parallel_env(n_agents=4)    # the native ParallelEnv
    raw = asiworld_pz.raw_env(n_agents=4)              # AEC, unwrapped

The environment itself is asiworld.agents.envs.pz_env.AsiWorldParallelEnv (keyword arguments are
its own); this module only names it the PettingZoo way.
"""

from __future__ import annotations

from typing import Any

from asiworld.agents.envs.pz_env import AsiWorldParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import parallel_to_aec_wrapper

__all__ = ["AsiWorldParallelEnv", "env", "parallel_env", "raw_env"]


def parallel_env(**kwargs: Any) -> AsiWorldParallelEnv:
    return AsiWorldParallelEnv(**kwargs)


def raw_env(**kwargs: Any) -> Any:
    """The AEC form: agents act one after another; the world steps once all have acted."""
    return parallel_to_aec_wrapper(AsiWorldParallelEnv(**kwargs))


def env(**kwargs: Any) -> Any:
    """The AEC form with PettingZoo's usual guard: acting out of turn or before reset() is an
    error, not a silent mistake."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))
