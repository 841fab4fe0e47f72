"""Rules of combat, dungeon instances, expeditions, the altar and the Shadow Sanctum.

Setup mutates the world directly (a character put on a gate with gear); the rules under test are
exercised through `submit`/`step`, or through the engine's own `harm` where a fight would only
add noise."""

from __future__ import annotations

import numpy as np
import pytest
from asiworld.engine import World, load_content
from asiworld.engine.dungeon_gen import generate_instance
from asiworld.engine.model import SURFACE, Character, Creature
from asiworld.engine.resim import replay_inputs
from asiworld.engine.rules.combat import harm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

CONTENT = load_content()
SIZE = 64


# ------------------------------------------------------------------------------ helpers
def make_world(seed: int = 7) -> World:
    return World.create(seed=seed, content=CONTENT, size=SIZE)


def hero(world: World, name: str = "ada", items: dict | None = None, **equipment: str) -> Character:
    char = world.entities[world.add_character(name)]
    for item, n in (items or {}).items():
        char.inventory.append([item, n])
    for slot, item in equipment.items():
        char.equipment[slot] = item
    return char


def put_at(world: World, char: Character, pos: tuple[int, int]) -> None:
    world.move_entity(char, pos[0], pos[1], SURFACE)


def put_on_gate(world: World, char: Character, tier: int) -> None:
    put_at(world, char, world.landmarks.gates[tier - 1])


def act(world: World, char: Character, action: dict) -> list[dict]:
    """Submit and run one tick; the action must be accepted."""
    result = world.submit(char.id, action)
    assert result.ok, result
    return world.step()


def refused(world: World, char: Character, action: dict) -> str:
    before = world.state_hash()
    result = world.submit(char.id, action)
    assert not result.ok
    assert world.state_hash() == before, "a refused action changed the world"
    assert result.message
    return result.code


def enter(world: World, char: Character, tier: int, **args) -> list[dict]:
    put_on_gate(world, char, tier)
    return act(world, char, {"type": "enter", **args})


def instance(world: World, char: Character):
    return world.areas[char.area]


def creatures_in(world: World, area_id: int) -> list[Creature]:
    return sorted(
        (e for e in world.entities.values() if isinstance(e, Creature) and e.area == area_id),
        key=lambda e: e.id,
    )


def boss_of(world: World, char: Character) -> Creature:
    return world.entities[instance(world, char).instance.boss]


def defeat(world: World, creature: Creature, killer: Character) -> None:
    harm(world, creature, creature.health, source=killer)


def next_to(world: World, area_id: int, pos: tuple[int, int], char: Character) -> None:
    """Stand the character on a free tile next to `pos` in that area."""
    area = world.areas[area_id]
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)):
        x, y = pos[0] + dx, pos[1] + dy
        if world.walkable(area, x, y, char):
            world.move_entity(char, x, y, area_id)
            return
    raise AssertionError(f"no free tile next to {pos}")


def kinds(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["kind"] == kind]


# ------------------------------------------------------------------------------ combat
def test_weapon_damage_and_armor_cut_what_characters_take():
    world = make_world()
    ada = hero(world, weapon="iron_sword", armor="iron_armor")
    bob = hero(world, "bob", armor="leather_armor")
    cy = hero(world, "cy")
    enter(world, ada, 1)
    guard = creatures_in(world, ada.area)[0]
    next_to(world, ada.area, (guard.x, guard.y), ada)
    act(world, ada, {"type": "attack", "target": guard.id})
    assert guard.health == 20 - 10  # iron sword 10
    for victim, expected in ((ada, 4 * 0.5), (bob, 4 * 0.75), (cy, 4)):
        before = victim.health
        harm(world, victim, 4, source=guard)
        assert before - victim.health == int(round(expected))


def test_fists_deal_two_and_attacks_have_a_cooldown():
    world = make_world()
    ada = hero(world)
    enter(world, ada, 1)
    guard = creatures_in(world, ada.area)[0]
    next_to(world, ada.area, (guard.x, guard.y), ada)
    act(world, ada, {"type": "attack", "target": guard.id})
    assert guard.health == 18
    assert refused(world, ada, {"type": "attack", "target": guard.id}) == "cooldown"
    world.step()
    act(world, ada, {"type": "attack", "target": guard.id})
    assert guard.health == 16


