"""A fork "with a new seed" changes the future, dungeon layouts included (issue 33). Before,
`reseed` replaced only the world's own random stream while layouts were drawn from the world's
seed, so every dungeon entered after the fork was laid out exactly as in the replay, although
the fork, the viewer's docs and the replay page said otherwise."""

from __future__ import annotations

import random

import numpy as np
import pytest
from asiworld.engine import World
from asiworld.engine.dungeons import open_instance
from asiworld.replay.fork import reseed


def first_tier_after_a_fork(seed_choice) -> np.ndarray:
    world = World.create(seed=3, size=48)
    ada = world.entities[world.add_character(name="ada")]
    reseed(world, seed_choice)
    return open_instance(world, ada, 1).terrain


def test_a_new_seed_lays_out_the_next_dungeon_anew():
    assert not np.array_equal(first_tier_after_a_fork("same"), first_tier_after_a_fork(12345))


def test_the_same_seed_keeps_the_replays_layouts():
    assert np.array_equal(first_tier_after_a_fork("same"), first_tier_after_a_fork(None))


def test_the_new_seed_is_the_worlds_seed_from_then_on():
    world = World.create(seed=3, size=48)
    before = world.areas[0].terrain.copy()
    assert reseed(world, 12345) == 12345
    assert world.seed == 12345
    assert world.rng.random() == random.Random(12345).random()
    assert np.array_equal(world.areas[0].terrain, before)  # the map stays as it was


@pytest.mark.parametrize("bad", [-1, 1.5, "maybe", True])
def test_a_bad_seed_choice_is_refused_and_changes_nothing(bad):
    from asiworld.replay.format import ReplayError

    world = World.create(seed=3, size=48)
    state = world.rng.getstate()
    with pytest.raises(ReplayError):
        reseed(world, bad)
    assert world.seed == 3 and world.rng.getstate() == state
