"""Reading a replay: header, index, seeking, and lazy access to chunks.

``Replay.open(path)`` reads the preamble, the header and the index (from the trailing index
chunk, or by scanning the chunks when the file was cut off). Everything else is read on demand,
a chunk at a time, with a small cache of decoded chunks so scrubbing back and forth stays cheap.
"""

from __future__ import annotations

import bisect
import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from asiworld.engine import codes

from . import format as fmt
from .apply import State, apply_frame, copy_state, keyframe_frame
from .compact import unpack_frames
from .format import ChunkRef, ReplayError
from .header import ReplayHeader
from .snapshots import check_blob


class Replay:
    def __init__(self, path: Path, file: Any, size: int) -> None:
        self.path = path
        self.size_bytes = size
        self._file = file
        self._lock = threading.RLock()  # one file position and one cache, shared by threads
        self._cache: OrderedDict[int, Any] = OrderedDict()
        self.schema = 0
        self.header: ReplayHeader
        self.index: list[ChunkRef] = []
        self.complete = False  # True when the file ended with its index (a clean close)
        self.summary: dict[str, Any] = {}

    # -- opening ------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | os.PathLike) -> Replay:
        path = Path(path)
        try:
            file = open(path, "rb")  # noqa: SIM115 - closed by close()
        except FileNotFoundError:
            raise ReplayError(codes.NOT_FOUND, f"no replay file at {path}") from None
        size = os.fstat(file.fileno()).st_size
        replay = cls(path, file, size)
        try:
            replay._load()
        except BaseException:
            file.close()
            raise
        return replay

    def _load(self) -> None:
        f = self._file
        self.schema = fmt.check_preamble(f.read(fmt.PREAMBLE.size))
        first = fmt.read_chunk_at(f, fmt.PREAMBLE.size, self.size_bytes)
        if first is None or first[0].kind != fmt.HEADER:
            raise ReplayError(codes.NO_HEADER, "the file ends before its header chunk")
        self.header = ReplayHeader.from_dict(fmt.decode_payload(first[1], fmt.HEADER_LIMIT))
        self._header_end = first[0].offset + first[0].size
        if not self._load_index():
            self._scan()
        self.index.sort(key=lambda r: (r.t0, r.offset))
        self._keyframes = [r for r in self.index if r.kind == fmt.KEYFRAME]
        self._keyframe_ticks = [r.t0 for r in self._keyframes]
        self._frame_chunks = [r for r in self.index if r.kind == fmt.FRAMES]
        self._frame_starts = [r.t0 for r in self._frame_chunks]
        self._worlds = [r for r in self.index if r.kind == fmt.WORLD]

    def _load_index(self) -> bool:
        """Use the trailing index; False when it is missing or damaged (then we scan)."""
        if self.size_bytes < self._header_end + fmt.FOOTER.size:
            return False
        self._file.seek(self.size_bytes - fmt.FOOTER.size)
        magic, offset = fmt.FOOTER.unpack(self._file.read(fmt.FOOTER.size))
        if magic != fmt.FOOTER_MAGIC or offset >= self.size_bytes:
            return False
        try:
            found = fmt.read_chunk_at(self._file, offset, self.size_bytes - fmt.FOOTER.size)
        except ReplayError:
            return False
        if found is None or found[0].kind != fmt.INDEX:
            return False
        try:
            body = fmt.decode_payload(found[1], fmt.HEADER_LIMIT)
            if not isinstance(body, dict) or not isinstance(body.get("chunks"), list):
                raise ReplayError(codes.CORRUPT_INDEX, "the index is not {chunks: [...]}")
            index = [ChunkRef.from_list(row) for row in body["chunks"]]
        except ReplayError:
            return False  # a damaged index: the chunks are walked instead
        if any(ref.offset < self._header_end or ref.offset + ref.size > offset
               for ref in index):
            return False  # rows pointing outside the chunks: not this file's index
        summary = body.get("summary", {})
        self.index = index
        self.summary = summary if isinstance(summary, dict) else {}
        self.complete = True
        return True

    def _scan(self) -> None:
        """Rebuild the index by walking the chunks, stopping at the first incomplete one."""
        offset = self._header_end
        while True:
            try:
                found = fmt.read_chunk_at(self._file, offset, self.size_bytes)
            except ReplayError:
                if self._kind_at(offset) == fmt.INDEX:
                    break  # a damaged index is what we are rebuilding
                raise
            if found is None:
                break
            ref, _ = found
            if ref.kind == fmt.INDEX:
                break
            self.index.append(ref)
            offset += ref.size
        self.complete = False

    def _kind_at(self, offset: int) -> str:
        self._file.seek(offset + len(fmt.CHUNK_MAGIC))
        return self._file.read(1).decode("ascii", errors="replace")

    def close(self) -> None:
        self._file.close()

    @property
    def closed(self) -> bool:
        return self._file.closed

    def __enter__(self) -> Replay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- chunks -------------------------------------------------------------------------------

    def chunk_bytes(self, ref: ChunkRef) -> bytes:
        """The chunk exactly as stored (header + compressed payload), e.g. to serve over HTTP."""
        with self._lock:
            self._file.seek(ref.offset)
            data = self._file.read(ref.size)
        if len(data) != ref.size:
            raise ReplayError(codes.CORRUPT_CHUNK, f"the chunk at byte {ref.offset} is cut short")
        return data

    def chunk_payload(self, ref: ChunkRef) -> bytes:
        """The chunk's zlib-compressed JSON after its CRC was checked (inflate in the browser)."""
        with self._lock:
            found = fmt.read_chunk_at(self._file, ref.offset, self.size_bytes)
        if found is None:
            raise ReplayError(codes.CORRUPT_CHUNK, f"the chunk at byte {ref.offset} is cut short")
        return found[1]

    def read_chunk(self, ref: ChunkRef) -> Any:
        """The decoded body of one chunk (cached: scrubbing revisits the same chunks).

        Shared with later callers: read it, do not change it."""
        with self._lock:
            cached = self._cache.get(ref.offset)
            if cached is not None:
                self._cache.move_to_end(ref.offset)
                return cached
            body = fmt.decode_payload(self.chunk_payload(ref))
            if not isinstance(body, dict):  # valid JSON, but not a chunk's shape
                raise ReplayError(codes.CORRUPT_CHUNK,
                                  f"the chunk at byte {ref.offset} is not a map")
            if ref.kind == fmt.FRAMES:
                if not isinstance(body.get("frames"), list):
                    raise ReplayError(
                        codes.CORRUPT_CHUNK, f"the chunk at byte {ref.offset} holds no frames"
                    )
                body["frames"] = unpack_frames(body["frames"])
            self._cache[ref.offset] = body
            if len(self._cache) > 64:
                self._cache.popitem(last=False)
            return body

    def chunks_for(
        self, start: int, end: int, kinds: str = fmt.KEYFRAME + fmt.FRAMES + fmt.EVENTS
    ) -> list[ChunkRef]:
        """The chunks a viewer needs to show ticks start..end: the keyframe at or before `start`,
        then the frame and event chunks overlapping the range (in file order)."""
        refs: list[ChunkRef] = []
        if fmt.KEYFRAME in kinds:
            kf = self._keyframe_before(start)
            if kf is not None:
                refs.append(kf)
                start = min(start, kf.t0)
        refs += [
            r
            for r in self.index
            if r.kind in kinds and r.kind != fmt.KEYFRAME and r.overlaps(start, end)
        ]
        return refs

    # -- ticks --------------------------------------------------------------------------------

    @property
    def first_tick(self) -> int | None:
        return self._frame_chunks[0].t0 if self._frame_chunks else None

    @property
    def last_tick(self) -> int | None:
        return self._frame_chunks[-1].t1 if self._frame_chunks else None

    def _keyframe_before(self, tick: int) -> ChunkRef | None:
        i = bisect.bisect_right(self._keyframe_ticks, tick) - 1
        return self._keyframes[i] if i >= 0 else None

    def _events_by_tick(self, start: int, end: int) -> dict[int, list]:
        out: dict[int, list] = {}
        for ref in self.index:
            if ref.kind == fmt.EVENTS and ref.overlaps(start, end):
                for tick, events in self.read_chunk(ref)["ticks"]:
                    out[tick] = events
        return out

    def frames(self, start: int | None = None, end: int | None = None) -> Iterator[dict]:
        """The recorded frames with ticks in start..end (inclusive), events put back."""
        if self.first_tick is None:
            return
        start = self.first_tick if start is None else start
        end = self.last_tick if end is None else end
        i = max(0, bisect.bisect_right(self._frame_starts, start) - 1)
        for ref in self._frame_chunks[i:]:
            if ref.t0 > end:
                break
            if ref.t1 < start:
                continue
            events = self._events_by_tick(ref.t0, ref.t1)
            for frame in self.read_chunk(ref)["frames"]:
                if start <= frame["tick"] <= end:
                    if "events" not in frame:
                        frame = {**frame, "events": events.get(frame["tick"], [])}
                    yield frame

    def state_at(self, tick: int) -> State:
        """The world as a spectator saw it at `tick`: nearest keyframe, then the frames after it."""
        if self.first_tick is None or not self.first_tick <= tick <= self.last_tick:
            raise ReplayError(
                codes.TICK_OUT_OF_RANGE,
                f"tick {tick} is outside the recorded ticks {self.first_tick}-{self.last_tick}",
            )
        kf = self._keyframe_before(tick)
        if kf is None:
            raise ReplayError(codes.NO_KEYFRAME, f"no keyframe at or before tick {tick}")
        state = apply_frame(None, self.read_chunk(kf)["frame"])
        state = copy_state(state)  # the cached chunk's keyframe must stay as stored
        for frame in self.frames(kf.t0 + 1, tick):
            state = apply_frame(state, frame)
        return state

    def frame_at(self, tick: int) -> dict:
        """A keyframe frame for `tick` (with that tick's events): a viewer can start here."""
        state = self.state_at(tick)
        events = self._events_by_tick(tick, tick).get(tick, [])
        return keyframe_frame(state, events)

    # -- logs ---------------------------------------------------------------------------------

    def _rows(self, kind: str, key: str, start: int | None, end: int | None) -> Iterator[Any]:
        lo = -(2**63) if start is None else start
        hi = 2**63 if end is None else end
        refs = sorted((r for r in self.index if r.kind == kind), key=lambda r: r.offset)
        for ref in refs:
            if ref.overlaps(lo, hi):
                for row in self.read_chunk(ref)[key]:
                    if lo <= row[0] <= hi:
                        yield row

    def inputs(self, start: int | None = None, end: int | None = None) -> Iterator[tuple]:
        """The input log ``(tick, char, action)`` in application order."""
        yield from (tuple(row) for row in self._rows(fmt.INPUTS, "inputs", start, end))

    def events(
        self, start: int | None = None, end: int | None = None, kinds: set[str] | None = None
    ) -> Iterator[dict]:
        """The evaluation events in order, optionally only some kinds."""
        for _, events in self._rows(fmt.EVENTS, "ticks", start, end):
            for event in events:
                if kinds is None or event.get("kind") in kinds:
                    yield event

    def characters(self) -> list[dict[str, Any]]:
        """Every character that joined: ``{"id", "name", "label", "tick"}`` from the join inputs
        (a headless run's label is its configuration's name); a recording begun mid-run lists
        first the characters already there (`ReplayHeader.start`)."""
        present = [dict(c) for c in self.header.start.get("characters", [])]
        return present + [
            {"id": a.get("id"), "name": a.get("name"), "label": a.get("label", ""), "tick": t}
            for t, char, a in self.inputs()
            if char is None and a.get("type") == "join"
        ]

    def start_world(self) -> tuple[int, bytes] | None:
        """For a recording begun mid-run (`ReplayHeader.start`): its first tick and the world
        snapshot there, the only place a re-simulation can begin; None for one that begins at
        the seed. ReplayError when that snapshot is missing or unreadable."""
        start = self.header.start
        if not start:
            return None
        tick = int(start["tick"])
        refs = [r for r in self._worlds if r.t0 == tick]
        if not refs:
            raise ReplayError(
                codes.NO_START_SNAPSHOT,
                f"the recording begins mid-run at tick {tick} but holds no world snapshot there",
            )
        return tick, self.world_snapshot(refs[0])

    def hashes(self) -> dict[int, str]:
        """State hashes by tick."""
        return {tick: h for tick, h in self._rows(fmt.HASHES, "hashes", None, None)}

    def turns(self) -> list[dict[str, Any]]:
        """The model turns per language-model configuration (T chunks, app/replay/turns.py):
        ``[{"config", "char", "turns": [...]}]``; empty for a replay without them."""
        refs = sorted((r for r in self.index if r.kind == fmt.TURNS), key=lambda r: r.offset)
        return [self.read_chunk(ref) for ref in refs]

    def world_snapshots(self, until: int | None = None) -> list[ChunkRef]:
        """The world snapshot chunks (kind W) at or before `until`, in tick order."""
        return [r for r in self._worlds if until is None or r.t0 <= until]

    def world_snapshot(self, ref: ChunkRef) -> bytes:
        """The world snapshot of a W chunk (the engine's plain-data schema), CRC checked and of
        this engine's schema version (`World.restore` takes it); ReplayError `corrupt_chunk`,
        `bad_snapshot`, `snapshot_version` or `snapshot_pickled` (an older replay) otherwise."""
        return check_blob(self.chunk_payload(ref))

    def integrity(self) -> list[ReplayError]:
        """Walk the whole file chunk by chunk, checking every CRC and that nothing else is there:
        after the index chunk comes exactly the footer pointing at it. A file cut off inside a
        chunk (no index) passes: it reads up to its last complete chunk. The problems found."""
        f, size = self._file, self.size_bytes
        offset = fmt.PREAMBLE.size  # the preamble was checked at open
        with self._lock:
            while offset < size:
                try:
                    found = fmt.read_chunk_at(f, offset, size)
                except ReplayError as exc:
                    return [exc]  # past a broken chunk nothing can be found
                if found is None:
                    if self.complete:  # its index says it was closed cleanly: not cut off
                        return [ReplayError(
                            codes.CORRUPT_CHUNK,
                            f"the chunk at byte {offset} runs past the end of the file",
                        )]
                    return []
                ref, _payload = found
                offset += ref.size
                if ref.kind == fmt.INDEX:
                    f.seek(offset)
                    tail = f.read()
                    if len(tail) == fmt.FOOTER.size:
                        magic, at = fmt.FOOTER.unpack(tail)
                        if magic == fmt.FOOTER_MAGIC and at == ref.offset:
                            return []
                    return [ReplayError(
                        codes.BAD_FOOTER,
                        f"the {len(tail)} bytes after the index (byte {offset}) are not the "
                        "footer pointing at it",
                    )]
        return []

    def check(self) -> list[ReplayError]:
        """Read every chunk; the problems found (empty when every CRC matches)."""
        problems = []
        for ref in self.index:
            try:
                self.chunk_payload(ref)
            except ReplayError as exc:
                problems.append(exc)
        return problems
