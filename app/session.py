"""One composition root: a world, its programs and the pipeline that ticks them, built one way.

Every entry point that runs a world (the server, headless runs, studies, the Gymnasium and
PettingZoo environments, `asiworld program run`) asks `Session.build` for it instead of
assembling the parts by hand, so a new part of a world (a setting of the program host, a frame
builder, content) is wired in one place and every entry point gets it.

    session = Session.build(seed=7, size=64)                     # a headless world
    session = Session.build(seed=7, frames=True, slice_deadline=LIVE_SLICE_DEADLINE)  # a live one
    session = Session.build(world=saved_world, frames=True)       # a world made elsewhere
    session.pipeline.run_until(600)
    session.close()

What differs between entry points is what they add on top: drivers (`pipeline.add_driver`), a
clock (asiworld.realtime.WorldRunner, or the caller's loop), recorders and assessments
(`pipeline.watch`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from asiworld.engine import World, load_content
from asiworld.engine.content import Content
from asiworld.engine.frames import FrameBuilder
from asiworld.pipeline import Pipeline
from asiworld.programs.limits import ENDED_KEPT, HOST_MEMORY_BYTES, PROGRAMS_MEMORY_BYTES
from asiworld.programs.manager import ProgramManager


@dataclass
class Session:
    content: Content
    world: World
    programs: ProgramManager | None
    pipeline: Pipeline

    @classmethod
    def build(
        cls,
        *,
        seed: int = 7,
        size: int | None = None,
        world: World | None = None,
        content: Content | None = None,
        programs: bool = True,
        in_process: bool = False,
        slice_deadline: float | None = None,
        ended_kept: int = ENDED_KEPT,
        memory_budget: int | None = PROGRAMS_MEMORY_BYTES,
        program_memory: int = HOST_MEMORY_BYTES,
        frames: bool | Any = False,
    ) -> Session:
        """A world (a new one from `seed` and `size`, or `world` as it is), its program host
        (`programs=False`: none; `in_process`: in this process; `slice_deadline`: seconds a
        live world waits for its programs each tick, None waits for every answer) and its
        pipeline. `frames`: True builds the world's FrameBuilder; a FrameBuilder is used as
        it is (a world made elsewhere brings its own)."""
        if world is None:
            content = content or load_content()
            kwargs = {"size": size} if size else {}
            world = World.create(seed=seed, content=content, **kwargs)
        manager = None
        if programs:
            manager = ProgramManager(
                world,
                in_process=in_process,
                slice_deadline=slice_deadline,
                ended_kept=ended_kept,
                memory_budget=memory_budget,
                program_memory=program_memory,
            )
        if frames is True:
            frames = FrameBuilder(world)
        pipeline = Pipeline(world, programs=manager, frames=frames or None)
        return cls(content=world.content, world=world, programs=manager, pipeline=pipeline)

    def close(self) -> None:
        """End the program host's processes (the world itself holds nothing to close)."""
        self.pipeline.close()
