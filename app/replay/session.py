"""Recording a running world: the pipeline's "recorder" observer (a headless run's replay).

    recording = RunRecording.start(path, world, frame_builder, configurations=[...])
    pipeline.add_observer("recorder", recording.on_tick)   # asiworld.pipeline
    pipeline.run_until(horizon)
    recording.close()

The input log is taken from ``world.input_log`` (the engine's own, in application order), from
its very first entry even when recording starts mid-run, so ``replay verify`` can always
re-simulate from the seed.
"""

from __future__ import annotations

import os
from typing import Any

from asiworld.engine import World, codes
from asiworld.engine.frames import FrameBuilder
from asiworld.engine.model import SURFACE
from asiworld.pipeline import Tick

from .format import ReplayError
from .header import Configuration, ReplayHeader
from .recorder import Recorder
from .snapshots import world_blob
from .turns import transcript_chunks

# Ticks between world snapshots in a recording (10 simulation minutes): a point of view or a
# fork then re-simulates at most this many steps. See docs/replays.md for the size it costs.
SNAPSHOT_EVERY = 600


def header_for_world(
    world: World,
    configurations: list[Configuration | dict] | None = None,
    horizon: int = 18_000,
    **fields: Any,
) -> ReplayHeader:
    """A header filled from the world: seed, surface size and the content's hash."""
    height, width = world.areas[SURFACE].terrain.shape
    return ReplayHeader(
        seed=int(world.seed),
        width=int(width),
        height=int(height),
        configurations=list(configurations or []),
        horizon=horizon,
        content_hash=world.content.hash,
        **fields,
    )


class RunRecording:
    def __init__(self, recorder: Recorder, world: World, frame_builder: FrameBuilder) -> None:
        self.recorder = recorder
        self.world = world
        self.frames = frame_builder
        self._logged = 0

    @classmethod
    def start(
        cls,
        path: str | os.PathLike,
        world: World,
        frame_builder: FrameBuilder,
        header: ReplayHeader | None = None,
        *,
        configurations: list[Configuration | dict] | None = None,
        horizon: int = 18_000,
        mid_run: bool = False,
        **recorder_options: Any,
    ) -> RunRecording:
        """Open the file and record the current state as the first keyframe.

        `mid_run`: the world's past cannot be re-simulated from its seed (a resumed or forked
        live world): the replay starts from a world snapshot of this tick instead, with only the
        inputs logged from now on (`ReplayHeader.start`). ReplayError `not_recordable` when the
        world has actions waiting for its next step (a snapshot now would apply them twice)."""
        header = header or header_for_world(world, configurations, horizon)
        blob = digest = None
        if mid_run:
            blob = world_blob(world)
            if blob is None:
                raise ReplayError(
                    codes.NOT_RECORDABLE, "the world has actions waiting for its next step"
                )
            digest = world.state_hash()
            header.start = {
                "tick": int(world.tick),
                "log_row": int(world.input_log_end),
                "characters": [
                    {"id": e.id, "name": e.name, "label": e.label, "tick": int(world.tick)}
                    for e in world.entities.values()
                    if e.kind == "character"
                ],
            }
        if "snapshot_every" not in recorder_options:  # the nearest multiple of hash_every
            every = int(recorder_options.get("hash_every", 60))
            recorder_options["snapshot_every"] = -(-SNAPSHOT_EVERY // every) * every
        recording = cls(Recorder(path, header, **recorder_options), world, frame_builder)
        if mid_run:
            recording._logged = world.input_log_end  # what came before is in the snapshot
        recording.recorder.record(
            frame_builder.keyframe(), recording._new_inputs(), [], hash=digest, snapshot=blob
        )
        return recording

    def _new_inputs(self) -> list:
        # Absolute row numbers: a world may forget rows it saved elsewhere (input_log_base).
        new = self.world.inputs_since(self._logged)  # a slice past the end when nothing is new
        self._logged = self.world.input_log_end
        return new

    def after_step(self, events: list[dict], frame: dict | None = None) -> dict:
        """Record the tick the world just reached; builds the frame unless given one."""
        frame = self.frames.frame(events) if frame is None else frame
        tick = self.world.tick
        digest = self.world.state_hash() if self.recorder.wants_hash(tick) else None
        # Taken with the hash (same moment), so a reader can check one against the other.
        blob = world_blob(self.world) if self.recorder.wants_snapshot(tick) else None
        self.recorder.record(frame, self._new_inputs(), events, hash=digest, snapshot=blob)
        return frame

    def on_tick(self, info: Tick) -> None:
        """The pipeline's "recorder" observer: records the tick (builds the frame when the
        pipeline has no frame builder)."""
        self.after_step(info.events, info.frame)

    def add_turns(self, folder: str | os.PathLike, characters: dict[str, int]) -> int:
        """Carry the model turns of `folder`'s transcripts (`NAME.jsonl`, a study's
        transcripts/) into the replay, one T chunk per configuration; `characters` maps names
        to character ids. Returns the number of turns."""
        from pathlib import Path

        count = 0
        for t0, t1, body in transcript_chunks(Path(folder), characters):
            self.recorder.add_turns(t0, t1, body)
            count += len(body["turns"])
        return count

    def close(self) -> None:
        self.recorder.close()

    def __enter__(self) -> RunRecording:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
