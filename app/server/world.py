"""Build the live world and its built-in characters from the server configuration."""

from __future__ import annotations

import logging

from asiworld.engine import World, load_content
from asiworld.engine.frames import FrameBuilder
from asiworld.server.runner import WorldRunner

log = logging.getLogger(__name__)


def engine_world(config: dict) -> tuple[World, FrameBuilder]:
    """The real engine: a fresh world for SEED (and WORLD_SIZE when set) and its FrameBuilder."""
    content = load_content()
    kwargs = {"size": config["WORLD_SIZE"]} if config.get("WORLD_SIZE") else {}
    world = World.create(seed=config["SEED"], content=content, **kwargs)
    return world, FrameBuilder(world)


def add_builtin_agents(runner: WorldRunner, names: list[str], seed: int = 0) -> None:
    """Populate the world with one character per configuration name, driven by the agents
    package's AgentDriver before every tick (the same driver headless runs use).

    Without the agents package the characters still join, so the world is populated, but stand
    idle; the log says so.
    """
    try:
        from asiworld.agents.builtin import make_agent
        from asiworld.agents.driver import AgentDriver
    except ImportError:
        make_agent = AgentDriver = None
    driver = AgentDriver(runner.world) if AgentDriver is not None else None
    for index, name in enumerate(names, start=1):
        agent = make_agent(name, seed=seed + index) if make_agent is not None else None
        cid = runner.add_character(name=f"{name}-{index}", label=name)
        if driver is None:
            log.warning("asiworld.agents is not available: %s-%d stands idle", name, index)
            continue
        driver.add(cid, agent)
    if driver is not None and driver.seats:
        runner.before_tick(driver.before_step)
        runner.agent_drivers.append(driver)  # the agent service lends it the program host


def build_runner(config: dict) -> WorldRunner:
    factory = config.get("WORLD_FACTORY") or engine_world
    world, frame_builder = factory(config)
    runner = WorldRunner(world, frame_builder, speed=config["SPEED"])
    add_builtin_agents(runner, list(config.get("AGENTS") or []), seed=config["SEED"])
    return runner
