"""Build the live world and its built-in characters from the server configuration."""

from __future__ import annotations

import importlib
import logging
from typing import Any

from app.server.runner import BuiltinAgent, WorldRunner

log = logging.getLogger(__name__)


def engine_world(config: dict) -> tuple[Any, Any]:
    """The real engine: a fresh world for SEED (and WORLD_SIZE when set) and its FrameBuilder."""
    from app.engine import World, load_content
    from app.engine.frames import FrameBuilder

    content = load_content()
    kwargs = {"size": config["WORLD_SIZE"]} if config.get("WORLD_SIZE") else {}
    world = World.create(seed=config["SEED"], content=content, **kwargs)
    return world, FrameBuilder(world)


def _agent_factory() -> Any:
    try:
        module = importlib.import_module("app.agents.builtin")
    except ImportError:
        return None
    return getattr(module, "make_agent", None)


def add_builtin_agents(runner: WorldRunner, names: list[str], every: int = 1) -> None:
    """Populate the world with one character per name; drive it with `app.agents` if present.

    Without the agents package the characters still join (so the world is populated) but stand
    idle; the log says so.
    """
    make_agent = _agent_factory()
    for index, name in enumerate(names, start=1):
        char_name = f"{name}-{index}"
        cid = runner.add_character(name=char_name, label=name)
        if make_agent is None:
            log.warning("app.agents.builtin is not available: %s stands idle", char_name)
            continue
        agent = make_agent(name)
        runner.agents.append(
            BuiltinAgent(
                char=cid, name=char_name, agent=agent, every=getattr(agent, "every", every)
            )
        )


def build_runner(config: dict) -> WorldRunner:
    factory = config.get("WORLD_FACTORY") or engine_world
    world, frame_builder = factory(config)
    runner = WorldRunner(world, frame_builder, speed=config["SPEED"])
    add_builtin_agents(runner, list(config.get("AGENTS") or []), every=config["AGENT_EVERY"])
    return runner
