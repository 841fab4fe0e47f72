"""Re-simulation: a world fed an input log reaches the same states. The one loop that does it,
`resimulate`, serves every caller (a resumed server, replay verification, the replay viewer's
worlds and forks); the log itself is read with `World.input_log_end` / `World.inputs_since`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .content import Content
from .world import World

Row = tuple[int, int | None, dict[str, Any]]  # (tick, char or None for a join, action)
ByTick = Mapping[int, Sequence[tuple[int | None, dict[str, Any]]]]


class ResimMismatch(ValueError):
    """The log cannot be followed by this world (a join made another character id)."""


def inputs_by_tick(log: Iterable[Row]) -> dict[int, list[tuple[int | None, dict[str, Any]]]]:
    """A log's rows grouped by tick, in log order: (char, action) per tick."""
    by_tick: dict[int, list[tuple[int | None, dict[str, Any]]]] = {}
    for tick, char, action in log:
        by_tick.setdefault(int(tick), []).append((char, action))
    return by_tick


def resimulate(world: World, log: Iterable[Row] | ByTick, until_tick: int,
               on_tick: Callable[[World, list[dict[str, Any]]], None] | None = None) -> World:
    """Bring `world` forward to `until_tick`, applying each logged input at its tick: the joins
    (char None) of tick T become `add_character` before T's step, in log order, and must make
    the character id the log says (else ResimMismatch); the actions go to `step(inputs)`.
    `on_tick(world, events)` runs after each step."""
    by_tick = log if isinstance(log, Mapping) else inputs_by_tick(log)
    while world.tick < until_tick:
        inputs = []
        for char, action in by_tick.get(world.tick, ()):
            if char is None and action.get("type") == "join":
                made = world.add_character(action.get("name", ""), action.get("label", ""),
                                           action.get("grace_nights", 0))
                if "id" in action and made != action["id"]:
                    raise ResimMismatch(f"join at tick {world.tick} made character {made},"
                                        f" the log says {action['id']}")
            else:
                inputs.append((char, action))
        events = world.step(inputs)
        if on_tick is not None:
            on_tick(world, events)
    return world


def replay_inputs(seed: int, log: Iterable[Row] | ByTick, until_tick: int,
                  content: Content | None = None, size: int | None = None,
                  on_tick: Callable[[World, list[dict[str, Any]]], None] | None = None) -> World:
    """Run a new world from `seed` to `until_tick` with `resimulate`."""
    world = World.create(seed=seed, content=content, size=size)
    return resimulate(world, log, until_tick, on_tick)
