"""World snapshots inside a replay (chunk kind W): a point of view or a fork deep into a long run
starts from the nearest one instead of re-simulating from the seed.

The recorder stores `World.snapshot(input_log=False)` taken at the same moment as that tick's
state hash (after the step that reached it, before its inputs): the engine's plain-data snapshot
schema (app/engine/snapshot.py, read without running anything), zlib-compressed, without the
input log (the replay has it, and a log carried in every snapshot would make them grow with the
run). `check_blob` reads a chunk's head and refuses what is not a snapshot of the engine's
schema version, among them the pickled snapshots of older replays (`snapshot_pickled`): those
are never unpickled, and a reader re-simulates from the seed instead.

A snapshot is only used after it proved itself (`Snapshots.load` in app/replay/worlds.py): its
tick, its input-log position and its state hash must match what the replay recorded.
"""

from __future__ import annotations

import zlib

from asiworld.engine import World, codes, snapshot
from asiworld.engine.errors import SnapshotError

from .format import ReplayError

# zlib's fastest level: a recorder compresses a snapshot every 600 ticks, and at level 6 that
# was 4 ms of a 9-character world's (2 ms of one character's), more than any tick's other
# recording, for snapshots a fifth smaller (issue 35; docs/replays.md). Any level reads alike,
# so replays written at level 6 open as before.
SNAPSHOT_LEVEL = 1


def world_blob(world: World) -> bytes | None:
    """The world's snapshot for a replay (compressed, without its input log), or None when the
    world has submitted actions waiting for the next step (a re-simulation feeds those from the
    log, so the snapshot would apply them twice)."""
    if world.pending:
        return None
    return zlib.compress(world.snapshot(input_log=False), SNAPSHOT_LEVEL)


def check_blob(payload: bytes) -> bytes:
    """The snapshot inside a W chunk's payload, once its head says it is one of the engine's
    schema version (`World.restore` takes it); ReplayError `bad_snapshot`, `snapshot_version`
    or `snapshot_pickled` otherwise."""
    try:
        blob = zlib.decompress(payload)
    except zlib.error as exc:
        raise ReplayError(codes.BAD_SNAPSHOT,
                          f"the world snapshot cannot be read ({exc})") from None
    try:
        snapshot.check(blob)
    except SnapshotError as exc:
        raise ReplayError(exc.code, exc.message) from None
    return blob
