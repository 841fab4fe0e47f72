"""Fork: a replay's world at some tick, to play on from there.

The fork is re-simulated from the replay (app/replay/worlds.py), so it is the true engine state,
memories included. `reseed` decides its future's randomness: `seed="new"` (or a number)
gives the world a new seed (asiworld.engine.seeding), which decides everything random from now
on: creature moves, combat rolls, drops, regrowth, the layout of every dungeon entered from now
on, programs' and new agents' randomness. The map, the characters and everything already in the
world stay as they were.

Making the fork the live server's world is the server's part (app/server/fork.py): the world is
replaced in the server's pipeline.
"""

from __future__ import annotations

import secrets
from typing import Any

from asiworld.engine import codes, seeding

from .format import ReplayError


def reseed(world: Any, seed: Any) -> int:
    """Apply the fork's seed choice; returns the seed now driving the future's randomness."""
    if seed in (None, "same", ""):
        return int(world.seed)
    if seed == "new":
        seed = secrets.randbelow(2**31)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ReplayError(codes.BAD_ARGUMENT, "seed is 'same', 'new' or a whole number >= 0")
    seeding.reseed(world, seed)
    return seed
