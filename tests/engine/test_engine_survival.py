"""Bodies and time: hunger, starvation, knockdowns and the loot bag, sleep, night and sight."""

from __future__ import annotations

from asiworld.engine import clock, vision
from asiworld.engine.model import SURFACE, Structure


def kinds(events, kind):
    return [e for e in events if e["kind"] == kind]


def test_hunger_falls_one_point_each_simulation_minute(arena):
    ada = arena.hero()
    arena.run(61)
    assert ada.hunger == 99
    arena.run(60)
    assert ada.hunger == 98


def test_hunger_at_zero_drains_one_health_every_ten_seconds(arena):
    ada = arena.hero()
    ada.hunger = 0
    while arena.world.tick % 10:
        arena.run(1)
    arena.run(30)
    assert ada.health == 100 - 3
    events = arena.run(10)
    assert kinds(events, "damaged")[0]["source"] == "hunger"


def test_eating_berries_fills_eight_hunger(arena):
    ada = arena.hero(items={"berries": 2})
    ada.hunger = 50
    arena.act(ada, {"type": "eat", "item": "berries"})
    assert ada.hunger == 58 and ada.count("berries") == 1


def test_a_knockdown_drops_half_of_each_stack_in_a_loot_bag(arena):
    ada = arena.hero(items={"wood": 10, "stone": 3, "axe": 1})
    from asiworld.engine.rules.combat import harm

    harm(arena.world, ada, 1000, cause="test")
    assert ada.down and ada.count("wood") == 5 and ada.count("stone") == 2 and ada.count("axe") == 1
    bag = arena.world.areas[SURFACE].loot[(20, 20)]
    assert bag.items == {"wood": 5, "stone": 1}


def test_a_knocked_down_character_cannot_act_and_wakes_at_the_plaza_with_half_health(arena):
    ada = arena.hero()
    from asiworld.engine.rules.combat import harm

    harm(arena.world, ada, 1000, cause="test")
    assert arena.refused(ada.id, {"type": "move", "dir": "n"}) == "character_down"
    events = arena.run(arena.world.content.knockdown.down_ticks + 1)
    rec = kinds(events, "recovered")[0]
    assert rec["at"] == "plaza" and ada.health == 50 and not ada.down
    px, py = arena.world.landmarks.plaza
    assert max(abs(ada.x - px), abs(ada.y - py)) <= 12


def test_a_knocked_down_character_with_a_usable_bed_wakes_beside_it(arena):
    ada = arena.hero()
    arena.world.areas[SURFACE].structures[(24, 24)] = Structure(kind="bed", owner=ada.id)
    from asiworld.engine.rules.combat import harm

    harm(arena.world, ada, 1000, cause="test")
    events = arena.run(arena.world.content.knockdown.down_ticks + 1)
    assert kinds(events, "recovered")[0]["at"] == "bed"
    assert max(abs(ada.x - 24), abs(ada.y - 24)) <= 1


def test_a_loot_bag_rots_after_ten_minutes(arena):
    ada = arena.hero(items={"wood": 10})
    from asiworld.engine.rules.combat import harm

    harm(arena.world, ada, 1000, cause="test")
    arena.run(arena.world.content.knockdown.loot_bag_ticks + 1)
    assert (20, 20) not in arena.world.areas[SURFACE].loot


def test_anyone_next_to_a_bag_can_pick_it_up(arena):
    ada = arena.hero(items={"wood": 10})
    bob = arena.hero("bob", at=(21, 20))
    arena.act(ada, {"type": "drop", "item": "wood", "count": 4})
    arena.act(bob, {"type": "pick_up"})
    assert bob.count("wood") == 4 and ada.count("wood") == 6


def test_sleeping_needs_an_owned_bed_and_restores_energy(arena):
    ada = arena.hero()
    assert arena.refused(ada.id, {"type": "sleep"}) == "no_bed"
    arena.world.areas[SURFACE].structures[(21, 20)] = Structure(kind="bed", owner=ada.id)
    ada.energy = 10
    arena.act(ada, {"type": "sleep"}, ticks=40)
    assert ada.asleep and ada.energy > 15
    assert arena.refused(ada.id, {"type": "move", "dir": "n"}) == "asleep"
    arena.act(ada, {"type": "wake"})
    assert not ada.asleep


