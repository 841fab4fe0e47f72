"""The agent driver hands an agent's program to the pipeline's ProgramManager, and a direct action
afterwards stops it (the programs' direct-action rule), exactly as for an outside agent.

Bad inputs tried: a program that does not compile, a program handed over in a world that hosts
no programs, and a pseudo-action with no source."""

from __future__ import annotations

from asiworld.agents.bots.base import Agent
from asiworld.agents.bots.driver import AgentDriver
from asiworld.engine import World, load_content
from asiworld.pipeline import Pipeline
from asiworld.programs.manager import ProgramManager

CONTENT = load_content()


class Scripted(Agent):
    """Answers with the given actions in turn, and remembers what it saw and was told."""

    def __init__(self, *actions):
        super().__init__(think_ticks=1)
        self.actions = list(actions)
        self.seen: list[dict] = []
        self.told: list[dict] = []

    def decide(self, obs):
        self.seen.append(obs)
        return self.actions.pop(0) if self.actions else None

    def feedback(self, result):
        self.told.append(result)


def world_with(agent, programs=True):
    world = World.create(seed=7, content=CONTENT, size=64)
    char = world.add_character("ada")
    manager = ProgramManager(world, in_process=True) if programs else None
    pipeline = Pipeline(world, programs=manager)
    pipeline.add_driver(AgentDriver()).add(char, agent)
    return world, char, manager, pipeline


def tick(world, manager, pipeline, n=1):
    pipeline.run_until(world.tick + n)


def test_a_program_handed_over_runs_and_its_status_reaches_the_agents_observation():
    agent = Scripted({"type": "program", "name": "walk", "source": "wait(5)\n"})
    world, char, manager, driver = world_with(agent)
    tick(world, manager, driver, 3)
    assert agent.told[0]["ok"] is True
    assert agent.seen[-1]["programs"][0]["name"] == "walk"
    assert agent.seen[-1]["programs"][0]["status"] == "waiting"


def test_a_direct_action_after_the_hand_over_stops_the_program():
    agent = Scripted(
        {"type": "program", "name": "walk", "source": "wait(50)\n"}, {"type": "move", "dir": "n"}
    )
    world, char, manager, driver = world_with(agent)
    tick(world, manager, driver, 3)
    status = manager.status(char, 1)
    assert status["status"] == "stopped"
    assert status["outcome"]["error"]["code"] == "direct_action"


def test_a_program_that_does_not_compile_is_refused_to_the_agent_with_its_line():
    agent = Scripted({"type": "program", "name": "bad", "source": "import os\n"})
    world, char, manager, driver = world_with(agent)
    tick(world, manager, driver, 1)
    assert agent.told[0]["ok"] is False and agent.told[0]["line"] == 1
    assert manager.records == {} and manager.active == {}


def test_without_a_program_host_the_hand_over_is_refused_clearly():
    agent = Scripted({"type": "program", "name": "walk", "source": "wait(5)\n"})
    world, char, manager, driver = world_with(agent, programs=False)
    tick(world, manager, driver, 2)
    assert agent.told[0] == {
        "ok": False,
        "code": "programs_unavailable",
        "message": "this world hosts no programs",
    }
    assert "programs" not in agent.seen[-1]


def test_a_hand_over_without_source_is_refused():
    agent = Scripted({"type": "program", "name": "empty"})
    world, char, manager, driver = world_with(agent)
    tick(world, manager, driver, 1)
    assert agent.told[0]["ok"] is False and agent.told[0]["code"] == "bad_argument"
