"""The agent interface: a user's class with observe and decide plays through the driver, its
decisions act (actions and programs), and a class without the interface is refused by name."""

from __future__ import annotations

import pytest
from asiworld.agents.bots.driver import AgentDriver
from asiworld.agents.clients.interface import (
    InterfaceError,
    act,
    load_agent_class,
    make_interface_agent,
    program,
)
from asiworld.engine import World
from asiworld.pipeline import Pipeline


class WalksNorth:
    def __init__(self, steps: int = 2) -> None:
        self.steps, self.obs, self.results = steps, {}, []

    def observe(self, observation: dict) -> None:
        self.obs = observation

    def decide(self):
        if self.steps == 0:
            return None
        self.steps -= 1
        return act("move", dir="n")

    def result(self, outcome: dict) -> None:
        self.results.append(outcome["ok"])


class Hands:
    def observe(self, observation: dict) -> None:
        pass

    def decide(self):
        return program("idle", "def main():\n    wait(3)\n")


class NoDecide:
    def observe(self, observation: dict) -> None:
        pass


def test_a_user_agent_observes_decides_and_hears_the_result():
    world = World.create(seed=3, size=48)
    cid = world.add_character("mine", label="mine")
    agent = make_interface_agent(f"{__name__}:WalksNorth", {"steps": 2}, think_ticks=2)
    pipeline = Pipeline(world)
    pipeline.add_driver(AgentDriver()).add(cid, agent)
    y0 = world.entities[cid].y
    pipeline.run_until(8)
    assert world.entities[cid].y < y0
    assert agent.user.obs["self"]["id"] == cid and len(agent.user.results) == 2


def test_a_program_decision_without_a_program_host_is_refused_not_raised():
    world = World.create(seed=3, size=48)
    cid = world.add_character("hands", label="hands")
    agent = make_interface_agent(f"{__name__}:Hands", {})
    pipeline = Pipeline(world)
    seat = pipeline.add_driver(AgentDriver()).add(cid, agent)
    pipeline.step()
    assert seat.refusals == 1


def test_classes_that_are_not_agents_are_refused_by_name():
    with pytest.raises(InterfaceError) as caught:
        load_agent_class(f"{__name__}:NoDecide")
    assert caught.value.code == "not_an_agent" and "decide" in caught.value.message
    with pytest.raises(InterfaceError) as caught:
        load_agent_class(f"{__name__}:Absent")
    assert caught.value.code == "agent_not_found"
    with pytest.raises(InterfaceError) as caught:
        make_interface_agent(f"{__name__}:WalksNorth", {"legs": 4})
    assert caught.value.code == "bad_params"
