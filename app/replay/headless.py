"""Recording a headless `Run` (app/headless/run.py) to `OUT/replay.asirep`.

The run's configurations go into the header by name; which characters played each is read back
from the join inputs (`Replay.characters()`), because characters join with a stagger after the
first keyframe is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .session import RunRecording, header_for_world

if TYPE_CHECKING:
    from asiworld.headless.run import Run

REPLAY_NAME = "replay.asirep"


def record_run(run: Run, out: Path, title: str = "") -> RunRecording:
    """Start recording `run` into `out/replay.asirep`; add `recording.tick_hook` to its hooks
    and `close()` the recording when the run ends."""
    from asiworld.engine.frames import FrameBuilder

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    names = list(dict.fromkeys(run.config.agents))
    ticks_per_minute = run.content.time.ticks_per_minute
    header = header_for_world(
        run.world,
        [{"name": name, "characters": []} for name in names],
        horizon=run.config.minutes * ticks_per_minute,
        title=title or getattr(run, "title", ""),  # callers may name a run (run.title)
    )
    return RunRecording.start(out / REPLAY_NAME, run.world, FrameBuilder(run.world), header)
