"""The timeline's phase rules (shown in the viewer's help), on hand-written event lists."""

from __future__ import annotations

from asiworld.replay.phases import COMBAT_AFTER, COMBAT_BEFORE, RECOVERY_AFTER, timeline


def phase_at(line: dict, char: int, tick: int) -> str:
    return next(p for a, b, p in line["phases"][char] if a <= tick <= b)


def ev(tick: int, kind: str, char: int = 1, **fields) -> dict:
    return {"tick": tick, "kind": kind, "char": char, **fields}


def test_a_move_action_is_travel_until_its_op_ends_then_idle():
    line = timeline(
        [ev(10, "action", op=1, type="move_to", category="movement"), ev(20, "op_done", op=1)],
        0,
        100,
        [1],
    )
    assert phase_at(line, 1, 9) == "idle"
    assert phase_at(line, 1, 10) == phase_at(line, 1, 20) == "travel"
    assert phase_at(line, 1, 21) == "idle"


def test_gathering_and_crafting_are_preparation():
    events = [
        ev(5, "action", op=1, type="gather", category="gathering"),
        ev(9, "gathered", item="wood", count=1),
        ev(9, "op_done", op=1),
        ev(30, "crafted", item="wooden_sword", count=1),
    ]
    line = timeline(events, 0, 100, [1])
    assert phase_at(line, 1, 7) == "preparation" and phase_at(line, 1, 30) == "preparation"
    assert phase_at(line, 1, 20) == "idle"


def test_combat_covers_a_window_around_each_blow_and_beats_travel():
    events = [
        ev(0, "action", op=1, type="move_to", category="movement"),
        ev(50, "attacked", target=9, target_kind="zombie", damage=3),
        ev(90, "op_done", op=1),
    ]
    line = timeline(events, 0, 200, [1])
    assert phase_at(line, 1, 50 - COMBAT_BEFORE) == "combat"
    assert phase_at(line, 1, 50 + COMBAT_AFTER) == "combat"
    assert phase_at(line, 1, 50 + COMBAT_AFTER + 1) == "travel"


def test_hunger_damage_is_not_combat():
    line = timeline([ev(50, "damaged", source="hunger", amount=1)], 0, 100, [1])
    assert phase_at(line, 1, 50) == "idle"


def test_recovery_runs_from_down_to_recovered_plus_healing_cut_by_the_next_fight():
    events = [
        ev(100, "down", cause="zombie"),
        ev(160, "recovered", at="plaza"),
        ev(300, "damaged", source="zombie", amount=2),
    ]
    line = timeline(events, 0, 1000, [1])
    assert phase_at(line, 1, 100) == phase_at(line, 1, 160) == "recovery"
    assert phase_at(line, 1, 300 - COMBAT_BEFORE - 1) == "recovery"
    assert phase_at(line, 1, 300) == "combat"
    assert 160 + RECOVERY_AFTER < 1000 and phase_at(line, 1, 160 + RECOVERY_AFTER) == "idle"


def test_dungeon_runs_from_entry_to_exit_and_to_the_end_when_never_left():
    events = [
        ev(10, "dungeon_entered", tier=1),
        ev(80, "dungeon_left", tier=1),
        ev(10, "dungeon_entered", char=2, tier=2),
    ]
    line = timeline(events, 0, 200, [1, 2])
    assert phase_at(line, 1, 10) == phase_at(line, 1, 80) == "dungeon"
    assert phase_at(line, 1, 81) == "idle"
    assert phase_at(line, 2, 200) == "dungeon"


def test_markers_name_knockdowns_entries_bosses_crafts_and_combat_starts_per_character():
    events = [
        ev(10, "dungeon_entered", tier=1),
        ev(20, "attacked", target=9, target_kind="skeleton", damage=3),
        ev(40, "boss_defeated", boss="tomb_king", tier=1),
        ev(60, "down", char=2, cause="shade"),
        ev(70, "crafted", char=2, item="bread", count=2),
    ]
    line = timeline(events, 0, 200, [1, 2])
    kinds = [(m["tick"], m["char"], m["kind"]) for m in line["markers"]]
    assert (10, 1, "dungeon_entry") in kinds
    assert (20 - COMBAT_BEFORE, 1, "combat_start") in kinds
    assert (40, 1, "boss_defeat") in kinds
    assert (60, 2, "knockdown") in kinds
    assert (70, 2, "craft") in kinds
    assert [m["tick"] for m in line["markers"]] == sorted(m["tick"] for m in line["markers"])


