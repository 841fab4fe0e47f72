"""Measures counted from events, and the live assessment that follows a growing stream.

Bad inputs tried: kills of non-hostile animals, spent coins (negative amounts), food eaten
outside a dungeon, events of a character nobody announced, an incident still open, a stream
fed in pieces versus all at once.
"""

from __future__ import annotations

from asiworld.evaluation import LiveAssessment, evaluate
from asiworld.evaluation.achievements import AchievementRecord
from asiworld.evaluation.measures import Measures
from eval_streams import (
    ADA,
    BOB,
    CHARACTERS,
    COHORT,
    cohort_stream,
    crafted,
    day_report,
    ev,
    expedition,
)


def measure(events) -> Measures:
    m = Measures()
    for e in events:
        m.feed(e)
    return m


def test_kills_count_only_hostile_creatures():
    events = [
        ev(1, "killed", target=5, target_kind="boar", hostile=True, boss=False, in_dungeon=False),
        ev(2, "killed", target=6, target_kind="sheep", hostile=False, boss=False, in_dungeon=False),
    ]
    assert measure(events).kills == 1


def test_crafts_count_finished_crafts_not_items_made():
    # A recipe yielding 4 items is still one successful crafting operation.
    assert measure([crafted(1, "torch", count=4), crafted(2, "wall")]).crafts == 2


def test_damage_dealt_to_creatures_is_not_damage_taken():
    events = [
        ev(1, "damaged", amount=9, source="character", source_id=ADA, health=1, in_dungeon=False,
           entity=77, entity_kind="boar"),
        ev(2, "damaged", amount=4, source="boar", source_id=77, health=96, in_dungeon=False),
    ]  # fmt: skip
    assert measure(events).damage_taken == 4


def test_coins_count_what_was_earned_not_what_was_spent():
    events = [
        ev(1, "coins", amount=20, total=20, source="chest"),
        ev(2, "coins", amount=-10, total=10, source="buy"),
        ev(3, "coins", amount=5, total=15, source="enemy"),
    ]
    assert measure(events).coins == 25


def test_supplies_used_are_supplies_eaten_inside_a_dungeon():
    events = [
        ev(1, "ate", item="healing_potion", hunger=0, health=40, in_dungeon=True, supply=True),
        ev(2, "ate", item="cooked_meat", hunger=30, health=0, in_dungeon=False, supply=True),
        ev(3, "ate", item="berries", hunger=8, health=0, in_dungeon=True, supply=True),
    ]
    assert measure(events).supplies_used == 2


def test_depth_is_the_deepest_tier_cleared_and_bosses_count_repeats():
    events = expedition(100, 1, expedition_id=1) + expedition(500, 1, expedition_id=2)
    events += expedition(900, 2, expedition_id=3, boss=False)
    events += [ev(2000, "boss_defeated", tier=4, boss="shadow_king", instance=7, expedition=9)]
    m = measure(events)
    assert (m.depth, m.bosses, m.hero) == (1, 2, True)


def test_outfit_and_hero_come_from_the_task_events():
    events = [ev(10, "task_complete", task="production")]
    m = measure(events)
    assert m.outfit and m.outfit_tick == 10 and not m.hero


def test_a_day_joined_part_way_is_not_a_day_of_the_streak():
    record = AchievementRecord()
    partial = dict(day_report(1800, 1), full=False)
    for e in [partial] + [day_report(1800 * d, d) for d in range(2, 6)]:
        record.feed(e)
    assert record.longest_streak == 4 and record.full_streak is None


def test_days_survived_are_the_time_up_in_days_of_thirty_minutes_to_a_tenth():
    events = [
        ev(420, "joined", name="ada", label="forager", x=1, y=1),  # minute 7
        ev(2900, "damaged", amount=7, source="shade", source_id=4, health=3, in_dungeon=False),
        ev(3000, "down", x=1, y=1, area=0, in_dungeon=False, cause="shade"),
        ev(3180, "recovered", x=1, y=1, at="bed"),  # three minutes down
        day_report(3600, 2, downs=1),
    ]
    m = measure(events)
    assert (m.downs, m.damage_taken) == (1, 7)
    # 300 minutes of world time: up from minute 7 to 300, less 3 minutes down = 290 minutes.
    assert m.days_survived(18000) == (18000 - 420 - 180) / 1800 == 9.6666666666666667
    assert m.to_dict(18000)["days"] == m.days_survived(18000)


def test_a_character_still_down_at_the_end_is_not_surviving():
    events = [ev(0, "joined", name="ada", x=1, y=1),
              ev(900, "down", x=1, y=1, area=0, in_dungeon=True, cause="guard")]  # fmt: skip
    assert measure(events).days_survived(1800) == 0.5


