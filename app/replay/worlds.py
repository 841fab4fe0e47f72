"""The engine's world at any tick of a replay, re-simulated from the seed and the input log.

A replay stores what spectators saw (frames), not each character's memory, so a point of view
(fog, last-seen tiles and creatures) and a fork need the real World. The re-simulation starts
from the latest of:

* a snapshot this process kept on an earlier request (every SNAPSHOT_EVERY ticks on the way);
* a world snapshot recorded in the replay (chunk W, app/replay/snapshots.py), used only once its
  tick, input-log position and state hash agree with the replay; one that does not (damaged,
  from another engine, ...) is skipped, remembered as skipped, and an earlier start is taken;
* the seed (World.create), which costs about as much as the run did.
"""

from __future__ import annotations

import bisect
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from asiworld.engine import World, codes, load_content
from asiworld.engine.errors import SnapshotError
from asiworld.engine.resim import ResimMismatch, inputs_by_tick, resimulate

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
        self._inputs: dict[Path, tuple[list, dict[int, list]]] = {}
        self._hashes: dict[Path, dict[int, str]] = {}
        self._skipped: dict[tuple[Path, int], ReplayError] = {}  # W chunks by offset
        self._content: Any = None
        self._warming: Path | None = None  # one background re-simulation at a time
        self._warmed: set[Path] = set()

    def world_at(self, replay: Replay, tick: int, report: dict | None = None) -> Any:
        """A new World at `tick` (after the step that reached it, before that tick's inputs),
        the same state the recording's hash for that tick describes.

        `report`, when given, is filled with where the re-simulation started: `from` ("kept",
        "replay" or "seed"), `from_tick`, and `skipped`, the recorded snapshots it could not
        use ([{tick, code, message}])."""
        return self._world_at(replay, tick, report, self.every)

    def _world_at(
        self,
        replay: Replay,
        tick: int,
        report: dict | None,
        keep_every: int,
        pause: Callable[[], bool] | None = None,
    ) -> Any:
        first, last = replay.first_tick, replay.last_tick
        if first is None or not first <= tick <= last:
            raise ReplayError(
                codes.TICK_OUT_OF_RANGE, f"tick {tick} is outside the recorded ticks {first}-{last}"
            )

        with self._lock:
            if self._content is None:
                self._content = load_content()
            rows, by_tick = self._inputs_of(replay)
            start = self._nearest(replay.path, tick)
            skipped: list[dict] = []
            world = self._from_replay(replay, tick, -1 if start is None else start, rows, skipped)
            origin = "replay"
            if world is not None:
                self._keep(replay.path, world)
            elif start is None and replay.header.start:
                raise ReplayError(
                    skipped[0]["code"] if skipped else codes.NO_START_SNAPSHOT,
                    "this recording begins mid-run and its starting world snapshot cannot be "
                    "used, so no world can be re-simulated from it",
                )
            elif start is None:
                origin = "seed"
                world = World.create(
                    seed=replay.header.seed, content=self._content, size=replay.header.width
                )
                self._keep(replay.path, world)  # world generation alone takes a while
            else:
                origin = "kept"
                blob = self._snapshots[(replay.path, start)]
                self._snapshots.move_to_end((replay.path, start))
                world = World.restore(blob, self._content)
            if report is not None:
                report.update({"from": origin, "from_tick": world.tick, "skipped": skipped})

            def on_tick(world: Any, _events: list) -> None:
                if world.tick % keep_every == 0:
                    self._keep(replay.path, world)
                while pause is not None and pause():  # the warm-up lets a seek go first
                    time.sleep(0.002)

            try:
                resimulate(world, by_tick, tick, on_tick)
            except ResimMismatch as exc:
                raise ReplayError(codes.RESIM_MISMATCH, str(exc)) from None
            if not replay.header.start:  # a mid-run recording has no rows before it began
                _complete_log(world, rows)
            return world

    def warm_in_background(
        self, replay: Replay, pause: Callable[[], bool] | None = None
    ) -> threading.Thread | None:
        """For a replay recorded without world snapshots (older files): re-simulate it once in
        the background, keeping snapshots on the way, so a point of view asked for later starts
        near its tick. One replay at a time; the thread, or None when nothing was started.
        `pause()`, when given, is asked before each step: while it is true the warm-up waits
        (a seek is being answered: one core's worth of Python goes to it)."""
        with self._lock:
            if replay.world_snapshots() or replay.path in self._warmed or self._warming:
                return None
            self._warming = replay.path
            self._warmed.add(replay.path)
        thread = threading.Thread(target=self._warm, args=(replay, pause), daemon=True)
        thread.start()
        return thread

    def _warm(self, replay: Replay, pause: Callable[[], bool] | None = None) -> None:
        try:
            last = replay.last_tick or 0
            # At most half the cache for one replay; a longer one gets its snapshots spread out.
            spread = -(-last // max(1, self.max // 2))
            step = max(self.every, -(-spread // self.every) * self.every)
            for target in range(step, last + 1, step):
                self._world_at(replay, target, None, step, pause)  # the lock for `step` ticks
                time.sleep(0.005)  # a request waiting for the lock gets it between two slices
        except ReplayError:
            pass  # the request that needs that tick reports it
        finally:
            self._warming = None

    def _from_replay(
        self, replay: Replay, tick: int, after: int, rows: list, skipped: list[dict]
    ) -> Any:
        """The world of the latest usable W chunk in after+1..tick, or None."""
        for ref in reversed(replay.world_snapshots(until=tick)):
            if ref.t0 <= after:
                return None  # a kept snapshot is as close, and cheaper
            known = self._skipped.get((replay.path, ref.offset))
            try:
                if known is not None:
                    raise known
                return self._proven(replay, ref.t0, replay.world_snapshot(ref), rows)
            except ReplayError as exc:
                self._skipped[(replay.path, ref.offset)] = exc
                skipped.append({"tick": ref.t0, "code": exc.code, "message": exc.message})
        return None

    def _proven(self, replay: Replay, tick: int, blob: bytes, rows: list) -> Any:
        """The restored world, once it is the one the replay describes at `tick`."""
        try:
            world = World.restore(blob, self._content)
        except SnapshotError as exc:  # nothing in it was run: it is plain data
            raise ReplayError(exc.code, f"the world snapshot at tick {tick}: {exc.message}") from None
        if world.tick != tick or world.seed != replay.header.seed:
            raise ReplayError(
                codes.BAD_SNAPSHOT,
                f"the chunk at tick {tick} holds a world at tick {world.tick}, seed {world.seed}",
            )
        recorded = self._hashes_of(replay).get(tick)
        if recorded is None:
            raise ReplayError(codes.BAD_SNAPSHOT, f"no recorded state hash confirms tick {tick}")
        if world.state_hash() != recorded:
            raise ReplayError(
                codes.BAD_SNAPSHOT,
                f"the world snapshot at tick {tick} differs from the recorded hash"
            )
        # A recording begun mid-run logs from an absolute row on (ReplayHeader.start).
        logged = int(replay.header.start.get("log_row", 0))
        logged += bisect.bisect_left([row[0] for row in rows], tick)
        if world.input_log_end != logged:
            # The next inputs would not line up (a join counted twice, a lost row, ...).
            raise ReplayError(
                codes.BAD_SNAPSHOT,
                f"the world snapshot at tick {tick} has applied {world.input_log_end} inputs, "
                f"the replay logs {logged} before that tick",
            )
        return world

    def _hashes_of(self, replay: Replay) -> dict[int, str]:
        if replay.path not in self._hashes:
            self._hashes[replay.path] = replay.hashes()
        return self._hashes[replay.path]

    def _inputs_of(self, replay: Replay) -> tuple[list, dict[int, list]]:
        """The input log as rows (tick, char, action) and as (char, action) per tick."""
        if replay.path not in self._inputs:
            rows = [(int(t), char, action) for t, char, action in replay.inputs()]
            self._inputs[replay.path] = (rows, inputs_by_tick(rows))
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
            self._hashes.pop(path, None)
            self._warmed.discard(path)
            for key in [k for k in self._skipped if k[0] == path]:
                del self._skipped[key]


def _complete_log(world: Any, rows: list) -> None:
    """Put back the input-log rows a recorded snapshot left out (they are in the replay), so the
    world is the one a re-simulation from the seed gives, log included (a fork keeps it)."""
    base = world.input_log_base
    if base > 0:
        world.input_log = list(rows[:base]) + world.input_log
        world.input_log_base = 0


def point_of_view(world: Any, char: int) -> dict[str, Any]:
    """What `char` knew at this tick: its observation with full memory (fog, remembered tiles and
    creatures), read without consuming its events. memory.ticks is left out (size)."""
    obs = world.observe(char, full_memory=True, consume=False)
    if isinstance(obs.get("memory"), dict):
        obs["memory"] = {k: v for k, v in obs["memory"].items() if k != "ticks"}
    return obs
