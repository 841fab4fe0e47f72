"""The Gymnasium environment as a researcher meets it: registered ids, Gymnasium's own checker
with every render mode, vectors in both modes, seeds drawn from np_random, pixels from the
browser's atlas, the evaluation's achievements in `info`, and an action space that reaches every
action of the game."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from asiworld import protocol
from asiworld.agents.envs.action_space import CENTRE, WINDOW
from asiworld.agents.envs.gym_env import MACROS, AsiWorldEnv, Seat
from asiworld.agents.envs.gym_register import register_envs
from asiworld.agents.envs.pixels import atlas, find
from asiworld.engine import actions as engine_actions
from asiworld.evaluation.achievements import STAGE_NAMES
from gymnasium.utils.env_checker import check_env

register_envs()  # what `import asiworld` does (tests/agents/test_gym_registration.py)


@pytest.mark.parametrize("render_mode", [None, "ansi", "rgb_array"])
@pytest.mark.parametrize("env_id", ["ASIWorld-v0", "ASIWorldText-v0"])
def test_gymnasiums_checker_passes_for_each_id_and_render_mode(env_id, render_mode):
    env = gymnasium.make(env_id, size=48, max_ticks=60, render_mode=render_mode)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker's complaints are warnings: none allowed
        check_env(env.unwrapped)
    env.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_vector_steps_1000_times_through_resets_with_stable_info(mode):
    envs = gymnasium.make_vec("ASIWorld-v0", num_envs=2, vectorization_mode=mode, size=48,
                              max_ticks=300)
    envs.action_space.seed(1)
    obs, info = envs.reset(seed=11)
    truncations = 0
    for _ in range(1000):
        obs, reward, terminated, truncated, info = envs.step(envs.action_space.sample())
        truncations += int(truncated.sum())
        assert obs["tiles"].shape == (2, WINDOW, WINDOW) and reward.shape == (2,)
        assert info["result"]["ok"].dtype == bool and info["tick"].dtype.kind == "i"
        assert info["achievements"]["Foothold"].shape == (2,)
    assert truncations == 2 * 3  # each world ran out of ticks three times and was rebuilt
    envs.close()


def test_an_unseeded_reset_draws_a_new_world_from_np_random():
    env = AsiWorldEnv(size=48)
    env.reset(seed=3)
    first = env.headless.world.seed
    env.reset()
    second = env.headless.world.seed
    assert first != second  # a fresh map per episode, not the constructor's one again
    again = AsiWorldEnv(size=48)
    again.reset(seed=3)
    assert again.headless.world.seed == first
    again.reset()
    assert again.headless.world.seed == second  # the sequence follows the seed
    fixed = AsiWorldEnv(size=48, world_seed=5)
    fixed.reset(seed=3)
    fixed.reset()
    assert fixed.headless.world.seed == 5  # a fixed map for every episode, when asked
    for e in (env, again, fixed):
        e.close()


def test_rgb_array_draws_the_view_with_the_browsers_sprites():
    env = AsiWorldEnv(size=48, render_mode="rgb_array")
    env.reset(seed=3)
    picture = env.render()
    sprites, tile, pixels = atlas()
    assert picture.shape == (WINDOW * tile, WINDOW * tile, 3) and picture.dtype == np.uint8
    centre = picture[8 * tile : 9 * tile, 8 * tile : 9 * tile].astype(int)
    x, y = find(f"character_{env.char % 8}" if env.char % 8 else "character")
    sprite = pixels[y : y + tile, x : x + tile]
    opaque = sprite[..., 3] == 1.0
    assert opaque.any()
    assert np.abs(centre[opaque] - (sprite[opaque][:, :3] * 255).round()).max() <= 1
    hidden = env.encoder.encode(env._obs)["tiles"] == 0
    assert hidden.any()  # the corners are out of sight: black, as in the browser's fog
    row, col = np.argwhere(hidden)[0]
    assert picture[row * tile : (row + 1) * tile, col * tile : (col + 1) * tile].max() == 0
    env.close()


def test_info_carries_the_steps_events_and_the_evaluations_achievements():
    env = AsiWorldEnv(size=48, actions="macro")
    _, info = env.reset(seed=3)
    assert info["achievements"] == dict.fromkeys(STAGE_NAMES, False) and info["trial"] == 0
    assert info["result"]["sent"] is False and info["events"] == []
    _, _, _, _, info = env.step(MACROS.index("move_s"))
    assert info["result"] == {"sent": True, "ok": True, "code": "accepted",
                              "message": "move accepted"}
    kinds = [(e["kind"], e.get("type")) for e in info["events"]]
    assert ("action", "move") in kinds
    assert all(e["char"] == env.char for e in info["events"])
    env.close()


def test_the_curriculum_reward_pays_each_stage_the_evaluation_sees_met():
    env = AsiWorldEnv(size=48, reward="curriculum")
    env.reset(seed=3)
    seat: Seat = env.seat
    tick = env.headless.world.tick
    unlocked = {"tick": tick, "kind": "home", "char": env.char, "area": 20, "locked": False}
    home = {**unlocked, "locked": True}
    other = {**home, "char": env.char + 1}
    for events, paid in (([unlocked], 0.0), ([other], 0.0), ([home], 1.0), ([home], 0.0)):
        mine, newly_met = seat.progress(events, tick)
        assert seat.reward("curriculum", mine, newly_met) == paid
    assert seat.info(dict(), [], tick)["achievements"]["Home"] is True
    env.close()


def test_the_action_space_reaches_every_action_of_the_table():
    env = AsiWorldEnv(size=48)
    env.reset(seed=3)
    types = [a["type"] for a in protocol.actions()]
    assert list(env.action_space.nvec[:1]) == [1 + len(types)]
    obs = dict(env._obs)
    me = obs["self"]
    neighbour = {"id": 999, "kind": "sheep", "x": me["x"] + 1, "y": me["y"], "hostile": False}
    obs["entities"] = [*obs["entities"], neighbour]
    east = CENTRE + 1
    reached = set()
    for verb, kind in enumerate(types, start=1):
        action = env.decoder.action([verb, east, 3], obs)
        assert action["type"] == kind
        engine_actions.parse(action)  # a well-formed action of that type (the world may refuse)
        reached.add(kind)
    assert reached == set(types)
    assert env.decoder.action([0, east, 0], obs) is None  # noop sends nothing
    move = env.decoder.action([types.index("move") + 1, east, 0], obs)
    assert move == {"type": "move", "dir": "e"}
    attack = env.decoder.action([types.index("attack") + 1, CENTRE - 1, 0], obs)
    assert attack["ok"] is False and attack["code"] == "no_target"  # nobody to the west
    craft = env.decoder.action([types.index("craft") + 1, CENTRE, 0], obs)
    assert craft["recipe"] == env.decoder.table.recipes[0] and "count" not in craft
    env.close()


def test_a_table_action_reaches_the_world():
    env = AsiWorldEnv(size=48)
    env.reset(seed=3)
    start = env._obs["self"]
    move = 1 + [a["type"] for a in protocol.actions()].index("move")
    env.step([move, CENTRE + WINDOW, 0])  # the tile below: south
    env.step([0, 0, 0])
    me = env._obs["self"]
    assert (me["x"], me["y"]) == (start["x"], start["y"] + 1)
    env.close()


def test_the_text_variant_observes_text_and_takes_json_actions():
    env = gymnasium.make("ASIWorldText-v0", size=48).unwrapped
    obs, _ = env.reset(seed=3)
    assert "gym at (" in obs and env.observation_space.contains(obs)
    start = env._obs["self"]
    for text in ("not json", "[1, 2]", '{"type": "fly"}'):  # bad inputs tried
        _, _, _, _, info = env.step(text)
        assert info["result"]["ok"] is False, text
        assert info["result"]["code"] in ("bad_json", "bad_action", "unknown_action"), text
    _, _, _, _, info = env.step('{"type": "move", "dir": "s"}')
    assert info["result"]["ok"] is True
    obs, *_ = env.step('{"type": "wait"}')
    me = env._obs["self"]
    assert (me["x"], me["y"]) == (start["x"], start["y"] + 1)
    assert f"({me['x']}, {me['y']})" in obs
    env.close()


@pytest.mark.parametrize(
    "kwargs, word",
    [({"observation": "pixels"}, "observation"), ({"actions": "verbs"}, "actions"),
     ({"reward": "money"}, "reward"), ({"render_mode": "human"}, "render_mode")],
)
def test_bad_settings_are_refused_with_a_sentence(kwargs, word):
    with pytest.raises(ValueError, match=word):
        AsiWorldEnv(**kwargs)


def test_the_arrays_read_from_the_world_are_the_arrays_of_its_observation():
    """The environments encode straight from the world's state (Encoder.encode_world); through
    a day's dusk (the view's radius shrinks) and with other characters in view, every array is
    the one `encode(world.observe(...))` gives, and the table actions decode against the same
    bodies."""
    from asiworld.agents.envs.pz_env import AsiWorldParallelEnv

    env = AsiWorldParallelEnv(n_agents=3, size=48, max_ticks=10**6, world_seed=3)
    env.reset(seed=3)
    world, encoder = env.headless.world, env.encoder
    rng = np.random.default_rng(5)
    checked = phases = stocked = 0
    seen_bodies = set()
    # a batch row is written in place over whatever it held (here, another seat's arrays)
    row = {k: np.full_like(v, 7) for k, v in encoder.encode_world(world, env.seats[env.agents[0]].char)[0].items()}
    while world.tick < 1210:  # night falls at tick 1200
        env.step({a: int(rng.integers(env.action_space(a).n)) for a in env.agents})
        if world.tick % 5 and abs(world.tick - 1200) > 5:
            continue  # every fifth tick, and every tick round dusk
        for seat in env.seats.values():
            arrays, glance = encoder.encode_world(world, seat.char)
            whole = world.observe(seat.char, consume=False)
            into, _ = encoder.encode_world(world, seat.char, row)
            for name, expected in encoder.encode(whole).items():
                assert np.array_equal(arrays[name], expected), (name, world.tick)
                assert np.array_equal(into[name], expected), (name, world.tick)
            stocked += bool(arrays["inventory"].any())
            me = whole["self"]
            in_window = [{"id": e["id"], "x": e["x"], "y": e["y"]} for e in whole["entities"]
                         if max(abs(e["x"] - me["x"]), abs(e["y"] - me["y"])) <= WINDOW // 2]
            assert glance == {"self": {"x": me["x"], "y": me["y"]}, "entities": in_window}
            seen_bodies.update(e["kind"] for e in whole["entities"])
            phases |= 1 << int(arrays["stats"][7])
            checked += 1
    assert checked == 3 * (242 + 8) and phases == 0b101  # day and night both encoded
    assert stocked  # gathered items encoded too
    assert "character" in seen_bodies and len(seen_bodies) > 1  # people and creatures in view
    env.close()


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return a.dtype == b.dtype and a.shape == b.shape and all(
        x == y if isinstance(x, list | str) else np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_the_batched_vector_gives_what_gymnasiums_sync_vector_gives():
    """`make_vec` without a mode builds the batched vector (one process, rows written in
    place); for the same seeds and actions it returns what SyncVectorEnv returns, through
    episode ends and their autoresets."""
    from asiworld.agents.envs.gym_vector import AsiWorldVectorEnv

    kwargs = {"num_envs": 3, "size": 48, "max_ticks": 40}
    batched = gymnasium.make_vec("ASIWorld-v0", **kwargs)
    sync = gymnasium.make_vec("ASIWorld-v0", vectorization_mode="sync", **kwargs)
    assert isinstance(batched.unwrapped, AsiWorldVectorEnv)
    assert batched.observation_space == sync.observation_space
    assert batched.action_space == sync.action_space
    assert batched.metadata["autoreset_mode"] == sync.metadata["autoreset_mode"]
    got, want = batched.reset(seed=21), sync.reset(seed=21)
    assert _same(got[0], want[0]) and _same(got[1], want[1])
    sync.action_space.seed(4)
    ends = 0
    for _ in range(90):  # two episode ends each, and the steps that reset after them
        action = sync.action_space.sample()
        got, want = batched.step(action), sync.step(action)
        assert _same(got[0], want[0]), "observations"
        for b, s in zip(got[1:4], want[1:4], strict=True):
            assert b.dtype == s.dtype and np.array_equal(b, s)  # rewards, ends
        assert _same(got[4], want[4]), "infos"
        ends += int(got[3].sum())
    assert ends == 3 * 2
    got[0]["tiles"][:] = 0  # what a step returned is the caller's to keep (a copy)
    assert batched.unwrapped._observations["tiles"].any()
    batched.close()
    sync.close()


def test_the_batched_vector_of_the_text_variant_observes_a_tuple_of_texts():
    envs = gymnasium.make_vec("ASIWorldText-v0", num_envs=2, size=48)
    obs, _ = envs.reset(seed=2)
    assert isinstance(obs, tuple) and len(obs) == 2 and all("gym at (" in o for o in obs)
    obs, *_ = envs.step(('{"type": "wait"}', "not json"))
    assert envs.observation_space.contains(obs)
    envs.close()
    with pytest.raises(ValueError, match="num_envs"):  # a bad size is refused with a sentence
        gymnasium.make_vec("ASIWorld-v0", num_envs=0)
