"""Fork: the live server's world becomes a replay's world at some tick, and play goes on from there.

The fork is re-simulated from the replay (app/replay/worlds.py), so it is the true engine state,
memories included. Then, on the runner thread between two ticks:

* the running World object takes the forked state in place (`vars(world)` swapped), so every
  part of the server that holds the world (spectators, agent API, programs) keeps working;
* the frame builder starts a new baseline and every spectator is sent a keyframe;
* built-in agents stop driving the old world's characters; the fork's characters whose label is
  a built-in configuration get a new agent of that configuration (an agent's private memory is
  not in a replay: it starts over from what its character observes);
* browser seats and agent tokens of the old world are dropped (their character ids now name
  other characters);
* `seed="new"` (or a number) re-seeds the world's random generator, which decides everything
  random from now on (creature moves, combat rolls, drops, regrowth, dungeon layouts). The map,
  the characters and everything already in the world stay as they were.
"""

from __future__ import annotations

import random
import secrets
from typing import Any

from .format import ReplayError


def reseed(world: Any, seed: Any) -> int:
    """Apply the fork's seed choice; returns the seed now driving the future's randomness."""
    if seed in (None, "same", ""):
        return int(world.seed)
    if seed == "new":
        seed = secrets.randbelow(2**31)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ReplayError("bad_argument", "seed is 'same', 'new' or a whole number >= 0")
    world.rng = random.Random(seed)
    return seed


def install(app: Any, forked: Any, take_over: int | None, name: str = "") -> dict[str, Any]:
    """Make `forked` the server's running world; seat a browser player on `take_over`."""
    from asiworld.server import services
    from asiworld.server.live import Seat

    svc = services(app)
    runner, live = svc.runner, svc.live
    if take_over is not None and take_over not in {c.id for c in forked.characters()}:
        raise ReplayError("unknown_character", f"there is no character {take_over} at that tick")

    def swap() -> dict[str, Any]:
        world = runner.world
        vars(world).clear()
        vars(world).update(vars(forked))
        runner.frames = type(runner.frames)(world)
        runner._keyframe = None
        runner._log_seen = world.input_log_end
        builtin = _replace_builtin_agents(runner, skip=take_over)
        store = app.extensions.get("asiworld_store")
        if store is not None:  # the saved history starts again from the fork
            store.rebase(world, builtin)
        agents = app.extensions.get("asiworld_agents")
        if agents is not None:
            with agents._lock:
                agents.seats.clear()
                agents.by_token.clear()
        live.seats.clear()
        live.seat_of_sid.clear()
        seat = None
        if take_over is not None:
            char = world.entities[take_over]
            seat = Seat(token=secrets.token_urlsafe(16), char=take_over, name=name or char.name)
            live.seats[seat.token] = seat
        for sid in list(live.spectators):
            live.add_spectator(sid)  # a keyframe of the fork, then its deltas
        return {
            "tick": world.tick,
            "char": take_over,
            "token": seat.token if seat else None,
            "name": seat.name if seat else None,
        }

    return runner.call(swap, timeout=30)


def _replace_builtin_agents(runner: Any, skip: int | None) -> list[dict]:
    """Fresh built-in agents for the fork's built-in characters; returns them as the data
    folder records them ({char, config, seed})."""
    from asiworld.agents.builtin import available, make_agent
    from asiworld.agents.driver import AgentDriver

    runner._before[:] = [
        hook
        for hook in runner._before
        if not isinstance(getattr(hook, "__self__", None), AgentDriver)
    ]
    driver = AgentDriver(runner.world)
    names = set(available())
    builtin = []
    for char in runner.world.characters():
        if char.id != skip and char.label in names:
            seed = runner.world.seed + char.id
            driver.add(char.id, make_agent(char.label, seed=seed))
            builtin.append({"char": char.id, "config": char.label, "seed": seed})
    if driver.seats:
        runner.before_tick(driver.before_step)
    return builtin
