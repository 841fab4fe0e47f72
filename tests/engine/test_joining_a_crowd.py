"""Joining places a character on the nearest free tile however crowded the plaza is (issue 22:
a 256-tile map refused its 521st character, "no free tile near (128, 128)", because joins only
looked 12 tiles round the plaza); only a world with no tile left refuses, with `world_full`,
and that refusal changes nothing."""

from __future__ import annotations

import pytest
from asiworld.engine import World
from asiworld.engine.errors import WorldFull
from asiworld.engine.model import SURFACE


def standable(world: World) -> int:
    area = world.areas[SURFACE]
    height, width = area.terrain.shape
    return sum(world.walkable(area, x, y) for y in range(height) for x in range(width))


def test_a_crowd_fills_the_map_outwards_from_the_plaza_and_then_the_world_is_full():
    world = World.create(seed=3, size=48)
    room = standable(world)
    assert room > 25 * 25  # more than the 12-tile square round the plaza holds
    plaza = world.landmarks.plaza
    distances = []
    for i in range(room):
        char = world.entities[world.add_character(f"c{i}")]
        distances.append(max(abs(char.x - plaza[0]), abs(char.y - plaza[1])))
    assert distances == sorted(distances)  # always the nearest ring with room
    assert max(distances) > 12
    assert standable(world) == 0

    before = (world.next_id, len(world.entities), len(world.input_log), world.state_hash())
    with pytest.raises(WorldFull) as refused:
        world.add_character("one-too-many")
    assert refused.value.code == "world_full" and "no free tile" in refused.value.message
    assert (world.next_id, len(world.entities), len(world.input_log), world.state_hash()) == before


def test_the_first_joins_take_the_same_tiles_as_before():
    """The search order is unchanged (ring by ring, each row by row): the first characters of
    any world stand where they always stood, so every recorded state hash still holds."""
    world = World.create(seed=3, size=48)
    x0, y0 = world.landmarks.plaza
    ring_order = [(x0 + dx, y0 + dy) for r in range(3) for dy in range(-r, r + 1)
                  for dx in range(-r, r + 1) if max(abs(dx), abs(dy)) == r]
    free = [p for p in ring_order if world.walkable(world.areas[SURFACE], *p)]
    placed = [world.entities[world.add_character(f"c{i}")] for i in range(len(free))]
    assert [(c.x, c.y) for c in placed] == free
