"""The curriculum's thresholds are content (app/engine/content/achievements.toml), checked when
content loads; the evaluation reads them from there, and they stay out of the content hash (the
world never reads them).

Bad inputs tried: the file missing, no [thresholds] table, a number missing, negative, a string,
a zero streak, steady_tiers naming no dungeon tier or empty, tomb_tier unknown, sanctum_tier
not the Sanctum's, an unknown key."""

from __future__ import annotations

import shutil

import pytest
from asiworld.engine import ContentError, load_content
from asiworld.engine.content import CONTENT_DIR
from asiworld.evaluation.achievements import AchievementRecord, Thresholds, shipped_thresholds


@pytest.fixture
def content_copy(tmp_path):
    for f in CONTENT_DIR.glob("*.toml"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


def rewrite(folder, old: str, new: str) -> None:
    path = folder / "achievements.toml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def home(tick: int, area: int) -> dict:
    return {"tick": tick, "kind": "home", "char": 1, "area": area, "locked": True}


def test_the_shipped_thresholds_are_the_content_files_numbers():
    raw = load_content().raw["achievements"]["thresholds"]
    t = shipped_thresholds()
    assert (t.home_area, t.steady_damage, t.steady_supplies, t.streak_days, t.tomb_tier,
            t.sanctum_tier) == (raw["home_area"], raw["steady_damage"], raw["steady_supplies"],
                                raw["streak_days"], raw["tomb_tier"], raw["sanctum_tier"])
    assert t.steady_tiers == tuple(raw["steady_tiers"])
    assert AchievementRecord().numbers == t


def test_a_smaller_home_in_the_content_is_enough_for_the_home_stage(content_copy):
    rewrite(content_copy, "home_area = 9 ", "home_area = 4 ")
    numbers = Thresholds.from_content(load_content(content_copy))
    small, shipped = AchievementRecord(numbers), AchievementRecord()
    for record in (small, shipped):
        record.feed(home(100, 5))
    assert small.stages[2].met and not shipped.stages[2].met
    assert "at least 9 floor tiles" in shipped.missing(3)


def test_the_steadiness_sentence_names_the_content_tiers_and_limits(content_copy):
    rewrite(content_copy, "steady_tiers = [2, 3]", "steady_tiers = [3]")
    rewrite(content_copy, "steady_damage = 30 ", "steady_damage = 12 ")
    record = AchievementRecord(Thresholds.from_content(load_content(content_copy)))
    assert "a solo Tier 3 clear with at most 12 damage" in record.missing(6)
    assert "a solo Tier 2 or 3 clear with at most 30 damage" in AchievementRecord().missing(6)


def test_the_thresholds_are_not_in_the_content_hash(content_copy):
    before = load_content(content_copy).hash
    rewrite(content_copy, "streak_days = 5 ", "streak_days = 6 ")
    changed = load_content(content_copy)
    assert changed.hash == before == load_content().hash
    assert changed.achievements.streak_days == 6


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("home_area = 9 ", "", "home_area must be a whole number"),
        ("steady_damage = 30 ", "steady_damage = -1 ", "steady_damage must be a whole number"),
        ("steady_supplies = 1 ", 'steady_supplies = "one" ', "steady_supplies"),
        ("streak_days = 5 ", "streak_days = 0 ", "streak_days must be >= 1"),
        ("steady_tiers = [2, 3]", "steady_tiers = [2, 7]", "steady_tiers must list dungeon tiers"),
        ("steady_tiers = [2, 3]", "steady_tiers = []", "steady_tiers must list dungeon tiers"),
        ("tomb_tier = 3 ", "tomb_tier = 9 ", "tomb_tier 9 is no dungeon tier"),
        ("sanctum_tier = 4 ", "sanctum_tier = 3 ", "not the Sanctum's tier"),
        ("sanctum_tier = 4 ", "sanctum_tier = 4\nboss_tier = 2 ", "unknown ['boss_tier']"),
        ("[thresholds]", "[limits]", "no [thresholds] table"),
    ],
)
def test_bad_thresholds_are_an_error_at_load(content_copy, old, new, says):
    rewrite(content_copy, old, new)
    with pytest.raises(ContentError, match="achievements.toml") as err:
        load_content(content_copy)
    assert says in str(err.value)


def test_content_without_the_thresholds_file_does_not_load(content_copy):
    (content_copy / "achievements.toml").unlink()
    with pytest.raises(ContentError, match="achievements.toml is missing"):
        load_content(content_copy)
