"""Where every random stream of a world comes from: the seeding rules, in one place.

A world has one seed (`World.seed`). Everything random follows from it:

- the surface (`worldgen`): numpy's generator from (seed, SURFACE_SALT), once, when the world is
  made;
- the world's own stream (`World.rng`): creatures' moves, combat rolls, drops, regrowth;
- each dungeon entry's layout: a stream of its own from (seed, character, tier, entry count), so
  an entry gives the same instance however much of the world's stream was used before it;
- each program's `random`: from (seed, character, program key);
- each built-in agent's choices: from (seed, its position), `builtin_seed` in
  asiworld.agents.bots.driver (an agent is not the engine's).

`reseed` gives a world a new seed for its future (a replay's fork "with a new seed"): its own
stream, and every layout, program and agent from then on, follow the new seed; the map and
everything already in the world stay as they are.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .world import World

SURFACE_SALT = 0xA51


def surface_rng(seed: int) -> np.random.Generator:
    return np.random.default_rng([seed, SURFACE_SALT])


def world_rng(seed: int) -> random.Random:
    return random.Random(seed)


def dungeon_rng(seed: int, char_id: int, tier: int, count: int) -> random.Random:
    # A string seed hashes the same way in every process (unlike hash() of a tuple).
    return random.Random(f"dungeon:{seed}:{char_id}:{tier}:{count}")


def program_seed(seed: int, char_id: int, key: int) -> str:
    return f"{seed}:{char_id}:{key}"


def reseed(world: World, seed: int) -> None:
    """The world's future follows `seed`: its own stream and every stream made from now on."""
    world.seed = int(seed)
    world.rng = world_rng(world.seed)