def test_dungeon_enemies_chase_a_character_they_see_and_strike_when_adjacent():
    world = make_world()
    ada = hero(world)
    enter(world, ada, 1)
    guard = creatures_in(world, ada.area)[0]
    area = instance(world, ada)
    # Put the character three steps from the guard in open floor, in its sight.
    spot = next(
        (x, y)
        for y in range(area.height)
        for x in range(area.width)
        if world.walkable(area, x, y)
        and max(abs(x - guard.x), abs(y - guard.y)) == 2
        and world.tile_name(area, x, y) == "dungeon_floor"
    )
    world.move_entity(ada, *spot, ada.area)
    events = []
    for _ in range(12):
        events += world.step()
    assert any(e.get("attacker") == guard.id for e in kinds(events, "attacked"))
    assert ada.health < 100


# ------------------------------------------------------------------------------ gates
def test_enter_needs_a_gate_underfoot():
    world = make_world()
    ada = hero(world)
    assert refused(world, ada, {"type": "enter"}) == "not_on_gate"


@pytest.mark.parametrize("tier,sigil", [(2, "outer_sigil"), (3, "inner_sigil")])
def test_deeper_tiers_need_the_previous_sigil(tier, sigil):
    world = make_world()
    ada = hero(world)
    put_on_gate(world, ada, tier)
    assert refused(world, ada, {"type": "enter"}) == "needs_sigil"
    ada.inventory.append([sigil, 1])
    events = act(world, ada, {"type": "enter"})
    assert kinds(events, "dungeon_entered")[0]["tier"] == tier
    assert instance(world, ada).tier == tier


def test_enter_refuses_bad_party_lists():
    world = make_world()
    ada = hero(world)
    far = hero(world, "far")
    put_on_gate(world, ada, 1)
    assert refused(world, ada, {"type": "enter", "party": [far.id]}) == "not_on_gate"
    assert refused(world, ada, {"type": "enter", "party": [999]}) == "unknown_character"
    assert refused(world, ada, {"type": "enter", "party": "everyone"}) == "bad_argument"


def test_an_instance_has_rooms_an_entrance_enemies_chests_and_a_boss_before_a_closed_portal():
    world = make_world()
    ada = hero(world)
    enter(world, ada, 1)
    area = instance(world, ada)
    spec = CONTENT.raw["dungeons"]["tiers"]["1"]
    names = {world.content.tiles[c]["name"] for c in np.unique(area.terrain)}
    assert {"dungeon_floor", "dungeon_wall", "entrance", "portal_closed", "chest"} <= names
    assert world.tile_name(area, ada.x, ada.y) == "entrance"
    foes = creatures_in(world, area.id)
    assert sum(1 for f in foes if f.kind == spec["enemy"]) == spec["enemies"]
    assert [f.kind for f in foes if f.boss] == [spec["boss"]]
    assert all(f.hostile for f in foes)


def test_each_entry_is_a_fresh_instance_and_the_same_entry_is_the_same_instance():
    a = generate_instance(CONTENT, 7, 5, 1, 0)
    again = generate_instance(CONTENT, 7, 5, 1, 0)
    nxt = generate_instance(CONTENT, 7, 5, 1, 1)
    other_char = generate_instance(CONTENT, 7, 6, 1, 0)
    other_seed = generate_instance(CONTENT, 8, 5, 1, 0)
    assert np.array_equal(a.terrain, again.terrain) and a.chests == again.chests
    assert a.enemies == again.enemies
    for different in (nxt, other_char, other_seed):
        assert not np.array_equal(a.terrain, different.terrain)


def test_entering_twice_gives_two_different_instances():
    world = make_world()
    ada = hero(world)
    enter(world, ada, 1)
    first_id, first = ada.area, instance(world, ada).terrain.copy()
    act(world, ada, {"type": "leave"})
    enter(world, ada, 1)
    assert ada.area != first_id
    assert not np.array_equal(first, instance(world, ada).terrain)
    assert ada.entries[1] == 2


