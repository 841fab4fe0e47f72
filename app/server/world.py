"""Build the live world's pipeline and its built-in characters from the server configuration."""

from __future__ import annotations

from asiworld.agents.bots.driver import BuiltinAgents
from asiworld.engine import World, load_content
from asiworld.engine.frames import FrameBuilder
from asiworld.pipeline import Pipeline
from asiworld.programs.limits import ENDED_KEPT, HOST_MEMORY_BYTES, PROGRAMS_MEMORY_BYTES
from asiworld.programs.pool import LIVE_SLICE_DEADLINE
from asiworld.realtime import WorldRunner
from asiworld.session import Session


def engine_world(config: dict) -> tuple[World, FrameBuilder]:
    """The real engine: a fresh world for SEED (and WORLD_SIZE when set) and its FrameBuilder."""
    content = load_content()
    kwargs = {"size": config["WORLD_SIZE"]} if config.get("WORLD_SIZE") else {}
    world = World.create(seed=config["SEED"], content=content, **kwargs)
    return world, FrameBuilder(world)


def build_pipeline(config: dict) -> tuple[Pipeline, BuiltinAgents]:
    """The live world's pipeline: its world and frame builder (WORLD_FACTORY, else the engine),
    the program host every agent shares (built-in and outside ones), and the built-in agents'
    driver with one character per AGENTS name (`planner-1`, `forager-2`, ...)."""
    factory = config.get("WORLD_FACTORY") or engine_world
    world, frame_builder = factory(config)
    # A live world never waits on a program past a deadline (asiworld.programs.pool).
    pipeline = Session.build(
        world=world,
        frames=frame_builder,
        in_process=bool(config.get("PROGRAMS_IN_PROCESS", False)),
        slice_deadline=LIVE_SLICE_DEADLINE,
        ended_kept=int(config.get("PROGRAMS_KEPT") or ENDED_KEPT),
        memory_budget=int(config.get("PROGRAMS_MEMORY") or PROGRAMS_MEMORY_BYTES),
        program_memory=int(config.get("PROGRAM_MEMORY") or HOST_MEMORY_BYTES),
    ).pipeline
    builtin = pipeline.add_driver(BuiltinAgents())
    grace_nights(pipeline.world, config)
    for index, name in enumerate(config.get("AGENTS") or []):
        builtin.join(pipeline, name, index, name=f"{name}-{index + 1}")
    return pipeline, builtin


def build_runner(config: dict) -> tuple[WorldRunner, BuiltinAgents]:
    """The runner of the world to serve: RUNNER as it is (a study's world, its pipeline and
    drivers already wired), else a new one from the configuration."""
    runner = config.get("RUNNER")
    if runner is not None:
        drivers = runner.pipeline.drivers
        builtin = next((d for d in drivers if isinstance(d, BuiltinAgents)), None)
        return runner, builtin or BuiltinAgents()
    pipeline, builtin = build_pipeline(config)
    return WorldRunner(pipeline, speed=config["SPEED"]), builtin


def grace_nights(world: World, config: dict) -> None:
    """The grace every character joining from now on gets (a resumed world's characters keep
    the grace they joined with)."""
    world.grace_nights = int(config.get("GRACE_NIGHTS") or 0)
