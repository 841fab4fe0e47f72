"""The composite score: the formula, cohort normalisation, zero maxima and ranking.

Bad inputs tried: a cohort where nobody defeated a boss or crafted anything (zero maxima), an
empty cohort, exact ties, and two scores that round to the same shown value.
"""

from __future__ import annotations

import pytest
from asiworld.evaluation.score import RawMeasures, composite, score_cohort


def row(name: str, **kw) -> RawMeasures:
    values = dict(outfit=False, depth=0, hero=False, kills=0, bosses=0, crafts=0, coins=0)
    values.update(trial=0, downs=0)
    values.update(kw)
    return RawMeasures(name=name, **values)


def test_a_perfect_configuration_scores_one_hundred():
    best = row("best", outfit=True, depth=3, hero=True, bosses=4, crafts=50, trial=8)
    assert composite(best, max_bosses=4, max_crafts=50) == pytest.approx(100.0)


def test_each_term_carries_its_weight():
    assert composite(row("h", hero=True), 0, 0) == 30
    assert composite(row("o", outfit=True), 0, 0) == 10
    assert composite(row("d", depth=2), 0, 0) == pytest.approx(10.0)
    assert composite(row("b", bosses=1), 4, 0) == pytest.approx(3.75)
    assert composite(row("c", crafts=10), 0, 40) == pytest.approx(6.25)
    assert composite(row("t", trial=4), 0, 0) == pytest.approx(2.5)


def test_bosses_and_crafts_are_normalised_by_the_cohort_maximum():
    cohort = [row("a", bosses=2, crafts=10), row("b", bosses=4, crafts=40)]
    scores = {s.name: s.score for s in score_cohort(cohort)}
    assert scores["a"] == pytest.approx(15 * 2 / 4 + 25 * 10 / 40)
    assert scores["b"] == pytest.approx(15 + 25)


def test_a_zero_cohort_maximum_makes_that_ratio_count_zero():
    cohort = [row("a", depth=1), row("b", trial=2)]
    scores = {s.name: s.score for s in score_cohort(cohort)}
    assert scores == {"a": pytest.approx(5.0), "b": pytest.approx(1.25)}


def test_the_same_configuration_scores_differently_in_a_stronger_cohort():
    alone = score_cohort([row("a", crafts=10)])[0].score
    with_rival = score_cohort([row("a", crafts=10), row("b", crafts=20)])
    assert alone == 25
    assert next(s.score for s in with_rival if s.name == "a") == pytest.approx(12.5)


def test_ranking_uses_the_unrounded_score_when_shown_scores_tie():
    cohort = [
        row("aaa", crafts=99, trial=0),  # 25·99/1000 = 2.475 -> shows 2.5
        row("zzz", crafts=100, trial=0),  # 25·100/1000 = 2.5 -> shows 2.5
        row("top", crafts=1000),
    ]
    ranked = score_cohort(cohort)
    assert ranked[1].shown == ranked[2].shown == "2.5"
    assert [s.name for s in ranked] == ["top", "zzz", "aaa"]
    assert [s.rank for s in ranked] == [1, 2, 3]


def test_exact_ties_keep_name_order():
    ranked = score_cohort([row("m", depth=1), row("b", depth=1), row("k", depth=1)])
    assert [s.name for s in ranked] == ["b", "k", "m"]
    assert [s.rank for s in ranked] == [1, 2, 3]


def test_an_empty_cohort_scores_nobody():
    assert score_cohort([]) == []


def test_scores_are_shown_with_one_decimal():
    ranked = score_cohort([row("a", trial=1)])
    assert ranked[0].score == 0.625 and ranked[0].shown == "0.6"