def test_tier_three_is_dark_without_a_torch():
    world = make_world()
    ada = hero(world, items={"inner_sigil": 1, "torch": 1})
    enter(world, ada, 3)
    obs = world.observe(ada.id)
    assert instance(world, ada).dark
    assert obs["view"]["radius"] == CONTENT.raw["dungeons"]["tiers"]["3"]["dark_radius"]
    act(world, ada, {"type": "equip", "item": "torch"})
    assert world.observe(ada.id)["view"]["radius"] == CONTENT.vision.torch_radius


# ------------------------------------------------------------------------------ bosses, exits
def test_the_boss_drops_its_sigil_and_opens_the_exit_portal():
    world = make_world()
    ada = hero(world)
    enter(world, ada, 1)
    area = instance(world, ada)
    boss = boss_of(world, ada)
    px, py = area.instance.portal
    world.move_entity(ada, px, py, area.id)
    assert refused(world, ada, {"type": "leave"}) == "exit_closed"
    defeat(world, boss, ada)
    assert ada.count("outer_sigil") == 1
    assert world.tile_name(area, px, py) == "portal_open"
    events = act(world, ada, {"type": "leave"})
    left = kinds(events, "dungeon_left")[0]
    assert left["cleared"] and left["alive"] and left["tier"] == 1 and left["solo"]
    assert ada.area == SURFACE
    gate = world.landmarks.gates[0]
    assert max(abs(ada.x - gate[0]), abs(ada.y - gate[1])) <= 1


def test_boss_defeat_is_announced_with_its_tier_and_expedition():
    world = make_world()
    ada = hero(world, items={"outer_sigil": 1})
    entered = kinds(enter(world, ada, 2), "dungeon_entered")[0]
    boss = boss_of(world, ada)
    before = len(world._events)
    defeat(world, boss, ada)
    done = kinds(world._events[before:], "boss_defeated")
    assert done == [
        dict(
            done[0],
            char=ada.id,
            tier=2,
            boss="high_priest",
            expedition=entered["expedition"],
            instance=ada.area,
        )
    ]
    assert ada.count("inner_sigil") == 1


def test_a_full_inventory_leaves_the_sigil_in_a_bag_where_the_boss_fell():
    world = make_world()
    ada = hero(world)
    enter(world, ada, 1)
    ada.inventory[:] = [["stone", 50] for _ in range(CONTENT.character.inventory_slots)]
    boss = boss_of(world, ada)
    pos = (boss.x, boss.y)
    defeat(world, boss, ada)
    assert instance(world, ada).loot[pos].items == {"outer_sigil": 1}


def test_leave_only_from_the_entrance_or_the_open_portal():
    world = make_world()
    ada = hero(world)
    assert refused(world, ada, {"type": "leave"}) == "not_in_dungeon"
    enter(world, ada, 1)
    area = instance(world, ada)
    step_off = next(
        p
        for p in ((ada.x + 1, ada.y), (ada.x - 1, ada.y), (ada.x, ada.y + 1), (ada.x, ada.y - 1))
        if world.walkable(area, *p)
    )
    world.move_entity(ada, *step_off, area.id)
    assert refused(world, ada, {"type": "leave"}) == "not_at_exit"


def test_retreat_through_the_entrance_is_an_uncleared_expedition_left_alive():
    world = make_world()
    ada = hero(world)
    enter(world, ada, 1)
    left = kinds(act(world, ada, {"type": "leave"}), "dungeon_left")[0]
    assert (left["cleared"], left["alive"], left["tier"]) == (False, True, 1)
    assert set(left) >= {
        "expedition",
        "damage",
        "supplies",
        "coins",
        "kills",
        "start",
        "end",
        "solo",
        "party",
        "instance",
    }