def test_the_bands_cover_every_tick_once_and_the_totals_add_up():
    line = timeline([ev(50, "attacked", target=9, target_kind="zombie", damage=3)], 0, 99, [1])
    segments = line["phases"][1]
    assert segments[0][0] == 0 and segments[-1][1] == 99
    assert all(b[0] == a[1] + 1 for a, b in zip(segments, segments[1:], strict=False))
    assert sum(line["totals"][1].values()) == 100


def test_the_viewer_draws_every_marker_kind_the_timeline_makes():
    """A marker kind without a style in the viewer would throw while drawing."""
    import re
    from pathlib import Path

    import asiworld
    from asiworld.replay.phases import MARKER_KINDS

    js = (Path(asiworld.__file__).parent / "static/js/replay-timeline.js").read_text()
    styles = js.split("export const MARKER_STYLE = {", 1)[1].split("};", 1)[0]
    assert re.findall(r"^\s+(\w+): \{", styles, re.M) == list(MARKER_KINDS)


BOSSES = frozenset({"gatekeeper"})


def test_a_boss_fight_runs_from_the_first_blow_either_way_to_the_defeat():
    from asiworld.replay.phases import boss_fights

    events = [
        ev(10, "dungeon_entered", tier=1, expedition=1),
        ev(20, "damaged", source="guard", amount=4, health=90),  # not the boss: no fight yet
        ev(30, "attacked", target=9, target_kind="gatekeeper", damage=6),
        ev(34, "damaged", source="gatekeeper", amount=8, health=80),
        ev(50, "boss_defeated", boss="gatekeeper", tier=1, expedition=1),
        ev(60, "dungeon_left", tier=1, expedition=1, cleared=True),
    ]
    assert boss_fights(events, [1], BOSSES) == [
        {"char": 1, "boss": "gatekeeper", "tier": 1, "start": 30, "end": 50, "ending": "defeated"}]
    line = timeline(events, 0, 100, [1])
    kinds = {(m["tick"], m["kind"]) for m in line["markers"]}
    assert {(30, "boss_fight"), (50, "boss_fight_end"), (50, "boss_defeat")} <= kinds


def test_a_boss_fight_ends_at_a_knockdown_an_exit_or_a_minute_without_a_blow():
    from asiworld.replay.phases import BOSS_FIGHT_GAP, boss_fights

    hit = {"source": "gatekeeper", "amount": 8, "health": 50}
    events = [
        ev(10, "dungeon_entered", tier=1), ev(20, "damaged", **hit), ev(25, "down", cause="gatekeeper"),
        ev(100, "damaged", **hit), ev(100 + BOSS_FIGHT_GAP + 1, "damaged", **hit),
        ev(100 + BOSS_FIGHT_GAP + 30, "dungeon_left", tier=1, cleared=False),
        ev(400, "damaged", char=2, **hit),  # another character's fight, open at the end
    ]
    fights = boss_fights(events, [1, 2], BOSSES)
    assert [(f["char"], f["start"], f["end"], f["ending"]) for f in fights] == [
        (1, 20, 25, "down"), (1, 100, 100, "broke_off"),
        (1, 100 + BOSS_FIGHT_GAP + 1, 100 + BOSS_FIGHT_GAP + 30, "left"), (2, 400, 400, "open")]


def test_the_shipped_bosses_are_the_dungeons_bosses():
    from asiworld.replay.phases import boss_kinds

    assert {"gatekeeper", "high_priest", "tomb_king", "shadow_king"} <= boss_kinds()
    assert "warden" not in boss_kinds()
