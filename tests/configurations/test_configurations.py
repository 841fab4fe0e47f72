"""Every built-in configuration is registered and plays on a small world through observations and
actions only, with most of its actions accepted; the rusher and the builder (parameter sets of the
one strategy) prepare differently."""

from __future__ import annotations

import pytest
from asiworld.agents.bots.base import Agent
from asiworld.agents.bots.builtin import available, make_agent
from asiworld.headless.run import Run, RunConfig

EXPECTED = ("rusher", "builder", "forager", "random")
# No configuration may have most of its actions refused; random picks blindly, so its bound is
# only that the world keeps answering it. The rusher and the builder are held to a tighter one.
REFUSAL_BOUND = {"random": 0.9, "rusher": 0.1, "builder": 0.1}
DEFAULT_BOUND = 0.5


def _play(agents: list[str], minutes: int, seed: int = 3) -> Run:
    run = Run(RunConfig(seed=seed, minutes=minutes, agents=agents, size=64, record=False))
    run.run()
    return run


@pytest.mark.parametrize("name", EXPECTED)
def test_the_configuration_is_registered_and_is_an_agent(name):
    assert name in available()
    agent = make_agent(name, seed=1, think_ticks=3)
    assert isinstance(agent, Agent)
    assert agent.name == name and agent.description


@pytest.mark.parametrize("name", available())
def test_each_configuration_plays_a_few_minutes_and_most_of_its_actions_are_accepted(name):
    run = _play([name], minutes=4)
    seat = run.agents.seats[0]
    assert seat.decisions >= 60  # it was asked every few ticks, and answered without crashing
    assert seat.refusals / seat.decisions < REFUSAL_BOUND.get(name, DEFAULT_BOUND)
    accepted = [e for e in run.events if e["kind"] == "action" and e["char"] == seat.char]
    assert accepted, f"{name} never had an action accepted"


def test_an_unknown_configuration_name_is_refused_with_the_list_of_known_ones():
    with pytest.raises(ValueError, match="available: .*rusher"):
        make_agent("wizard")


def _kinds(run: Run, name: str) -> list[dict]:
    cid = next(c["id"] for c in run.characters if c["label"] == name)
    return [e for e in run.events if e.get("char") == cid]


def test_the_rusher_makes_one_sword_and_goes_into_a_dungeon_without_armor():
    run = _play(["rusher"], minutes=12, seed=7)
    events = _kinds(run, "rusher")
    crafted = [e["item"] for e in events if e["kind"] == "crafted"]
    assert "stone_sword" in crafted and "iron_ingot" not in crafted
    assert not any(e["kind"] == "equipped" and e["slot"] == "armor" for e in events)
    assert any(e["kind"] == "dungeon_entered" for e in events)


def test_the_builder_sets_up_a_workbench_and_tools_and_stays_on_the_surface_early():
    run = _play(["builder"], minutes=12, seed=7)
    events = _kinds(run, "builder")
    placed = {e["item"] for e in events if e["kind"] == "placed"}
    crafted = [e["item"] for e in events if e["kind"] == "crafted"]
    assert "workbench" in placed
    assert "stone_pickaxe" in crafted and "iron_ingot" in crafted  # iron before any dungeon
    assert "stone_sword" not in crafted
    assert not any(e["kind"] == "dungeon_entered" for e in events)


def test_the_rusher_and_the_builder_share_a_world_without_getting_stuck():
    run = _play(["rusher", "builder"], minutes=6, seed=5)
    for seat in run.agents.seats:
        assert seat.refusals / seat.decisions < 0.1
