"""The eight development achievements, each from hand-built event streams, with near misses.

Bad inputs tried: a knockdown 15 minutes before the bed, a healing potion made at the stove, an unusable or lost bed, equipment not self-crafted or
taken off, a night with one point of damage, eight floor tiles, an unlocked home, a party clear,
a clear that dies on the way out, a retreat, Tier 2 clears with 31 damage + one potion and with
30 damage + two potions, a five-day streak broken by a knockdown, a gap in the days.
"""

from __future__ import annotations

from asiworld.evaluation.achievements import AchievementRecord
from eval_streams import (
    ADA,
    BOB,
    bed,
    crafted,
    day_report,
    equipped,
    ev,
    expedition,
    foothold_stream,
    home,
    night_report,
    unequipped,
)


def assess(events) -> AchievementRecord:
    record = AchievementRecord()
    for e in sorted(events, key=lambda e: e["tick"]):
        record.feed(e)
    return record


def stage(events, number: int):
    return assess(events).stages[number - 1]


# -- 1 Foothold ------------------------------------------------------------------------------


def test_foothold_is_met_when_its_last_piece_arrives_with_the_evidence():
    result = stage(foothold_stream(), 1)
    assert result.met and result.tick == 2000
    assert [e["kind"] for e in result.evidence] == ["survival_day", "bed", "equipped"]


def test_foothold_needs_thirty_minutes_without_a_knockdown():
    events = foothold_stream() + [
        ev(1000, "down", x=1, y=1, area=0, in_dungeon=False, cause="boar"),
        ev(1100, "recovered", x=1, y=1, at="bed"),
    ]
    record = assess(events)
    assert not record.stages[0].met  # up again at 1100: only 900 ticks up by the bed at 2000
    assert "one continuous survival day (30 minutes without a knockdown)" in record.missing(1)


def test_a_character_that_joins_at_minute_7_and_survives_30_minutes_has_its_day():
    join = 7 * 60
    events = [ev(join, "joined", name="ada", label="forager", x=1, y=1), bed(join + 10),
              crafted(join + 20, "wooden_sword", "weapon"),
              equipped(join + 30, "weapon", "wooden_sword")]  # fmt: skip
    record = assess(events)
    assert not record.stages[0].met
    record.advance(join + 30 * 60 - 1)
    assert not record.stages[0].met
    record.advance(join + 30 * 60)  # minute 37: no day report needed, no day start waited for
    result = record.stages[0]
    assert result.met and result.tick == 37 * 60
    assert result.evidence[0] == {"tick": 2220, "kind": "survival_day", "start": 420, "end": 2220}


def test_the_survival_day_is_measured_on_the_next_event_at_the_tick_it_was_completed():
    events = foothold_stream() + [ev(5000, "said", text="still here")]
    events = [e for e in events if e["kind"] != "day_report"]
    result = stage(events, 1)
    assert result.met and result.tick == 2000  # day complete at 1900, bed at 2000


def test_foothold_needs_self_crafted_equipment():
    events = [e for e in foothold_stream() if e["kind"] != "equipped"]
    events.append(equipped(110, "weapon", "iron_sword", self_crafted=False))
    assert not stage(events, 1).met
    assert assess(events).missing(1) == "self-crafted equipment equipped"


def test_foothold_is_not_met_by_equipment_taken_off_before_the_rest_holds():
    events = foothold_stream() + [unequipped(1500, "weapon", "wooden_sword")]
    assert not stage(events, 1).met


def test_foothold_needs_the_bed_usable_when_the_rest_holds():
    events = [e for e in foothold_stream() if e["kind"] != "bed"]
    events += [bed(500, usable=True), bed(600, usable=False)]  # lost before the day was survived
    assert not stage(events, 1).met
    assert "a usable bed" in assess(events).missing(1)


def test_foothold_stays_met_after_the_bed_is_lost():
    events = foothold_stream() + [bed(3000, usable=False)]
    assert stage(events, 1).met


# -- 2 Self-sufficiency ----------------------------------------------------------------------


def self_sufficient(night_damage: int = 0) -> list:
    return [
        crafted(100, "cooked_meat", "food", cooking=True),
        crafted(150, "stone_sword", "weapon"),
        crafted(160, "leather_armor", "armor"),
        equipped(170, "weapon", "stone_sword"),
        equipped(180, "armor", "leather_armor"),
        bed(200),
        night_report(1790, 1, damage=night_damage),
    ]


def test_self_sufficiency_is_met_at_dawn_after_a_calm_night():
    result = stage(self_sufficient(), 2)
    assert result.met and result.tick == 1790
    assert {e["kind"] for e in result.evidence} == {"crafted", "equipped", "bed", "night_report"}