def test_an_empty_instance_is_removed_with_its_creatures():
    world = make_world()
    ada = hero(world)
    enter(world, ada, 1)
    area_id = ada.area
    world.step()
    act(world, ada, {"type": "leave"})
    assert area_id not in world.areas
    assert not creatures_in(world, area_id)
    assert area_id not in world.memory[ada.id].areas


def test_a_knockdown_inside_fails_the_expedition_and_wakes_at_the_gate():
    world = make_world()
    ada = hero(world, items={"wood": 10})
    enter(world, ada, 1)
    area_id = ada.area
    guard = creatures_in(world, area_id)[0]
    start = len(world._events)
    harm(world, ada, 500, source=guard)
    events = world._events[start:]
    left = kinds(events, "dungeon_left")[0]
    assert left["alive"] is False and left["cleared"] is False
    assert kinds(events, "down")[0]["in_dungeon"]
    assert ada.area == SURFACE and ada.down
    gate = world.landmarks.gates[0]
    assert max(abs(ada.x - gate[0]), abs(ada.y - gate[1])) <= 1
    assert world.areas[SURFACE].loot[(ada.x, ada.y)].items == {"wood": 5}
    world.step()
    assert area_id not in world.areas
    events = []
    for _ in range(CONTENT.knockdown.down_ticks + 1):
        events += world.step()
    recovered = kinds(events, "recovered")[0]
    assert recovered["at"] == "gate" and not ada.down
    assert max(abs(ada.x - gate[0]), abs(ada.y - gate[1])) <= 1


def test_a_knockdown_on_the_surface_still_wakes_at_the_plaza():
    world = make_world()
    ada = hero(world)
    put_on_gate(world, ada, 1)
    harm(world, ada, 500)
    events = []
    for _ in range(CONTENT.knockdown.down_ticks + 1):
        events += world.step()
    assert kinds(events, "recovered")[0]["at"] == "plaza"


# ------------------------------------------------------------------------------ coins, records
def test_chests_open_with_gather_once_for_coins_and_supplies():
    world = make_world()
    ada = hero(world)
    enter(world, ada, 1)
    area = instance(world, ada)
    (cx, cy), inside = next(iter(sorted(area.instance.chests.items())))
    next_to(world, area.id, (cx, cy), ada)
    act(world, ada, {"type": "gather", "x": cx, "y": cy})
    events = world.step() + world.step()
    coins = kinds(events, "coins")
    assert coins == [
        dict(coins[0], char=ada.id, amount=inside.coins, total=ada.coins, source="chest")
    ]
    item, n = next(iter(inside.items.items()))
    assert ada.count(item) == n
    assert world.tile_name(area, cx, cy) == "chest_open"
    assert refused(world, ada, {"type": "gather", "x": cx, "y": cy}) == "nothing_to_gather"


@pytest.mark.parametrize("tier", [1, 2, 3])
def test_a_cleared_instance_pays_coins_within_its_tier_range(tier):
    world = make_world()
    ada = hero(world, items={"outer_sigil": 1, "inner_sigil": 1})
    enter(world, ada, tier)
    area = instance(world, ada)
    for pos in sorted(area.instance.chests):
        next_to(world, area.id, pos, ada)
        act(world, ada, {"type": "gather", "x": pos[0], "y": pos[1]})
        world.step()
        world.step()
    for foe in creatures_in(world, area.id):
        defeat(world, foe, ada)
    lo, hi = CONTENT.raw["dungeons"]["tiers"][str(tier)]["coins"]
    assert lo <= ada.coins <= hi
    assert ada.expedition.coins == ada.coins
    assert ada.expedition.kills == CONTENT.raw["dungeons"]["tiers"][str(tier)]["enemies"] + 1


def test_surface_kills_and_work_earn_no_coins():
    world = make_world()
    ada = hero(world, weapon="iron_sword")
    boar = world.add_creature("boar", SURFACE, world.free_tile_near(SURFACE, (ada.x + 2, ada.y)))
    shade = world.add_creature("shade", SURFACE, world.free_tile_near(SURFACE, (ada.x, ada.y + 2)))
    start = len(world._events)
    defeat(world, boar, ada)
    defeat(world, shade, ada)
    assert ada.coins == 0 and not kinds(world._events[start:], "coins")


