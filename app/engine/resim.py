"""Re-simulation: a fresh world from a seed, fed an input log, reaches the same states."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .content import Content
from .world import World


def replay_inputs(seed: int, log: Iterable[tuple[int, int | None, dict[str, Any]]],
                  until_tick: int, content: Content | None = None, size: int | None = None,
                  on_tick: Callable[[World, list[dict[str, Any]]], None] | None = None) -> World:
    """Run a new world to `until_tick`, applying each logged input at its tick. Joins
    (char None) are made before that tick's step, like `World.add_character` in a live world."""
    world = World.create(seed=seed, content=content, size=size)
    by_tick: dict[int, list[tuple[int | None, dict[str, Any]]]] = {}
    for tick, char, action in log:
        by_tick.setdefault(int(tick), []).append((char, action))
    while world.tick < until_tick:
        inputs = []
        for char, action in by_tick.get(world.tick, ()):
            if char is None and action.get("type") == "join":
                made = world.add_character(action["name"], action.get("label", ""))
                if "id" in action and made != action["id"]:
                    raise ValueError(f"join at tick {world.tick} made character {made},"
                                     f" the log says {action['id']}")
            else:
                inputs.append((char, action))
        events = world.step(inputs)
        if on_tick is not None:
            on_tick(world, events)
    return world
