"""The recorder: consumes the frame/event stream of a run and appends chunks as it goes.

Memory stays bounded: at most one segment (``frames_per_chunk`` ticks) of frames, inputs, events
and hashes is buffered, plus the applied state needed to write keyframes and the small index.
Each segment is flushed to the OS when it closes, so a crash loses at most the open segment.

A frame is packed (compact.py) and written as JSON when it is recorded, while the dicts the frame
builder has just made are still in the processor's cache: the same work done on the whole
segment when it closed took twice as long (issue 35). The segment keeps the JSON bytes, and its
frame chunk is their array, compressed.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from asiworld.engine import codes

from . import format as fmt
from .apply import apply_frame, keyframe_frame
from .compact import EntityPacker
from .format import ChunkRef, ReplayError
from .header import ReplayHeader


class Recorder:
    """Writes one replay file.

    ``record(frame, inputs, events, hash)`` once per tick, in tick order:

    * ``frame``: as made by the engine's FrameBuilder; the first one must carry a keyframe.
    * ``inputs``: input-log entries ``(tick, char, action)`` accepted since the last call
      (``world.input_log`` entries; joins have ``char`` None and ``action["type"] == "join"``).
    * ``events``: the evaluation events of this tick; defaults to ``frame["events"]``.
    * ``hash``: ``world.state_hash()`` taken right after the step that reached this tick, before
      any input of this tick is applied; pass it when ``wants_hash(tick)`` says so.
    * ``snapshot``: the world at that same moment (``asiworld.replay.snapshots.world_blob``), when
      ``wants_snapshot(tick)`` says so; it goes into a W chunk next to the tick's hash.

    A keyframe is written every ``keyframe_every`` ticks; when the frame at that point is a
    delta frame the recorder builds the keyframe from its own applied state.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        header: ReplayHeader,
        *,
        keyframe_every: int = 600,
        frames_per_chunk: int = 60,
        hash_every: int = 60,
        snapshot_every: int = 0,
        fsync: bool = False,
    ) -> None:
        if keyframe_every < 1 or frames_per_chunk < 1 or hash_every < 1:
            raise ReplayError(codes.BAD_ARGUMENT, "chunk and keyframe intervals must be at least 1")
        if snapshot_every < 0 or snapshot_every % hash_every:
            # A snapshot is trusted only when its tick's recorded hash confirms it.
            raise ReplayError(
                codes.BAD_ARGUMENT, "snapshot_every must be 0 or a multiple of hash_every"
            )
        self.path = Path(path)
        self.header = header
        header.keyframe_every = keyframe_every
        header.frames_per_chunk = frames_per_chunk
        header.hash_every = hash_every
        header.snapshot_every = snapshot_every
        self.keyframe_every = keyframe_every
        self.frames_per_chunk = frames_per_chunk
        self.hash_every = hash_every
        self.snapshot_every = snapshot_every
        self.fsync = fsync
        self.index: list[ChunkRef] = []
        self.counts = {
            "frames": 0,
            "inputs": 0,
            "events": 0,
            "hashes": 0,
            "keyframes": 0,
            "snapshots": 0,
            "turns": 0,
        }
        self.first_tick: int | None = None
        self.last_tick: int | None = None
        self._state: dict | None = None
        self._last_keyframe: int | None = None
        self._segment: int | None = None
        self._packer = EntityPacker()  # one per segment: each chunk decodes on its own
        self._frames: list[bytes] = []  # the open segment's frames, packed, as JSON
        self._frames_from: int | None = None  # the open segment's first frame tick
        self._inputs: list[list] = []
        self._events: list[list] = []
        self._hashes: list[list] = []
        self._snapshots: list[tuple[int, bytes]] = []
        self._file = open(self.path, "wb")  # noqa: SIM115 - closed by close()
        self._offset = 0
        self._write(fmt.pack_preamble())
        self._append(fmt.HEADER, 0, 0, header.to_dict())
        self._sync()

    # -- the stream ---------------------------------------------------------------------------

    def wants_hash(self, tick: int) -> bool:
        # Tick 0 has no step before it (joins happen there), so its hash has no fixed moment.
        return tick > 0 and tick % self.hash_every == 0

    def wants_snapshot(self, tick: int) -> bool:
        return self.snapshot_every > 0 and tick > 0 and tick % self.snapshot_every == 0

    def record(
        self,
        frame: dict,
        inputs: Iterable[Any] = (),
        events: list[dict] | None = None,
        hash: str | None = None,  # noqa: A002 - the contract's word
        snapshot: bytes | None = None,
    ) -> None:
        if self._file is None:
            raise ReplayError(codes.RECORDER_CLOSED, "the replay was already closed")
        tick = int(frame["tick"])
        if self.last_tick is not None and tick <= self.last_tick:
            raise ReplayError(
                codes.TICK_OUT_OF_ORDER, f"frame tick {tick} does not follow tick {self.last_tick}"
            )
        if self._state is None and frame.get("keyframe") is None:
            raise ReplayError(codes.NO_KEYFRAME, "the first recorded frame must carry a keyframe")
        segment = tick // self.frames_per_chunk
        if self._segment is not None and segment != self._segment:
            self._flush_segment()
        self._segment = segment
        if self.first_tick is None:
            self.first_tick = tick
        self.last_tick = tick

        events = list(frame.get("events") or []) if events is None else list(events)
        self._state = apply_frame(self._state, frame)
        stored = dict(frame)
        if list(stored.get("events") or []) == events:
            # Stored once, in the event chunk; the reader puts them back into the frame.
            stored.pop("events", None)
        if not self._frames:
            self._frames_from = tick
        self._frames.append(fmt.encode_json(self._packer.pack(stored)))
        if events:
            self._events.append([tick, events])
            self.counts["events"] += len(events)
        for entry in inputs:
            row = list(entry)
            if len(row) == 2:  # (char, action) pairs belong to the tick before this frame
                row = [tick - 1, *row]
            self._inputs.append(row)
            self.counts["inputs"] += 1
        if hash is not None:
            self._hashes.append([tick, hash])
        if snapshot is not None:
            self._snapshots.append((tick, snapshot))
        self.counts["frames"] += 1

        due = self._last_keyframe is None or tick >= self._last_keyframe + self.keyframe_every
        if due:
            kf = frame if frame.get("keyframe") is not None else keyframe_frame(self._state)
            kf = {**kf, "events": []}
            self._append(fmt.KEYFRAME, tick, tick, {"frame": kf})
            self._last_keyframe = tick
            self.counts["keyframes"] += 1

    def add_turns(self, t0: int, t1: int, body: dict) -> None:
        """A T chunk: one configuration's model turns (app/replay/turns.py), before the index."""
        if self._file is None:
            raise ReplayError(codes.RECORDER_CLOSED, "the replay was already closed")
        self._flush_segment()
        self._append(fmt.TURNS, t0, t1, body)
        self.counts["turns"] += len(body.get("turns", []))
        self._sync()

    def close(self) -> None:
        """Flush the open segment, append the index and its footer, close the file."""
        if self._file is None:
            return
        self._flush_segment()
        summary = {
            "first_tick": self.first_tick,
            "last_tick": self.last_tick,
            "counts": dict(self.counts),
        }
        refs = [r.to_list() for r in self.index]
        offset = self._offset
        self._append(fmt.INDEX, 0, self.last_tick or 0, {"chunks": refs, "summary": summary})
        self._write(fmt.pack_footer(offset))
        self._sync()
        self._file.close()
        self._file = None

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- chunks -------------------------------------------------------------------------------

    def _flush_segment(self) -> None:
        if not self._frames:
            return
        t0, t1 = self._frames_from, self.last_tick
        if self._inputs:
            ticks = [row[0] for row in self._inputs]
            self._append(fmt.INPUTS, min(ticks), max(ticks), {"inputs": self._inputs})
        if self._events:
            self._append(fmt.EVENTS, t0, t1, {"ticks": self._events})
        if self._hashes:
            self._append(
                fmt.HASHES, self._hashes[0][0], self._hashes[-1][0], {"hashes": self._hashes}
            )
            self.counts["hashes"] += len(self._hashes)
        for tick, blob in self._snapshots:
            # Already compressed (zlib of the engine's snapshot schema, not JSON): stored as given.
            self._append_raw(fmt.WORLD, tick, tick, blob)
            self.counts["snapshots"] += 1
        # The frame chunk goes last: once it is complete, so is everything else of its segment
        # (a reader takes a frame's events from the event chunk).
        # {"frames": [...]}, written as encode_json writes the whole
        frames = b'{"frames":[' + b",".join(self._frames) + b"]}"
        self._append_raw(fmt.FRAMES, t0, t1, zlib.compress(frames, fmt.CHUNK_LEVEL))
        self._packer = EntityPacker()
        self._frames, self._inputs, self._events, self._hashes = [], [], [], []
        self._snapshots = []
        self._sync()

    def _append(self, kind: str, t0: int, t1: int, obj: Any) -> None:
        self._append_raw(kind, t0, t1, fmt.encode_payload(obj))

    def _append_raw(self, kind: str, t0: int, t1: int, payload: bytes) -> None:
        data = fmt.pack_chunk(kind, t0, t1, payload)
        if kind not in (fmt.HEADER, fmt.INDEX):
            self.index.append(ChunkRef(kind, t0, t1, self._offset, len(data)))
        self._write(data)

    def _write(self, data: bytes) -> None:
        self._file.write(data)
        self._offset += len(data)

    def _sync(self) -> None:
        self._file.flush()
        if self.fsync:
            os.fsync(self._file.fileno())