def test_the_expedition_record_counts_damage_supplies_and_kills():
    world = make_world()
    ada = hero(world, items={"cooked_meat": 2})
    enter(world, ada, 1)
    guard = creatures_in(world, ada.area)[0]
    harm(world, ada, 7, source=guard)
    act(world, ada, {"type": "eat", "item": "cooked_meat"})
    defeat(world, guard, ada)
    world.move_entity(ada, *instance(world, ada).instance.entrance, ada.area)
    left = kinds(act(world, ada, {"type": "leave"}), "dungeon_left")[0]
    assert (left["damage"], left["supplies"], left["kills"]) == (7, 1, 1)
    assert left["coins"] == guard.coins and left["end"] >= left["start"]


def test_a_party_enters_one_instance_together():
    world = make_world()
    ada = hero(world)
    bob = hero(world, "bob")
    gate = world.landmarks.gates[0]
    put_on_gate(world, ada, 1)
    put_at(world, bob, world.free_tile_near(SURFACE, gate, radius=1))
    events = act(world, ada, {"type": "enter", "party": [bob.id]})
    entered = kinds(events, "dungeon_entered")
    assert [e["char"] for e in entered] == [ada.id, bob.id]
    assert all(e["solo"] is False and e["party"] == [ada.id, bob.id] for e in entered)
    assert ada.area == bob.area != SURFACE
    # One leaving keeps the instance for the other.
    act(world, ada, {"type": "leave"})
    assert bob.area in world.areas


# ------------------------------------------------------------------------------ altar, sanctum
ALL_SIGILS = {"outer_sigil": 1, "inner_sigil": 1, "royal_sigil": 1}


def stand_by_altar(world: World, char: Character) -> None:
    put_at(world, char, world.free_tile_near(SURFACE, world.landmarks.altar, radius=1))


@pytest.mark.parametrize("missing", sorted(ALL_SIGILS))
def test_the_altar_needs_all_three_sigils(missing):
    world = make_world()
    ada = hero(world, items={k: v for k, v in ALL_SIGILS.items() if k != missing})
    assert refused(world, ada, {"type": "offer"}) == "not_at_altar"
    stand_by_altar(world, ada)
    assert refused(world, ada, {"type": "offer"}) == "needs_sigil"
    assert not ada.sanctum_open


def test_offering_the_sigils_opens_the_sanctum_next_to_the_altar():
    world = make_world()
    ada = hero(world, items=ALL_SIGILS)
    stand_by_altar(world, ada)
    assert refused(world, ada, {"type": "enter"}) == "needs_sigil"
    events = act(world, ada, {"type": "offer"})
    assert kinds(events, "offered") and ada.sanctum_open
    assert not any(ada.count(s) for s in ALL_SIGILS)  # the offering stays on the altar
    assert refused(world, ada, {"type": "offer"}) == "already_offered"
    events = act(world, ada, {"type": "enter"})
    assert kinds(events, "dungeon_entered")[0]["tier"] == 4
    assert instance(world, ada).kind == "sanctum"
    assert boss_of(world, ada).kind == "shadow_king"


def sanctum_with_king(world: World) -> tuple[Character, Creature]:
    ada = hero(world, weapon="iron_sword", armor="iron_armor")
    ada.sanctum_open = True
    stand_by_altar(world, ada)
    act(world, ada, {"type": "enter"})
    return ada, boss_of(world, ada)


def test_the_shadow_king_turns_to_phase_two_below_half_and_summons_shades():
    world = make_world()
    ada, king = sanctum_with_king(world)
    assert (king.health, king.phase) == (500, 1)
    harm(world, king, 251, source=ada)
    events = []
    for _ in range(6):
        events += world.step()
    assert king.phase == 2 and kinds(events, "boss_phase")
    assert any(e.kind == "shadow_shade" for e in creatures_in(world, ada.area))


