"""The PettingZoo factories pass PettingZoo's own four tests without a warning, and the macro,
JSON and program paths of the Gymnasium environment reach the world."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from asiworld import pettingzoo as asiworld_pz
from asiworld.agents.envs.gym_env import MACROS, NOOP, AsiWorldEnv
from pettingzoo import AECEnv
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test
from pettingzoo.utils import wrappers

SMALL = {"n_agents": 2, "size": 48, "max_ticks": 40}


def small(factory):
    return lambda **kw: factory(**{**SMALL, **kw})


@pytest.fixture
def no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PettingZoo's tests complain in warnings
        yield


def test_the_aec_env_passes_api_test(no_warnings):
    env = asiworld_pz.env(**SMALL)
    api_test(env, num_cycles=30)
    env.close()


def test_the_parallel_env_passes_parallel_api_test(no_warnings):
    env = asiworld_pz.parallel_env(**SMALL)
    parallel_api_test(env, num_cycles=30)
    env.close()


def test_the_aec_env_passes_seed_test(no_warnings):
    seed_test(small(asiworld_pz.env), num_cycles=20)


def test_every_render_mode_passes_render_test(no_warnings, capsys):
    render_test(small(asiworld_pz.env))
    assert "char_0 at (" in capsys.readouterr().out  # "human" printed the views


def test_state_is_every_agents_observation_and_raw_env_is_unwrapped():
    env = asiworld_pz.parallel_env(**SMALL)
    observations, _ = env.reset(seed=4)
    state = env.state()
    assert env.state_space.contains(state)
    assert np.array_equal(state, np.concatenate([observations["char_0"], observations["char_1"]]))
    raw = asiworld_pz.raw_env(**SMALL)
    assert isinstance(raw, AECEnv) and not isinstance(raw, wrappers.BaseWrapper)
    assert isinstance(asiworld_pz.env(**SMALL), wrappers.OrderEnforcingWrapper)
    raw.reset(seed=4)
    assert np.array_equal(raw.state(), state)  # the same seed, the same world
    env.close()
    raw.close()


def test_a_flat_table_action_reaches_the_world():
    env = asiworld_pz.parallel_env(**SMALL)
    env.reset(seed=4)
    table = env.decoder.table
    move = 1 + table.types.index("move")
    south = int(np.ravel_multi_index((move, 144 + 17, 0), table.nvec))
    start = env.seats["char_0"].raw["self"]
    env.step({"char_0": south, "char_1": 0})
    env.step({"char_0": 0, "char_1": 0})
    me = env.seats["char_0"].raw["self"]
    assert (me["x"], me["y"]) == (start["x"], start["y"] + 1)
    env.close()


def test_bad_pettingzoo_settings_are_refused():
    for kwargs, word in (({"n_agents": 0}, "n_agents"), ({"actions": "json"}, "actions"),
                         ({"render_mode": "video"}, "render_mode")):
        with pytest.raises(ValueError, match=word):
            asiworld_pz.parallel_env(**kwargs)


def test_macro_moves_move_the_character_and_the_window_centres_on_it():
    env = AsiWorldEnv(world_seed=3, size=64, actions="macro")
    obs, info = env.reset()
    start = env._obs["self"]
    assert "gym at (" in env.text()
    env.step(MACROS.index("move_s"))
    env.step(NOOP)
    me = env._obs["self"]
    assert (me["x"], me["y"]) == (start["x"], start["y"] + 1)
    assert obs["tiles"][8, 8] != 0  # the centre tile is the character's own, always visible
    env.close()


def test_text_action_and_program_paths_reach_the_world():
    env = AsiWorldEnv(world_seed=3, size=64, actions="macro")
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
    env = AsiWorldEnv(world_seed=3, size=64, max_ticks=400, actions="macro")
    env.reset()
    total = 0.0
    for _ in range(150):
        action = MACROS.index("gather_nearest") if env._obs["self"]["action"] is None else NOOP
        _, reward, _, _, _ = env.step(action)
        total += reward
    assert total > 0
    inventory = env.encoder.encode(env._obs)["inventory"]
    assert np.sum(inventory) > 0
    env.close()
