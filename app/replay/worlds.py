"""The engine's world at any tick of a replay, re-simulated from the seed and the input log.

A replay stores what spectators saw (frames), not each character's memory, so a point of view
(fog, last-seen tiles and creatures) and a fork need the real World. Re-simulating from tick 0
costs about as much as the run did; snapshots (`World.snapshot()`) taken every SNAPSHOT_EVERY
ticks on the way are kept, so the next request starts from the nearest one before its tick.
"""

from __future__ import annotations

import bisect
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from .format import ReplayError
from .reader import Replay

SNAPSHOT_EVERY = 300  # five simulation minutes: a point of view costs at most 300 steps
MAX_SNAPSHOTS = 96  # across every replay; a 128 x 128 world with 9 characters is ~0.5 MB each


class ReplayWorlds:
    def __init__(self, snapshot_every: int = SNAPSHOT_EVERY, max_snapshots: int = MAX_SNAPSHOTS):
        self.every = snapshot_every
        self.max = max_snapshots
        self._lock = threading.Lock()  # one re-simulation at a time: the machine has 2 cores
        self._snapshots: OrderedDict[tuple[Path, int], bytes] = OrderedDict()
        self._inputs: dict[Path, dict[int, list]] = {}
        self._content: Any = None

    def world_at(self, replay: Replay, tick: int) -> Any:
        """A new World at `tick` (after the step that reached it, before that tick's inputs),
        the same state the recording's hash for that tick describes."""
        first, last = replay.first_tick, replay.last_tick
        if first is None or not first <= tick <= last:
            raise ReplayError(
                "tick_out_of_range", f"tick {tick} is outside the recorded ticks {first}-{last}"
            )
        from app.engine import World, load_content

        with self._lock:
            if self._content is None:
                self._content = load_content()
            by_tick = self._inputs_of(replay)
            start = self._nearest(replay.path, tick)
            if start is None:
                world = World.create(
                    seed=replay.header.seed, content=self._content, size=replay.header.width
                )
                self._keep(replay.path, world)  # world generation alone takes a while
            else:
                blob = self._snapshots[(replay.path, start)]
                self._snapshots.move_to_end((replay.path, start))
                world = World.restore(blob, self._content)
            while world.tick < tick:
                _step(world, by_tick.get(world.tick, ()))
                if world.tick % self.every == 0:
                    self._keep(replay.path, world)
            return world

    def _inputs_of(self, replay: Replay) -> dict[int, list]:
        if replay.path not in self._inputs:
            by_tick: dict[int, list] = {}
            for t, char, action in replay.inputs():
                by_tick.setdefault(int(t), []).append((char, action))
            self._inputs[replay.path] = by_tick
        return self._inputs[replay.path]

    def _nearest(self, path: Path, tick: int) -> int | None:
        ticks = sorted(t for p, t in self._snapshots if p == path)
        i = bisect.bisect_right(ticks, tick) - 1
        return ticks[i] if i >= 0 else None

    def _keep(self, path: Path, world: Any) -> None:
        key = (path, world.tick)
        if key not in self._snapshots:
            self._snapshots[key] = world.snapshot()
            while len(self._snapshots) > self.max:
                self._snapshots.popitem(last=False)

    def forget(self, path: Path) -> None:
        with self._lock:
            for key in [k for k in self._snapshots if k[0] == path]:
                del self._snapshots[key]
            self._inputs.pop(path, None)


def _step(world: Any, inputs: Any) -> None:
    """One tick exactly as app.engine.resim.replay_inputs does it: joins first, then the step."""
    actions = []
    for char, action in inputs:
        if char is None and action.get("type") == "join":
            made = world.add_character(action["name"], action.get("label", ""))
            if "id" in action and made != action["id"]:
                raise ReplayError(
                    "resim_mismatch",
                    f"join at tick {world.tick} made character {made}, the log says {action['id']}",
                )
        else:
            actions.append((char, action))
    world.step(actions)


def point_of_view(world: Any, char: int) -> dict[str, Any]:
    """What `char` knew at this tick: its observation with full memory (fog, remembered tiles and
    creatures), read without consuming its events. memory.ticks is left out (size)."""
    obs = world.observe(char, full_memory=True, consume=False)
    if isinstance(obs.get("memory"), dict):
        obs["memory"] = {k: v for k, v in obs["memory"].items() if k != "ticks"}
    return obs
