"""Built-in configurations are data: one strategy and named parameter sets in
app/engine/content/configurations.toml. A set names only what differs from the defaults, the
planner is the defaults, and a bad value is refused naming the set and the key.

Bad inputs tried: a weapon that does not exist, a tier out of range, a potions list of the
wrong length, a retreat health below -1, a string for a flag, an unknown key, no [defaults]."""

from __future__ import annotations

import shutil

import pytest
from asiworld.agents.bots.builtin import COHORT, available, make_agent
from asiworld.agents.bots.parameters import FILE, ParameterError, read_sets, shipped_sets
from asiworld.agents.bots.strategy import Strategy
from asiworld.engine.content import CONTENT_DIR, load_content


@pytest.fixture
def content_copy(tmp_path):
    for f in CONTENT_DIR.glob("*.toml"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


def test_the_nine_cohort_names_and_the_old_names_are_configurations_of_one_strategy():
    assert len(COHORT) == 9 and len(set(COHORT)) == 9
    for name in (*COHORT, "planner", "rusher", "builder"):
        assert name in available()
        agent = make_agent(name, seed=1, think_ticks=3)
        assert isinstance(agent, Strategy) and agent.name == name and agent.description
    assert {"forager", "random"} <= set(available())


def test_the_planner_is_the_defaults_and_every_cohort_member_differs_from_the_others():
    sets = shipped_sets()
    raw = load_content().raw["configurations"]
    assert raw["sets"]["planner"] == {}
    settings = [tuple(v for k, v in sets[n].as_dict().items() if k not in ("name", "description"))
                for n in COHORT if n != "steady"]
    assert len(set(settings)) == len(settings)


def test_the_cohort_differs_in_preparation_combat_and_recovery():
    sets = shipped_sets()
    cohort = [sets[n] for n in COHORT]
    assert {p.armor for p in cohort} == {"iron", "leather", "none"}
    assert {p.home for p in cohort} == {True, False}
    assert {p.hand_over for p in cohort} >= {(), (2,), (1, 2, 3)}
    assert len({p.retreat_below for p in cohort}) >= 3
    assert len({p.enter_above for p in cohort}) >= 3
    assert {p.buy_potions for p in cohort} == {True, False}
    assert {p.max_tier for p in cohort} == {1, 4}


def test_the_configurations_file_stays_out_of_the_content_hash(content_copy):
    before = load_content(content_copy).hash
    path = content_copy / FILE
    path.write_text(path.read_text().replace("drink_below = 55", "drink_below = 60"))
    assert load_content(content_copy).hash == before
    assert read_sets(content_copy)["planner"].drink_below == 60


@pytest.mark.parametrize("old, new, message", [
    ('weapon = "iron"', 'weapon = "laser"', "[sets.planner] weapon must be iron or stone or wooden"),
    ("max_tier = 4 ", "max_tier = 7 ", "max_tier must be a whole number from 0 to 4"),
    ("potions = [2, 4, 10, 12]", "potions = [2, 4]", "potions must be a list of 4"),
    ("retreat_below = 35", "retreat_below = -5", "retreat_below must be a health from 0 to 100"),
    ("home = true ", 'home = "yes" ', "home must be true or false"),
    ("spare_torches = 4", "spare_torches = 4\nluck = 3", "has unknown key 'luck'"),
    ("[defaults]                # the planner", "[default]", "needs a [defaults] table"),
])
def test_a_bad_parameter_is_refused_naming_the_set_and_the_key(content_copy, old, new, message):
    path = content_copy / FILE
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(ParameterError) as caught:
        read_sets(content_copy)
    assert message in str(caught.value)