def test_damage_wakes_a_sleeper(arena):
    ada = arena.hero()
    arena.world.areas[SURFACE].structures[(21, 20)] = Structure(kind="bed", owner=ada.id)
    arena.act(ada, {"type": "sleep"}, ticks=2)
    from asiworld.engine.rules.combat import harm

    harm(arena.world, ada, 3, cause="test")
    assert not ada.asleep


def test_a_sleeper_wakes_at_dawn(arena):
    ada = arena.hero()
    arena.world.areas[SURFACE].structures[(21, 20)] = Structure(kind="bed", owner=ada.id)
    length = clock.day_ticks(arena.world.content)
    arena.world.tick = length - 10  # skip the night's shades: this test is about dawn
    arena.act(ada, {"type": "sleep"}, ticks=5)
    assert ada.asleep
    events = arena.run(10)
    assert [e["reason"] for e in kinds(events, "woke")] == ["dawn"]


def test_night_shrinks_the_view_and_a_torch_widens_it_again(arena):
    ada = arena.hero()
    w = arena.world
    assert vision.radius(w, ada) == 8
    arena.run(clock.night_start(w.content) - w.tick + 1)
    assert vision.radius(w, ada) == 4
    ada.inventory.append(["torch", 1])
    arena.act(ada, {"type": "equip", "item": "torch"})
    assert vision.radius(w, ada) == 7


def test_energy_at_zero_makes_each_step_take_two_ticks(arena):
    ada = arena.hero()
    ada.energy = 0
    arena.act(ada, {"type": "move", "dir": "e"})
    assert (ada.x, ada.y) == (20, 20)
    arena.run(1)
    assert (ada.x, ada.y) == (21, 20)


def test_a_night_without_damage_is_reported_at_dawn(arena):
    ada = arena.hero()
    del ada
    w = arena.world
    events = arena.run(clock.day_ticks(w.content) + 1)
    reports = kinds(events, "night_report")
    assert reports and reports[0]["damage"] >= 0
    assert kinds(events, "day_report")[0]["full"] is True


def test_shades_come_at_night_to_characters_outside_a_home_and_fade_at_dawn(arena):
    arena.hero()
    w = arena.world
    arena.run(clock.night_start(w.content) - w.tick + 200)
    assert any(e.kind == "shade" for e in w.entities.values())
    arena.run(clock.day_ticks(w.content) - w.tick + 1)
    assert not any(e.kind == "shade" for e in w.entities.values())


def test_armor_cuts_the_damage_a_character_takes(arena):
    ada = arena.hero(armor="iron_armor")
    from asiworld.engine.rules.combat import harm

    assert harm(arena.world, ada, 10, cause="test") == 5
    ada.equipment["armor"] = "leather_armor"
    assert harm(arena.world, ada, 8, cause="test") == 6


def test_a_sheep_defeated_drops_raw_meat_and_counts_as_a_kill_that_is_not_hostile(arena):
    ada = arena.hero(weapon="iron_sword")
    sheep = arena.creature("sheep", (21, 20))
    events = arena.act(ada, {"type": "attack", "target": sheep.id})
    killed = kinds(events, "killed")[0]
    assert killed["target_kind"] == "sheep" and killed["hostile"] is False
    assert arena.world.areas[SURFACE].loot[(21, 20)].items == {"raw_meat": 1}


def test_attacks_have_a_cooldown(arena):
    ada = arena.hero()
    boar = arena.creature("boar", (21, 20))
    arena.act(ada, {"type": "attack", "target": boar.id})
    assert arena.refused(ada.id, {"type": "attack", "target": boar.id}) == "cooldown"


def test_characters_do_not_fight_each_other_by_default(arena):
    ada = arena.hero()
    bob = arena.hero("bob", at=(21, 20))
    assert arena.refused(ada.id, {"type": "attack", "target": bob.id}) == "peaceful"


def test_shearing_a_sheep_needs_shears_and_gives_two_wool(arena):
    ada = arena.hero()
    sheep = arena.creature("sheep", (21, 20))
    sheep.next_move = 10**9
    assert arena.refused(ada.id, {"type": "gather", "target": sheep.id}) == "needs_tool"
    ada.inventory.append(["shears", 1])
    arena.act(ada, {"type": "gather", "target": sheep.id}, ticks=4)
    assert ada.count("wool") == 2
    assert arena.refused(ada.id, {"type": "gather", "target": sheep.id}) == "nothing_to_gather"