def test_the_shadow_king_strikes_faster_in_phase_two():
    world = make_world()
    ada, king = sanctum_with_king(world)
    pattern = CONTENT.raw["dungeons"]["sanctum"]["pattern"]
    ada.max_health = ada.health = 10_000  # a body that outlasts the count

    def strikes(ticks: int) -> int:
        n = 0
        for _ in range(ticks):
            n += sum(
                1 for e in world.step() if e["kind"] == "attacked" and e.get("attacker") == king.id
            )
        return n

    next_to(world, ada.area, (king.x, king.y), ada)
    king.target = ada.id
    slow = strikes(24)
    harm(world, king, 260, source=ada)
    fast = strikes(24)
    assert slow <= 24 // pattern["attack_cooldown"] + 1
    assert fast >= 24 // pattern["phase2_attack_cooldown"] - 1 and fast > slow


def test_defeating_the_shadow_king_completes_the_exploration_task():
    world = make_world()
    ada, king = sanctum_with_king(world)
    start = len(world._events)
    defeat(world, king, ada)
    events = world._events[start:]
    assert kinds(events, "boss_defeated")[0]["tier"] == 4
    assert kinds(events, "task_complete") == [
        dict(kinds(events, "task_complete")[0], char=ada.id, task="exploration")
    ]
    assert "exploration" in ada.tasks
    portal = instance(world, ada).instance.portal
    assert world.tile_name(instance(world, ada), *portal) == "portal_open"


# ------------------------------------------------------------------------------ observation
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), moves=st.lists(st.sampled_from("nsew"), max_size=25))
def test_a_character_in_an_instance_observes_only_that_instance(seed, moves):
    world = make_world(seed)
    ada = hero(world, items={"outer_sigil": 1})
    bob = hero(world, "bob")
    cy = hero(world, "cy")  # stays on the surface
    enter(world, ada, 2)
    enter(world, bob, 1)
    for d in moves:
        for char in (ada, bob):
            world.submit(char.id, {"type": "move", "dir": d})
        world.step()
    for char in (ada, bob):
        if char.area == SURFACE:  # knocked down and back at the gate: nothing to check
            continue
        obs = world.observe(char.id)
        area = world.areas[char.area]
        assert obs["view"]["area"] == char.area
        for eid in (e["id"] for e in obs["entities"]):
            assert world.entities[eid].area == char.area
        assert cy.id not in {e["id"] for e in obs["entities"]}
        x0, y0 = obs["view"]["x0"], obs["view"]["y0"]
        for j, row in enumerate(obs["view"]["tiles"]):
            for i, ch in enumerate(row):
                if ch != " ":
                    assert ch == CONTENT.tile_chars[area.terrain[y0 + j, x0 + i]]
        for thing in obs["structures"] + obs["loot"] + obs["floors"]:
            assert area.in_bounds(thing["x"], thing["y"])


# ------------------------------------------------------------------------------ determinism
def test_snapshots_and_replays_of_a_dungeon_run_reach_the_same_states():
    world = make_world()
    ada = hero(world)
    gate = world.landmarks.gates[0]
    act(world, ada, {"type": "move_to", "x": gate[0], "y": gate[1]})
    while (ada.x, ada.y) != gate:
        world.step()
    act(world, ada, {"type": "enter"})
    act(world, ada, {"type": "wait", "ticks": 30})
    restored = World.restore(world.snapshot(), CONTENT)
    for _ in range(40):
        world.step()
        restored.step()
    assert restored.state_hash() == world.state_hash()
    again = replay_inputs(7, world.input_log, world.tick, content=CONTENT, size=SIZE)
    assert again.state_hash() == world.state_hash()


def test_an_offer_away_from_the_altar_does_not_say_where_the_altar_is():
    """The altar is found by exploring (the sign board shows only the plaza, the merchant and
    the gates): a refusal must not hand its position to every agent that tries `offer`."""
    world = make_world()
    ada = hero(world, items=dict(ALL_SIGILS))
    result = world.submit(ada.id, {"type": "offer"})
    assert result.code == "not_at_altar"
    ax, ay = world.landmarks.altar
    assert str(ax) not in result.message and str(ay) not in result.message
