"""Building: placing and dismantling, doors and locks, homes and their completed building area."""

from __future__ import annotations

from asiworld.engine.model import SURFACE, Structure


def build_room(arena, owner, x0, y0, x1, y1, door=(None, None), locked=True, floor=True):
    """Walls around the rectangle (x0, y0)-(x1, y1) inclusive, one door, floor inside."""
    area = arena.world.areas[SURFACE]
    for x in range(x0, x1 + 1):
        for y in range(y0, y1 + 1):
            edge = x in (x0, x1) or y in (y0, y1)
            if edge:
                kind = "door" if (x, y) == door else "wall"
                area.structures[(x, y)] = Structure(kind=kind, owner=owner.id, has_lock=kind == "door",
                                                    locked=locked and kind == "door")
            elif floor:
                area.floor[(x, y)] = owner.id
    area.version += 1


def refresh(arena, char):
    from asiworld.engine import homes

    homes.refresh_home(arena.world, char)


def test_placing_a_wall_uses_the_item_and_it_belongs_to_its_builder(arena):
    ada = arena.hero(items={"wall": 1})
    events = arena.act(ada, {"type": "place", "item": "wall", "x": 21, "y": 20})
    area = arena.world.areas[SURFACE]
    assert area.structures[(21, 20)].owner == ada.id and ada.count("wall") == 0
    assert [e["kind"] for e in events].count("placed") == 1


def test_nothing_is_placed_on_water_or_on_an_occupied_tile(arena):
    ada = arena.hero(items={"wall": 2})
    arena.tile(21, 20, "water")
    assert arena.refused(ada.id, {"type": "place", "item": "wall", "x": 21, "y": 20}) == \
        "cannot_place_here"
    arena.creature("sheep", (19, 20))
    assert arena.refused(ada.id, {"type": "place", "item": "wall", "x": 19, "y": 20}) == \
        "cannot_place_here"


def test_a_wall_blocks_movement(arena):
    ada = arena.hero(items={"wall": 1})
    arena.act(ada, {"type": "place", "item": "wall", "x": 21, "y": 20})
    assert arena.refused(ada.id, {"type": "move", "dir": "e"}) == "blocked"


def test_dismantling_gives_the_materials_back_and_only_the_owner_may(arena):
    ada = arena.hero(items={"wood": 4})
    bob = arena.hero("bob", at=(22, 21))
    arena.act(ada, {"type": "place", "item": "workbench", "x": 21, "y": 20})
    assert ada.count("wood") == 0
    assert arena.refused(bob.id, {"type": "dismantle", "x": 21, "y": 20}) == "not_owner"
    arena.act(ada, {"type": "dismantle", "x": 21, "y": 20})
    assert ada.count("wood") == 4
    assert (21, 20) not in arena.world.areas[SURFACE].structures


def test_a_locked_door_passes_only_its_owner(arena):
    ada = arena.hero(items={"door": 1, "lock": 1})
    bob = arena.hero("bob", at=(21, 21))
    arena.act(ada, {"type": "place", "item": "door", "x": 21, "y": 20})
    assert arena.refused(ada.id, {"type": "lock", "x": 21, "y": 20}) == "needs_lock"
    arena.act(ada, {"type": "install_lock", "x": 21, "y": 20})
    arena.act(ada, {"type": "lock", "x": 21, "y": 20})
    assert arena.refused(bob.id, {"type": "move", "dir": "n"}) == "blocked"
    arena.act(ada, {"type": "move", "dir": "e"})
    assert (ada.x, ada.y) == (21, 20)


def test_a_locked_door_blocks_every_creature(arena):
    ada = arena.hero(items={"door": 1, "lock": 1})
    arena.act(ada, {"type": "place", "item": "door", "x": 21, "y": 20})
    arena.act(ada, {"type": "install_lock", "x": 21, "y": 20})
    arena.act(ada, {"type": "lock", "x": 21, "y": 20})
    area = arena.world.areas[SURFACE]
    shade = arena.creature("shade", (22, 20))
    assert not arena.world.walkable(area, 21, 20, shade)
    assert arena.world.walkable(area, 21, 20, ada)


def test_only_the_owner_locks_a_door(arena):
    ada = arena.hero(items={"door": 1, "lock": 1})
    bob = arena.hero("bob", at=(22, 21))
    arena.act(ada, {"type": "place", "item": "door", "x": 21, "y": 20})
    arena.act(ada, {"type": "install_lock", "x": 21, "y": 20})
    assert arena.refused(bob.id, {"type": "lock", "x": 21, "y": 20}) == "not_owner"


def test_a_locked_room_of_nine_floor_tiles_is_a_home_of_area_nine(arena):
    ada = arena.hero(at=(15, 15))
    build_room(arena, ada, 16, 16, 20, 20, door=(18, 16))  # 3x3 inside
    refresh(arena, ada)
    assert ada.home_area == 9 and ada.home_locked


def test_the_home_area_counts_only_enclosed_floor(arena):
    ada = arena.hero(at=(15, 15))
    build_room(arena, ada, 16, 16, 20, 20, door=(18, 16))
    area = arena.world.areas[SURFACE]
    area.floor[(21, 18)] = ada.id  # outside the walls: does not count
    del area.floor[(17, 17)]  # a bare tile inside: does not count
    refresh(arena, ada)
    assert ada.home_area == 8


def test_a_gap_in_the_walls_means_no_home(arena):
    ada = arena.hero(at=(15, 15))
    build_room(arena, ada, 16, 16, 20, 20, door=(18, 16))
    del arena.world.areas[SURFACE].structures[(20, 18)]
    refresh(arena, ada)
    assert ada.home_area == 0


def test_walls_of_someone_else_do_not_close_a_home(arena):
    ada = arena.hero(at=(15, 15))
    bob = arena.hero("bob", at=(25, 25))
    build_room(arena, ada, 16, 16, 20, 20, door=(18, 16))
    area = arena.world.areas[SURFACE]
    area.structures[(20, 18)].owner = bob.id
    refresh(arena, ada)
    assert ada.home_area == 0


def test_an_unlocked_home_is_not_a_home(arena):
    ada = arena.hero(at=(15, 15))
    build_room(arena, ada, 16, 16, 20, 20, door=(18, 16), locked=False)
    refresh(arena, ada)
    assert not ada.home_locked
    events = arena.world.step()
    del events


def test_locking_the_door_announces_the_home(arena):
    ada = arena.hero(at=(18, 15))
    build_room(arena, ada, 16, 16, 20, 20, door=(18, 16), locked=False)
    events = arena.act(ada, {"type": "lock", "x": 18, "y": 16})
    homes = [e for e in events if e["kind"] == "home"]
    assert homes and homes[-1]["area"] == 9 and homes[-1]["locked"]


def test_a_bed_behind_its_owners_locked_door_is_usable_and_a_strangers_is_not(arena):
    ada = arena.hero(at=(18, 15))
    build_room(arena, ada, 16, 16, 20, 20, door=(18, 16))
    area = arena.world.areas[SURFACE]
    area.structures[(17, 17)] = Structure(kind="bed", owner=ada.id)
    from asiworld.engine import homes

    assert homes.reachable_bed(arena.world, ada) == (17, 17)
    bob = arena.hero("bob", at=(18, 14))
    area.structures[(19, 19)] = Structure(kind="bed", owner=bob.id)
    assert homes.reachable_bed(arena.world, bob) is None
