"""Gymnasium and PettingZoo environments over a headless world pass their libraries' checkers,
and their discrete and text/program action paths reach the world."""

from __future__ import annotations

import numpy as np
from asiworld.agents.gym_env import ACTIONS, NOOP, AsiWorldEnv
from asiworld.agents.pz_env import AsiWorldParallelEnv


def test_gymnasium_env_passes_check_env():
    from gymnasium.utils.env_checker import check_env

    env = AsiWorldEnv(seed=3, size=64, max_ticks=50)
    check_env(env, skip_render_check=True)
    env.close()


def test_pettingzoo_env_passes_parallel_api_test():
    from pettingzoo.test import parallel_api_test

    env = AsiWorldParallelEnv(n_agents=2, seed=3, size=64, max_ticks=40)
    parallel_api_test(env, num_cycles=50)
    env.close()


def test_discrete_moves_move_the_character_and_the_window_centres_on_it():
    env = AsiWorldEnv(seed=3, size=64)
    obs, info = env.reset()
    start = env._obs["self"]
    assert "gym at (" in info["text"]
    env.step(ACTIONS.index("move_s"))
    env.step(NOOP)
    me = env._obs["self"]
    assert (me["x"], me["y"]) == (start["x"], start["y"] + 1)
    assert obs["tiles"][8, 8] != 0  # the centre tile is the character's own, always visible
    env.close()


def test_text_action_and_program_paths_reach_the_world():
    env = AsiWorldEnv(seed=3, size=64)
    env.reset()
    _, _, _, _, info = env.act({"type": "fly"})
    assert info["result"]["ok"] is False and info["result"]["code"] == "unknown_action"
    start = env._obs["self"]
    reply = env.submit_program("walk", "def main():\n    move('e')\n    move('e')\n")
    assert reply["ok"]
    for _ in range(4):
        env.step(NOOP)
    me = env._obs["self"]
    assert (me["x"], me["y"]) == (start["x"] + 2, start["y"])
    env.close()


def test_gathering_nearest_sources_is_rewarded():
    env = AsiWorldEnv(seed=3, size=64, max_ticks=400)
    env.reset()
    total = 0.0
    for _ in range(150):
        action = ACTIONS.index("gather_nearest") if env._obs["self"]["action"] is None else NOOP
        _, reward, _, _, _ = env.step(action)
        total += reward
    assert total > 0
    inventory = env.encoder.encode(env._obs)["inventory"]
    assert np.sum(inventory) > 0
    env.close()
