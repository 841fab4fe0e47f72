"""Grace nights (a world option for new players, `serve --grace-nights N`): shades neither come
for nor hunt a character in its first N nights, counting the night of the day it joined. The
grace is the character's own, written in its join row, so a replay and a snapshot give it back;
a world without grace hashes and snapshots as it always did."""

from __future__ import annotations

from asiworld.engine import World, clock
from asiworld.engine.content import load_content
from asiworld.engine.resim import replay_inputs

CONTENT = load_content()
DAY = clock.day_ticks(CONTENT)
NIGHT = clock.night_start(CONTENT)


def world_with_a_learner_and_a_veteran(grace: int = 1) -> tuple[World, int, int]:
    world = World.create(seed=4, content=CONTENT, size=64)
    world.grace_nights = grace
    learner = world.add_character("learner")
    veteran = world.add_character("veteran", grace_nights=0)  # the world's setting, overridden
    return world, learner, veteran


def shade_hits(events: list[dict], char: int) -> int:
    return sum(1 for e in events
               if e["kind"] == "damaged" and e.get("char") == char and e.get("source") == "shade")


def night(world: World, number: int) -> list[dict]:
    """Step through night `number` (1: the first); the events of that night."""
    start, end = (number - 1) * DAY + NIGHT, number * DAY
    while world.tick < start:
        world.step()
    events: list[dict] = []
    while world.tick < end:
        events.extend(world.step())
    return events


def test_shades_spare_a_character_its_grace_nights_and_come_after():
    world, learner, veteran = world_with_a_learner_and_a_veteran(grace=1)
    first = night(world, 1)
    assert shade_hits(first, veteran) > 0  # the same night, outside: shades came for it
    assert shade_hits(first, learner) == 0
    second = night(world, 2)
    assert shade_hits(second, learner) > 0  # its one grace night is over


def test_the_grace_is_in_the_join_row_and_a_replay_gives_it_back():
    world, learner, _ = world_with_a_learner_and_a_veteran(grace=2)
    night(world, 1)
    joins = [row[2] for row in world.input_log if row[1] is None]
    assert joins[0]["grace_nights"] == 2 and "grace_nights" not in joins[1]
    again = replay_inputs(4, world.input_log, world.tick, content=CONTENT, size=64)
    assert again.state_hash() == world.state_hash()
    assert again.entities[learner].grace_nights == 2


def test_a_snapshot_keeps_a_characters_grace_and_a_world_without_grace_writes_none():
    world, learner, veteran = world_with_a_learner_and_a_veteran(grace=3)
    restored = World.restore(world.snapshot(), CONTENT)
    assert restored.entities[learner].grace_nights == 3
    assert restored.entities[veteran].grace_nights == 0
    assert restored.state_hash() == world.state_hash()
    plain = World.create(seed=4, content=CONTENT, size=64)
    plain.add_character("ada")
    assert b"grace_nights" not in plain.snapshot()


def test_the_observation_says_how_many_grace_nights_are_left_only_where_there_are_any():
    world, learner, veteran = world_with_a_learner_and_a_veteran(grace=2)
    assert world.observe(learner)["self"]["grace_nights_left"] == 2
    assert "grace_nights_left" not in world.observe(veteran)["self"]
    night(world, 1)
    assert world.observe(learner)["self"]["grace_nights_left"] == 1  # day 2: tonight's left