def test_dungeon_performance_shares_clears_and_averages_damage_in_clears():
    events = expedition(100, 1, expedition_id=1, damage=10)
    events += expedition(500, 1, expedition_id=2, damage=30)
    events += expedition(900, 1, expedition_id=3, damage=99, boss=False, alive=False)
    table = measure(events).dungeon_performance()
    assert table["1"]["attempts"] == 3 and table["1"]["clears"] == 2
    assert abs(table["1"]["clear_share"] - 2 / 3) < 1e-9
    assert table["1"]["mean_damage_in_clears"] == 20
    assert table["4"] == {
        "attempts": 0,
        "clears": 0,
        "clear_share": None,
        "clear_damage": 0,
        "mean_damage_in_clears": None,
        "clear_supplies": 0,
    }


def test_actions_are_counted_by_category():
    events = [ev(1, "action", op=1, type="move", category="movement", args={})] * 3
    events += [ev(2, "action", op=2, type="craft", category="crafting", args={})]
    actions = measure(events).actions
    assert actions["movement"] == 3 and actions["crafting"] == 1 and actions["idle"] == 0


def test_an_open_incident_lasts_until_the_latest_tick():
    results = evaluate(
        [ev(100, "incident", BOB, cause="long_wait", start=100, end=None), day_report(900, 1)],
        CHARACTERS,
    )
    bob = next(c for c in results["configurations"] if c["name"] == "bob")
    assert bob["incidents"][0]["ongoing"] and bob["incidents"][0]["duration"] == 800


def test_characters_are_named_by_their_joined_event():
    results = evaluate([ev(0, "joined", 9, name="zoe", label="forager", x=1, y=1)])
    assert [(c["id"], c["name"], c["label"]) for c in results["configurations"]] == [
        (9, "zoe", "forager")
    ]


def test_an_unannounced_character_still_gets_a_row():
    results = evaluate([crafted(5, "torch", char=42)], CHARACTERS)
    assert {c["name"] for c in results["configurations"]} == {"ada", "bob", "char42"}


def test_two_characters_sharing_a_name_are_kept_apart():
    chars = [{"id": 1, "name": "planner"}, {"id": 2, "name": "planner"}]
    names = [c["name"] for c in evaluate([], chars)["configurations"]]
    assert sorted(names) == ["planner#1", "planner#2"]


def test_live_assessment_fed_in_pieces_matches_the_whole_stream():
    events = cohort_stream()
    whole = evaluate(events, COHORT, {"seed": 7})
    whole.pop("progress")  # evaluate's addition: the standing minute by minute
    live = LiveAssessment(COHORT)
    for start in range(0, len(events), 37):
        live.feed(events[start : start + 37])
        live.results()  # asking in between must not disturb anything
    assert live.results({"seed": 7}) == whole


def test_live_assessment_shows_progress_before_the_end():
    events = cohort_stream()
    live = LiveAssessment(COHORT)
    live.feed([e for e in events if e["tick"] <= 3000])
    early = {c["name"]: c for c in live.results()["configurations"]}
    assert early["planner"]["achievements"]["trial"] == 3
    live.feed([e for e in events if e["tick"] > 3000])
    late = {c["name"]: c for c in live.results()["configurations"]}
    assert late["planner"]["achievements"]["trial"] == 8
    assert late["planner"]["rank"] == 1


def test_a_minutes_standing_is_what_the_results_say_of_each_character_then():
    """Progress keeps each minute's standing (score, Trial stage, tasks) without the minute's
    full results: the same values, at every point of a stream and with shared names."""
    events = cohort_stream()
    live = LiveAssessment([*COHORT, {"id": 9, "name": "planner"}])
    seen = set()
    for start in range(0, len(events), 50):
        live.feed(events[start : start + 50])
        live.advance(events[min(start + 49, len(events) - 1)]["tick"] + 30)
        standing = live.standing()
        rows = live.results()["configurations"]
        assert standing == {r["id"]: {"score": r["score"], "trial": r["measures"]["trial"],
                                      "outfit": int(bool(r["measures"]["outfit"])),
                                      "hero": int(bool(r["measures"]["hero"]))} for r in rows}
        seen |= {(cid, s["trial"], s["outfit"], s["hero"]) for cid, s in standing.items()}
    assert {(1, 8, 1, 1), (9, 0, 0, 0)} <= seen  # the planner ends with both tasks


def test_the_strongest_of_the_cohort_ranks_first():
    results = evaluate(cohort_stream(), COHORT)
    ranks = [c["name"] for c in results["configurations"]]
    assert ranks[0] == "planner" and ranks[-1] == "random"
    assert results["cohort"] == {"max_bosses": 3, "max_crafts": 30}
    assert results["configurations"][0]["measures"]["trial"] == 8
    assert ADA in {c["id"] for c in results["configurations"]}
