"""Frames carry exactly what changed: applied one after another to the keyframe, they give every
entity's public view at every tick, creatures included (a frame reuses a creature's view while
its fields are the same instead of building it again)."""

from __future__ import annotations

from collections.abc import Callable

from asiworld.agents.bots.builtin import make_agent
from asiworld.engine import World
from asiworld.engine.frames import FrameBuilder, _creature_entity, creature_view, public_entity
from asiworld.engine.model import Character, Creature
from asiworld.engine.rules.combat import harm


def test_frames_applied_in_turn_give_every_entity_at_every_tick():
    world = World.create(seed=3, size=48)
    agents = {world.add_character(f"c{i}", label="rusher"): make_agent("rusher", seed=i)
              for i in range(3)}
    builder = FrameBuilder(world)
    shown = {int(k): v for k, v in builder.keyframe()["keyframe"]["entities"].items()}
    creature_changes = 0
    for _ in range(400):
        for cid, agent in agents.items():
            if world.tick % 3 == 0:
                action = agent.decide(world.observe(cid))
                if action is not None and action.get("type") != "program":
                    world.submit(cid, action)
        builder_events = world.step()
        deltas = builder.frame(builder_events)["deltas"]
        for key, view in deltas.get("entities", {}).items():
            creature_changes += isinstance(world.entities.get(int(key)), Creature)
            shown[int(key)] = view
        for gone in deltas.get("removed", []):
            del shown[gone]
        assert shown == {eid: public_entity(e) for eid, e in world.entities.items()}, world.tick
    assert creature_changes > 0  # creatures moved or were hit, and their frames said so


def test_a_creature_back_where_it_stood_when_someone_joins_is_framed_where_it_stands():
    # While nobody comes or goes, frames compare each creature with its last frame; a frame
    # after a join walks every entity again and must compare with what the last frame showed,
    # not with what the creature was when the walk before it was made.
    world = World.create(seed=3, size=48)
    builder = FrameBuilder(world)
    shown = {int(k): v for k, v in builder.keyframe()["keyframe"]["entities"].items()}
    sheep = next(e for e in world.entities.values() if isinstance(e, Creature))
    sheep.next_move = 10**9  # it stands still unless moved here
    start, spot = (sheep.x, sheep.y), None

    def frame():
        for key, view in builder.frame([])["deltas"].get("entities", {}).items():
            shown[int(key)] = view

    frame()  # the walk of every entity, remembered with the sheep at its start
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if world.walkable(world.areas[sheep.area], start[0] + dx, start[1] + dy):
            spot = (start[0] + dx, start[1] + dy)
            break
    world.move_entity(sheep, *spot)
    frame()
    assert (shown[sheep.id]["x"], shown[sheep.id]["y"]) == spot
    world.move_entity(sheep, *start)
    world.add_character("late")  # someone joins: every entity is walked again
    frame()
    assert shown == {eid: public_entity(e) for eid, e in world.entities.items()}



def _framed(world: World) -> tuple[FrameBuilder, dict[int, dict], Callable[[], None]]:
    """A builder, what its frames showed so far, and a step that frames the tick and checks
    that the frames show every entity as it is."""
    builder = FrameBuilder(world)
    shown = {int(k): v for k, v in builder.keyframe()["keyframe"]["entities"].items()}

    def step() -> None:
        deltas = builder.frame(world.step())["deltas"]
        for key, view in deltas.get("entities", {}).items():
            shown[int(key)] = view
        for gone in deltas.get("removed", []):
            del shown[gone]
        assert shown == {eid: public_entity(e) for eid, e in world.entities.items()}, world.tick

    return builder, shown, step


def _ada_and_a_sheep() -> tuple[World, Character, Creature]:
    """A small world where no creature moves on its own, ada in it, and one of its sheep."""
    world = World.create(seed=3, size=48)
    ada = world.entities[world.add_character("ada")]
    sheep = next(e for e in world.entities.values() if isinstance(e, Creature)
                 and e.kind == "sheep")
    for ent in world.entities.values():
        if isinstance(ent, Creature):
            ent.next_move = 10**9
    return world, ada, sheep


