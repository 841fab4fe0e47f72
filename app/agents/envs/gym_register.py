"""The Gymnasium ids of ASIWorld, registered without importing the environment.

`register_envs()` is what `import asiworld` calls when Gymnasium is installed (app/__init__.py),
and what the `gymnasium.envs` entry point names (Gymnasium 0.26-0.29 called it on import; 1.x
reads no entry points). It registers strings only, so `gymnasium.make` imports the
environment, never the server, and only when an ASIWorld id is made.
"""

from __future__ import annotations

ENTRY_POINT = "asiworld.agents.envs.gym_env:AsiWorldEnv"
# The batched vector (`make_vec` without a mode, or mode "vector_entry_point").
VECTOR_ENTRY_POINT = "asiworld.agents.envs.gym_vector:AsiWorldVectorEnv"
ENVS: dict[str, dict] = {
    "ASIWorld-v0": {},  # arrays in, every action of the game out (docs/agents.md)
    "ASIWorldText-v0": {"observation": "text"},  # text in, JSON actions out
}


def register_envs() -> None:
    from gymnasium.envs.registration import register, registry

    for env_id, kwargs in ENVS.items():
        if env_id not in registry:
            register(id=env_id, entry_point=ENTRY_POINT, vector_entry_point=VECTOR_ENTRY_POINT,
                     kwargs=kwargs)
