"""The pipeline (asiworld.pipeline): one tick for every entry point, observers in a fixed order
whoever registers first, a world replaced without touching the order, built-in agents made in
one place with one seeding rule.

Bad inputs tried: an observer name outside the order, a second observer of a kind, a driver
that raises, an observer that raises, a durability callback that raises."""

from __future__ import annotations

import pytest
from asiworld.agents.bots.base import Agent
from asiworld.agents.bots.driver import AgentDriver, BuiltinAgents, builtin_seed
from asiworld.engine import World
from asiworld.engine.frames import FrameBuilder
from asiworld.headless.run import Run, RunConfig
from asiworld.pipeline import OBSERVERS, Pipeline, PipelineError
from asiworld.programs.manager import ProgramManager


def small_world(seed: int = 3) -> World:
    return World.create(seed=seed, size=48)


def test_observers_see_a_tick_in_the_pipelines_order_whoever_registered_first():
    pipeline = Pipeline(small_world())
    seen = []
    for name in ("store", "live", "recorder", "agents", "assessment"):
        pipeline.add_observer(name, lambda tick, name=name: seen.append(name))
    pipeline.watch(lambda tick: seen.append("watch"))
    pipeline.step()
    assert seen == ["recorder", "assessment", "agents", "live", "store", "watch"]
    assert pipeline.observers() == seen
    assert [n for n in OBSERVERS if n in seen] == seen[:-1]


def test_an_observer_outside_the_order_or_twice_is_refused_and_changes_nothing():
    pipeline = Pipeline(small_world())
    pipeline.add_observer("live", lambda tick: None)
    with pytest.raises(PipelineError, match="no observer 'spy'"):
        pipeline.add_observer("spy", lambda tick: None)
    with pytest.raises(PipelineError, match="already has a 'live'"):
        pipeline.add_observer("live", lambda tick: None)
    assert pipeline.observers() == ["live"]


class Walker(Agent):
    def decide(self, obs):
        return {"type": "move", "dir": "n"}


class Broken(Agent):
    def decide(self, obs):
        raise RuntimeError("a bug in an agent")


def test_a_tick_runs_drivers_then_the_engine_then_observers_and_survives_broken_ones():
    world = small_world()
    pipeline = Pipeline(world, programs=ProgramManager(world, in_process=True),
                        frames=FrameBuilder(world))  # fmt: skip
    walker = world.add_character("walker")
    broken = world.add_character("broken")
    driver = pipeline.add_driver(AgentDriver())
    driver.add(broken, Broken(think_ticks=1))
    driver.add(walker, Walker(think_ticks=1))
    pipeline.add_observer("live", lambda tick: 1 / 0)  # a broken observer
    ticks = []
    pipeline.watch(ticks.append)
    pipeline.add_event({"kind": "incident", "char": walker, "cause": "model_error"})
    tick = pipeline.step()
    assert ticks == [tick] and tick.tick == world.tick == 1
    assert tick.frame is not None and tick.world is world
    # the broken agent decided first; the walker, seated after it, still moved
    assert [(r[1], r[2]["type"]) for r in tick.inputs if r[1] is not None] == [(walker, "move")]
    assert [r[2]["name"] for r in tick.inputs if r[1] is None] == ["walker", "broken"]  # joins
    incident = [e for e in tick.events if e["kind"] == "incident"]
    assert incident == [{"kind": "incident", "char": walker, "cause": "model_error", "tick": 1}]
    pipeline.close()


def test_a_failing_durability_callback_stops_the_tick_before_the_engine_steps():
    world = small_world()
    pipeline = Pipeline(world)
    pipeline.durable.append(lambda: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError):
        pipeline.step()
    assert world.tick == 0


def test_replacing_the_world_keeps_drivers_and_observers_in_order_and_moves_the_program_host():
    world = small_world()
    programs = ProgramManager(world, in_process=True)
    pipeline = Pipeline(world, programs=programs, frames=FrameBuilder(world))
    builtin = pipeline.add_driver(BuiltinAgents())
    builtin.join(pipeline, "forager", 0)
    replaced = []
    pipeline.add_observer("store", lambda tick: None, on_replace=replaced.append)
    pipeline.add_observer("recorder", lambda tick: None)
    before = (pipeline.observers(), list(pipeline.drivers))
    pipeline.run_until(3)
    other = small_world(seed=4)
    ada = other.add_character("ada")
    pipeline.replace_world(other)
    assert (pipeline.observers(), list(pipeline.drivers)) == before
    assert replaced == [pipeline] and builtin.seats == []  # the old world's agents are gone
    assert pipeline.world is other and programs.world is other and pipeline.frames.world is other
    assert pipeline.submit_program(ada, "idle", "wait(2)\n")["ok"] is True
    assert pipeline.step().tick == 1
    pipeline.close()


def test_built_in_agents_get_one_seeding_rule_in_headless_runs_servers_and_forks(apps):
    from asiworld.server import services

    run = Run(RunConfig(seed=5, minutes=0, agents=["forager", "planner"], stagger_ticks=0))
    run.pipeline.step()
    app = apps.create({"SEED": 5, "WORLD_SIZE": 48, "AGENTS": ["forager", "planner"]})
    served = services(app).builtin.records()
    assert [s.seed for s in run.agents.seats] == [s["seed"] for s in served] == [5000, 5001]
    assert builtin_seed(5, 1) == 5001
    run.pipeline.close()


def test_the_headless_run_the_readme_shows_steps_through_the_pipeline():
    run = Run(RunConfig(seed=7, minutes=1, agents=["forager", "random"], size=48))
    results = run.run()
    assert results["ticks"] == 60 and run.pipeline.world is run.world
    assert [c["label"] for c in run.characters] == ["forager", "random"]
    assert run.pipeline.engine_seconds > 0
