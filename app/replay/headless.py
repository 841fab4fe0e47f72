"""Recording a headless `Run` (app/headless/run.py) to `OUT/replay.asirep`.

The run's configurations go into the header by name; which characters played each is read back
from the join inputs (`Replay.characters()`), because characters join with a stagger after the
first keyframe is written.
"""

from __future__ import annotations

from pathlib import Path

from asiworld.engine import World
from asiworld.engine.frames import FrameBuilder

from .session import RunRecording, header_for_world

REPLAY_NAME = "replay.asirep"


def record_run(
    world: World, configurations: list[str], horizon: int, out: Path, title: str = ""
) -> RunRecording:
    """Start recording a headless run's `world` into `out/replay.asirep` (the configurations by
    name, `horizon` in ticks); add `recording.on_tick` as its pipeline's "recorder" observer and
    `close()` the recording when the run ends."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    names = list(dict.fromkeys(configurations))
    header = header_for_world(
        world, [{"name": name, "characters": []} for name in names], horizon=horizon, title=title
    )
    return RunRecording.start(out / REPLAY_NAME, world, FrameBuilder(world), header)
