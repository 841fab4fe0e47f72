"""Properties over random play: random action sequences for several characters never crash,
never make an inventory negative or overfull, never put two bodies on one tile, a refused action
never changes the state hash, and an observation never shows a tile outside the field of view."""

from __future__ import annotations

from asiworld.engine import World, load_content, vision
from asiworld.engine.model import Character
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

CONTENT = load_content()
ITEMS = sorted(CONTENT.items)
RECIPES = sorted(CONTENT.recipes)

coords = st.integers(min_value=-2, max_value=70)
action = st.one_of(
    st.builds(lambda d: {"type": "move", "dir": d}, st.sampled_from("nsewx")),
    st.builds(lambda x, y: {"type": "move_to", "x": x, "y": y}, coords, coords),
    st.builds(lambda x, y: {"type": "gather", "x": x, "y": y}, coords, coords),
    st.builds(lambda r, n: {"type": "craft", "recipe": r, "count": n}, st.sampled_from(RECIPES),
              st.integers(0, 3)),
    st.builds(lambda i, x, y: {"type": "place", "item": i, "x": x, "y": y},
              st.sampled_from(ITEMS + ["workbench", "furnace"]), coords, coords),
    st.builds(lambda x, y: {"type": "dismantle", "x": x, "y": y}, coords, coords),
    st.builds(lambda i: {"type": "eat", "item": i}, st.sampled_from(ITEMS)),
    st.builds(lambda i: {"type": "equip", "item": i}, st.sampled_from(ITEMS)),
    st.builds(lambda t: {"type": "attack", "target": t}, st.integers(0, 80)),
    st.builds(lambda t, i, n: {"type": "give", "target": t, "item": i, "count": n},
              st.integers(0, 80), st.sampled_from(ITEMS), st.integers(-1, 60)),
    st.just({"type": "pick_up"}), st.just({"type": "sleep"}), st.just({"type": "wake"}),
    st.builds(lambda i, n: {"type": "drop", "item": i, "count": n}, st.sampled_from(ITEMS),
              st.integers(1, 5)),
    st.fixed_dictionaries({"type": st.text(max_size=6)}),
)
plan = st.lists(st.tuples(st.integers(0, 2), action, st.integers(1, 12)), min_size=1, max_size=25)


def make_world() -> tuple[World, list[int]]:
    world = World.create(seed=3, content=CONTENT, size=64)
    ids = [world.add_character(f"c{i}") for i in range(3)]
    for cid in ids:  # something to build, eat and fight with
        world.entities[cid].inventory.extend([["wood", 20], ["stone", 10], ["berries", 5],
                                              ["wall", 3], ["door", 1], ["lock", 1]])
    return world, ids


def check_invariants(world: World) -> None:
    limit = CONTENT.character.inventory_slots
    for area in world.areas.values():
        seen = {}
        for ent in world.entities.values():
            if ent.area == area.id:
                assert (ent.x, ent.y) not in seen, "two bodies on one tile"
                seen[(ent.x, ent.y)] = ent.id
                assert area.occupant.get((ent.x, ent.y)) == ent.id
                assert world.content.walk_lut[area.terrain[ent.y, ent.x]]
        for pos in area.structures:
            if CONTENT.structures[area.structures[pos].kind].get("solid"):
                assert pos not in seen, "a body inside a solid structure"
    for ent in world.entities.values():
        if isinstance(ent, Character):
            assert len(ent.inventory) <= limit
            for item, n in ent.inventory:
                assert 0 < n <= CONTENT.stack_limit(item)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan)
def test_random_play_keeps_the_world_consistent(steps):
    world, ids = make_world()
    for who, act, ticks in steps:
        before = world.state_hash()
        result = world.submit(ids[who], act)
        if not result.ok:
            assert result.code and result.message
            assert world.state_hash() == before
        for _ in range(ticks):
            world.step()
        check_invariants(world)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("nsew"), st.integers(1, 60)), min_size=1, max_size=12))
def test_an_observation_never_shows_a_tile_outside_the_field_of_view(walk):
    world, ids = make_world()
    cid = ids[0]
    for d, ticks in walk:
        world.submit(cid, {"type": "move_to", "x": world.entities[cid].x + (5 if d == "e" else -5 if d == "w" else 0),
                           "y": world.entities[cid].y + (5 if d == "s" else -5 if d == "n" else 0)})
        for _ in range(ticks):
            world.step()
        obs = world.observe(cid)
        mem = world.memory[cid]
        view = obs["view"]
        for i, row in enumerate(view["tiles"]):
            for j, ch in enumerate(row):
                if ch != " ":
                    assert vision.can_see(mem, view["x0"] + j, view["y0"] + i)
        me = world.entities[cid]
        r = view["radius"]
        for group in ("entities", "structures", "loot", "floors"):
            for thing in obs[group]:
                assert vision.can_see(mem, thing["x"], thing["y"]), group
                assert max(abs(thing["x"] - me.x), abs(thing["y"] - me.y)) <= r