def test_a_creature_hit_where_it_stands_is_framed_with_its_health():
    # While nobody comes or goes, a frame reads again only the creatures the world noted as
    # changed (World.entity_changed): a hit that does not move its victim is noted too.
    world, ada, sheep = _ada_and_a_sheep()
    _, shown, step = _framed(world)
    step()  # the walk of every entity; the frames after it read only what was noted
    harm(world, sheep, 1, source=ada)
    step()
    assert shown[sheep.id]["health"] == sheep.max_health - 1


def test_a_creature_is_framed_only_when_what_a_spectator_sees_of_it_changes():
    # A phase is shown of a boss alone: a sheep whose phase changes, noted as changed, is in no
    # frame; the same sheep hit is.
    world, ada, sheep = _ada_and_a_sheep()
    builder, _, step = _framed(world)
    step()
    sheep.phase += 1
    world.entity_changed(sheep)
    assert str(sheep.id) not in builder.frame(world.step())["deltas"].get("entities", {})
    harm(world, sheep, 1, source=ada)
    assert builder.frame(world.step())["deltas"]["entities"][str(sheep.id)] == \
        public_entity(sheep)


def test_the_shadow_king_framed_through_his_second_phase():
    from tests.engine.test_dungeons import make_world, sanctum_with_king

    world = make_world()
    ada, king = sanctum_with_king(world)
    _, shown, step = _framed(world)
    step()
    harm(world, king, 251, source=ada)
    for _ in range(6):
        step()
    assert (shown[king.id]["health"], shown[king.id]["phase"]) == (king.health, 2)


def test_a_creature_read_through_its_fields_is_its_public_entity():
    world = World.create(seed=3, size=48)
    creatures = [e for e in world.entities.values() if isinstance(e, Creature)]
    creatures.append(world.add_creature("shadow_king", creatures[0].area, (1, 1), boss=True))
    for cr in creatures:
        made = _creature_entity(cr.id, creature_view(cr))
        assert made == public_entity(cr) and list(made) == list(public_entity(cr))


def test_a_character_that_stood_still_is_framed_when_any_of_its_fields_changes():
    # A character unchanged at the last frame is compared through its fields (character_view)
    # before its dict is built again: each field a spectator sees, changed in place where the
    # engine changes it so (a pack's slot, the equipment, the tasks), must reach the frames.
    from asiworld.engine.model import Op

    world = World.create(seed=3, size=48)
    ada = world.entities[world.add_character("ada")]
    for ent in world.entities.values():
        if isinstance(ent, Creature):
            ent.next_move = 10**9  # nobody else moves
    builder, shown, _ = _framed(world)

    def frame_still_then(change: Callable[[], None]) -> None:
        for _ in range(2):  # the second frame finds ada unchanged: watched through her fields
            for key, view in builder.frame([])["deltas"].get("entities", {}).items():
                shown[int(key)] = view
        change()
        for key, view in builder.frame([])["deltas"].get("entities", {}).items():
            shown[int(key)] = view
        assert shown[ada.id] == public_entity(ada)

    ada.inventory.append(["wood", 1])
    changes = [
        lambda: ada.inventory[0].__setitem__(1, 2),  # a slot's count, written in place
        lambda: ada.equipment.__setitem__("weapon", "wooden_sword"),
        lambda: ada.tasks.__setitem__("hero", 5),
        lambda: setattr(ada, "op", Op(id=7, type="wait", args={"ticks": 3})),
        lambda: setattr(ada, "op", Op(id=8, type="wait", args={"ticks": 3})),  # another op
        lambda: setattr(ada, "op", None),
    ]
    plain = [key for key in public_entity(ada)
             if key not in ("id", "kind", "inventory", "equipment", "tasks", "action")]
    for key in plain:  # every other field public_entity gives, whatever its type
        value = getattr(ada, key)
        new = (not value) if isinstance(value, bool) else \
            value + 1 if isinstance(value, int) else f"{value}-renamed"
        changes.append(lambda key=key, new=new: setattr(ada, key, new))
    for change in changes:
        frame_still_then(change)
    assert len(plain) >= 13  # x, y, area, health, ... sanctum_open