def test_a_night_with_one_point_of_damage_is_not_a_full_night_without_damage():
    events = self_sufficient(night_damage=1)
    assert not stage(events, 2).met
    assert assess(events).missing(2) == "a full night without damage"


def test_self_sufficiency_needs_cooking_not_just_crafting_food():
    events = [e for e in self_sufficient() if not e.get("cooking")]
    events.append(crafted(100, "berries_bowl", "food", cooking=False))
    assert not stage(events, 2).met
    assert assess(events).missing(2) == "a cooked meal"


def stove(tick: int, recipe: str, item: str, category: str) -> dict:
    # What the engine emits for a stove craft (cooking true for every stove recipe).
    return ev(tick, "crafted", recipe=recipe, item=item, count=1, station="stove",
              category=category, cooking=True)  # fmt: skip


def test_a_healing_potion_made_at_the_stove_is_not_cooking():
    events = [e for e in self_sufficient() if not e.get("cooking")]
    events.append(stove(100, "healing_potion", "healing_potion", "potion"))
    assert not stage(events, 2).met
    assert assess(events).missing(2) == "a cooked meal"


def test_a_meal_prepared_by_stove_crafting_is_cooking():
    for recipe in ("cooked_meat", "berry_stew"):
        events = [e for e in self_sufficient() if not e.get("cooking")]
        events.append(stove(100, recipe, recipe, "food"))
        assert stage(events, 2).met, recipe


def test_meals_come_from_content_food_made_at_the_stove():
    from asiworld.evaluation.achievements import shipped_thresholds

    assert shipped_thresholds().meal_recipes == {"cooked_meat", "berry_stew"}


def test_self_sufficiency_needs_weapon_and_armor_equipped_together():
    events = self_sufficient() + [unequipped(175, "weapon", "stone_sword")]
    assert not stage(events, 2).met
    assert "weapon and armor equipped together" in assess(events).missing(2)


def test_bought_armor_does_not_count_as_self_crafted():
    events = [e for e in self_sufficient() if e.get("slot") != "armor"]
    events.append(equipped(180, "armor", "iron_armor", self_crafted=False))
    assert not stage(events, 2).met


# -- 3 Home ----------------------------------------------------------------------------------


def test_a_locked_home_of_nine_tiles_is_a_home():
    result = stage([home(500, 9, locked=True)], 3)
    assert result.met and result.tick == 500 and result.evidence[0]["area"] == 9


def test_eight_floor_tiles_are_not_enough_for_a_home():
    record = assess([home(500, 8, locked=True)])
    assert not record.stages[2].met
    assert "best so far: 8 tiles, locked" in record.missing(3)


def test_an_unlocked_home_of_twelve_tiles_does_not_count():
    assert not stage([home(500, 12, locked=False)], 3).met


def test_home_counts_once_it_is_locked():
    result = stage([home(500, 12, locked=False), home(900, 12, locked=True)], 3)
    assert result.met and result.tick == 900


# -- 4, 5 Outer Court and Inner Temple -------------------------------------------------------


def test_a_solo_tier_one_clear_left_alive_is_the_outer_court():
    result = stage(expedition(1000, 1, expedition_id=1), 4)
    assert result.met and result.tick == 1300
    assert [e["kind"] for e in result.evidence] == [
        "dungeon_entered",
        "boss_defeated",
        "dungeon_left",
    ]


def test_a_party_clear_is_not_solo():
    events = expedition(1000, 1, expedition_id=1, party=[ADA, BOB])
    record = assess(events)
    assert not record.stages[3].met
    assert "party clear" in record.missing(4)


def test_a_clear_that_dies_before_leaving_does_not_count():
    assert not stage(expedition(1000, 1, expedition_id=1, alive=False), 4).met


def test_a_retreat_without_the_boss_does_not_count():
    assert not stage(expedition(1000, 1, expedition_id=1, boss=False), 4).met


def test_inner_temple_is_tier_two_and_is_met_without_the_outer_court():
    record = assess(expedition(1000, 2, expedition_id=1, damage=40))
    assert record.stages[4].met and not record.stages[3].met
    assert record.coverage == [5] and record.trial == 0


def test_an_exit_whose_entry_was_never_seen_is_not_proof_of_a_solo_run():
    left_only = [e for e in expedition(1000, 1, expedition_id=1) if e["kind"] == "dungeon_left"]
    assert not stage(left_only, 4).met


# -- 6 Steadiness ----------------------------------------------------------------------------


def test_steadiness_allows_thirty_damage_and_one_supply():
    assert stage(expedition(1000, 2, expedition_id=1, damage=30, supplies=1), 6).met


