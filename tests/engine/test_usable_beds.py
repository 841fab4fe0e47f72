"""A usable bed is an owned bed its owner can walk up to (a tile beside it, by cardinal steps,
through its own locked doors but no one else's). `reachable_bed` answers with the first such bed
of the owner's, in the order the surface lists its structures."""

from __future__ import annotations

from collections import deque

from asiworld.engine import homes
from asiworld.engine.model import SURFACE, Structure
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.engine.conftest import ARENA, CONTENT, Arena

X0, Y0, X1, Y1 = ARENA
TILE = st.tuples(st.integers(X0, X1 - 1), st.integers(Y0, Y1 - 1))


def walk_up_to(world, char) -> object:
    """The rule, tile by tile: a breadth-first walk from where the owner stands."""
    area = world.areas[SURFACE]
    start = (char.x, char.y)

    def open_to(x, y):
        if not area.in_bounds(x, y) or not CONTENT.walk_lut[area.terrain[y, x]]:
            return False
        s = area.structures.get((x, y))
        return s is None or homes.passable(s, char, CONTENT)

    seen, todo = {start}, deque([start])
    while todo:
        x, y = todo.popleft()
        for q in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if q not in seen and open_to(*q):
                seen.add(q)
                todo.append(q)
    for (bx, by) in homes.beds_of(world, char):
        if any(q in seen for q in ((bx + 1, by), (bx - 1, by), (bx, by + 1), (bx, by - 1))):
            return (bx, by)
    return None


def wall_in(area, owner, x0, y0, x1, y1, door, locked=True):
    for x in range(x0, x1 + 1):
        for y in range(y0, y1 + 1):
            if x in (x0, x1) or y in (y0, y1):
                kind = "door" if (x, y) == door else "wall"
                area.structures[(x, y)] = Structure(kind=kind, owner=owner.id,
                                                    has_lock=kind == "door",
                                                    locked=locked and kind == "door")
    area.version += 1


def test_a_bed_walled_in_by_a_stranger_is_passed_over_for_the_next_one(arena):
    ada = arena.hero(at=(12, 12))
    bob = arena.hero("bob", at=(28, 28))
    area = arena.world.areas[SURFACE]
    wall_in(area, bob, 16, 16, 20, 20, door=(18, 16))  # bob's locked door: closed to ada
    area.structures[(18, 18)] = Structure(kind="bed", owner=ada.id)
    area.structures[(25, 12)] = Structure(kind="bed", owner=ada.id)
    area.structures[(26, 26)] = Structure(kind="bed", owner=ada.id)
    area.version += 1
    assert homes.reachable_bed(arena.world, ada) == (25, 12)
    assert homes.reachable_bed(arena.world, ada) == walk_up_to(arena.world, ada)


def test_a_bed_behind_no_way_in_at_all_is_not_usable(arena):
    ada = arena.hero(at=(12, 12))
    area = arena.world.areas[SURFACE]
    wall_in(area, ada, 16, 16, 20, 20, door=None)
    area.structures[(18, 18)] = Structure(kind="bed", owner=ada.id)
    area.version += 1
    assert homes.reachable_bed(arena.world, ada) is None
    ada.x, ada.y = 17, 17  # inside with it
    area.occupant.clear()
    assert homes.reachable_bed(arena.world, ada) == (18, 18)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(walls=st.lists(TILE, max_size=120), beds=st.lists(TILE, min_size=1, max_size=4),
       own_doors=st.lists(TILE, max_size=6), strange_doors=st.lists(TILE, max_size=6),
       start=TILE)
def test_the_usable_bed_is_the_first_one_a_walk_reaches(walls, beds, own_doors, strange_doors,
                                                        start):
    arena = Arena()
    ada = arena.hero(at=start)
    bob = arena.hero("bob", at=(2, 2))
    area = arena.world.areas[SURFACE]
    placed = [(p, Structure(kind="wall", owner=bob.id)) for p in walls]
    placed += [(p, Structure(kind="door", owner=ada.id, has_lock=True, locked=True))
               for p in own_doors]
    placed += [(p, Structure(kind="door", owner=bob.id, has_lock=True, locked=True))
               for p in strange_doors]
    placed += [(p, Structure(kind="bed", owner=ada.id)) for p in beds]
    for p, s in placed:
        if p != start:
            area.structures[p] = s
    area.version += 1
    expected = walk_up_to(arena.world, ada)
    assert homes.reachable_bed(arena.world, ada) == expected
    # asked again, of a kept searcher that ran before, the answer is the same
    assert homes.reachable_bed(arena.world, ada) == expected
