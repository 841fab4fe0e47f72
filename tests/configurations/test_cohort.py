"""The nine-configuration cohort (docs/configurations.md) on seeds 7 and 11, 300 minutes, as the
paper's study reads: most complete production, more than half both tasks, one stalls for want
of preparation, and configurations with the same task outcome differ in survival cost. Slow
(two 300-minute runs of nine characters): runs only with ASIWORLD_SLOW=1. The two seeds run at
once in two processes, started once for the module (pytest itself keeps to one core).

Criteria not met yet are marked as measured (xfail, strict: the test fails the day the cohort
meets it, and the mark must go)."""

from __future__ import annotations

import os
from concurrent.futures import Future, ProcessPoolExecutor

import pytest
from asiworld.agents.bots.builtin import COHORT
from asiworld.agents.bots.parameters import shipped_sets
from asiworld.headless.run import Run, RunConfig

pytestmark = [
    pytest.mark.slow,
    # The first test of each seed waits for its run (two to four minutes idle, up to fifteen at a
    # load average above 50): the default 300 s would fail it, and an expected failure would
    # hide that.
    pytest.mark.timeout(1800),
    pytest.mark.skipif(os.environ.get("ASIWORLD_SLOW") != "1", reason="set ASIWORLD_SLOW=1"),
]


def seed(value: int, short_of: str | None = None):
    marks = [pytest.mark.xfail(strict=True, reason=short_of)] if short_of else []
    return pytest.param(value, marks=marks, id=f"seed{value}")


SEEDS = (7, 11)


def cohort_run(seed: int) -> dict[str, dict]:
    """One 300-minute run of the nine: each configuration's row by its label."""
    results = Run(RunConfig(seed=seed, minutes=300, agents=list(COHORT), record=False)).run()
    return {c["label"]: c for c in results["configurations"]}


@pytest.fixture(scope="module")
def cohort():
    """Both seeds' runs, started together in two processes and shared by the tests."""
    with ProcessPoolExecutor(max_workers=len(SEEDS)) as pool:
        runs: dict[int, Future] = {s: pool.submit(cohort_run, s) for s in SEEDS}
        yield lambda seed: runs[seed].result()


def both(row: dict) -> bool:
    return row["measures"]["outfit"] and row["measures"]["hero"]


@pytest.mark.parametrize("world", [seed(7), seed(11)])
def test_at_least_seven_complete_production(cohort, world):
    assert sum(r["measures"]["outfit"] for r in cohort(world).values()) >= 7


@pytest.mark.parametrize("world", [seed(7), seed(11)])
def test_at_least_five_complete_both_tasks(cohort, world):
    assert sum(both(r) for r in cohort(world).values()) >= 5


@pytest.mark.parametrize("world", [seed(7), seed(11)])
def test_one_stalls_for_want_of_preparation(cohort, world):
    """No armor: it keeps going into the next tier and never clears it, and does not get to
    the Shadow King."""
    stalled = []
    for name, row in cohort(world).items():
        p = shipped_sets()[name]
        m = row["measures"]
        if p.armor != "none" or m["hero"] or m["depth"] >= 3:
            continue
        nxt = row["dungeons"][str(m["depth"] + 1)]
        if nxt["attempts"] >= 2 and nxt["clears"] == 0:
            stalled.append(name)
    assert stalled


@pytest.mark.parametrize("world", [seed(7), seed(11)])
def test_two_that_complete_both_tasks_differ_at_least_twofold_in_damage_or_knockdowns(
        cohort, world):
    done = [r["measures"] for r in cohort(world).values() if both(r)]
    assert len(done) >= 2
    damage = sorted(m["damage_taken"] for m in done)
    downs = sorted(m["downs"] for m in done)
    assert damage[-1] >= 2 * max(1, damage[0]) or downs[-1] >= 2 * max(1, downs[0])