def test_a_tier_two_clear_with_31_damage_and_one_potion_is_not_steady():
    record = assess(expedition(1000, 2, expedition_id=1, damage=31, supplies=1))
    assert record.stages[4].met and not record.stages[5].met
    assert "best so far: 31 damage, 1 supplies" in record.missing(6)


def test_a_tier_two_clear_with_30_damage_and_two_potions_is_not_steady():
    assert not stage(expedition(1000, 2, expedition_id=1, damage=30, supplies=2), 6).met


def test_a_clear_without_damage_is_steady_whatever_the_supplies():
    assert stage(expedition(1000, 3, expedition_id=1, damage=0, supplies=5), 6).met


def test_a_steady_tier_one_clear_does_not_count():
    assert not stage(expedition(1000, 1, expedition_id=1, damage=0), 6).met


def test_a_steady_party_clear_does_not_count():
    assert not stage(expedition(1000, 2, expedition_id=1, party=[ADA, BOB], damage=0), 6).met


def test_steadiness_is_met_by_a_later_steady_clear():
    events = expedition(1000, 2, expedition_id=1, damage=50)
    events += expedition(3000, 2, expedition_id=2, damage=12, supplies=1)
    result = stage(events, 6)
    assert result.met and result.tick == 3300 and result.evidence[-1]["expedition"] == 2


# -- 7 Royal Tomb ----------------------------------------------------------------------------


def calm_days(first: int, last: int, broken: set[int] = frozenset()) -> list:
    return [day_report(d * 1800, d, downs=1 if d in broken else 0) for d in range(first, last + 1)]


def test_royal_tomb_needs_a_tier_three_clear_and_five_calm_days():
    events = expedition(2000, 3, expedition_id=1) + calm_days(1, 5)
    result = stage(events, 7)
    assert result.met and result.tick == 9000
    assert sum(e["kind"] == "day_report" for e in result.evidence) == 5


def test_a_streak_broken_by_a_knockdown_does_not_count():
    events = expedition(2000, 3, expedition_id=1) + calm_days(1, 8, broken={4})
    record = assess(events)
    assert not record.stages[6].met
    assert "current 4, longest 4" in record.missing(7)


def test_the_streak_counts_again_after_five_new_calm_days():
    events = expedition(2000, 3, expedition_id=1) + calm_days(1, 9, broken={4})
    assert stage(events, 7).tick == 9 * 1800


def test_a_gap_in_the_days_breaks_the_streak():
    events = expedition(2000, 3, expedition_id=1)
    events += [day_report(d * 1800, d) for d in (1, 2, 4, 5, 6)]
    assert not stage(events, 7).met


def test_an_earlier_streak_still_counts_once_the_tomb_is_cleared():
    events = calm_days(1, 6, broken={6}) + expedition(12000, 3, expedition_id=1)
    result = stage(events, 7)
    assert result.met and result.tick == 12300


def test_a_party_tier_three_clear_is_not_the_royal_tomb():
    events = expedition(2000, 3, expedition_id=1, party=[ADA, BOB]) + calm_days(1, 5)
    assert not stage(events, 7).met


# -- 8 Hero ----------------------------------------------------------------------------------


def test_the_shadow_king_defeated_is_hero():
    events = [ev(5000, "boss_defeated", boss="shadow_king", tier=4, instance=9, expedition=3)]
    assert stage(events, 8).met


def test_a_tomb_king_is_not_the_shadow_king():
    events = [ev(5000, "boss_defeated", boss="tomb_king", tier=3, instance=9, expedition=3)]
    assert not stage(events, 8).met


# -- coverage, Trial and the first unmet stage -----------------------------------------------


def test_trial_is_the_completed_prefix_and_coverage_the_set():
    events = foothold_stream() + [home(2500, 9, locked=True)]
    events += expedition(3000, 1, expedition_id=1)
    record = assess(events)
    assert record.coverage == [1, 3, 4]
    assert record.trial == 1
    unmet = record.first_unmet()
    assert unmet["stage"] == 2 and unmet["name"] == "Self-sufficiency"
    assert "a cooked meal" in unmet["missing"]


def test_nothing_done_means_trial_zero_and_foothold_missing_all_three():
    record = assess([])
    assert record.trial == 0 and record.coverage == []
    assert record.first_unmet()["missing"] == (
        "one continuous survival day (30 minutes without a knockdown); a usable bed; "
        "self-crafted equipment equipped"
    )


def test_events_of_other_characters_are_not_fed_here_by_kind_alone():
    # The record trusts its caller to route by character; events of unknown kinds are ignored.
    record = assess([ev(1, "said", text="hello"), ev(2, "mystery_kind")])
    assert record.trial == 0
