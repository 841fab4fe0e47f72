"""The replay file: a preamble, then self-delimiting chunks, then (when closed cleanly) an index.

Layout (all integers big-endian)::

    preamble   b"ASIREP" + u16 schema version
    chunk*     b"AC" + kind (1 ASCII byte) + flags (u8) + t0 (u64) + t1 (u64)
               + length (u32) + crc32 (u32) + payload (length bytes, zlib-compressed JSON)
    footer     b"ASIREPIX" + u64 offset of the index chunk      (only after a clean close)

Every chunk carries its own tick range and a CRC32 over its header fields and payload, so a file
cut off by a crash can be scanned chunk by chunk and read up to its last complete chunk; the
index chunk only saves that scan. Readers skip chunk kinds they do not know, so a chunk kind can
be added without a schema bump; anything that changes how known chunks read bumps the schema.
"""

from __future__ import annotations

import json
import struct
import zlib
from dataclasses import dataclass
from typing import Any, BinaryIO

import orjson
from asiworld.engine import codes
from asiworld.engine.errors import CodedError

SCHEMA_VERSION = 1
FILE_MAGIC = b"ASIREP"
PREAMBLE = struct.Struct(">6sH")
CHUNK_MAGIC = b"AC"
CHUNK_HEAD = struct.Struct(">2scBQQII")
FOOTER = struct.Struct(">8sQ")
FOOTER_MAGIC = b"ASIREPIX"
EXTENSION = ".asirep"

# Chunk kinds (one ASCII byte each).
HEADER = "H"  # the run's provenance: seed, world size, configurations, versions
KEYFRAME = "K"  # {"frame": frame carrying a full "keyframe"} for seeking
FRAMES = "F"  # {"frames": [...]} every recorded frame of a tick range
INPUTS = "I"  # {"inputs": [[tick, char, action], ...]} everything needed to re-simulate
EVENTS = "E"  # {"ticks": [[frame_tick, [event, ...]], ...]} the evaluation events
HASHES = "S"  # {"hashes": [[tick, hex], ...]} state hashes for `replay verify`
INDEX = "X"  # {"chunks": [[kind, t0, t1, offset, size], ...], "summary": {...}}
# zlib of World.snapshot(input_log=False) at t0: the engine's plain-data snapshot schema
# (app/engine/snapshot.py), not JSON; read it with asiworld.replay.snapshots.check_blob. A point
# of view or a fork starts there. Older readers skip it; older files hold pickles, never read.
WORLD = "W"
# {"config", "char", "turns": [...]}: one language-model configuration's turns, from a study's
# transcripts (app/replay/turns.py), over the ticks they span; written before the index.
TURNS = "T"
KNOWN_KINDS = frozenset(
    HEADER + KEYFRAME + FRAMES + INPUTS + EVENTS + HASHES + INDEX + WORLD + TURNS
)


class ReplayError(CodedError):
    """A replay problem with a stable snake_case code and a sentence for people."""

    says_code = True


@dataclass(frozen=True)
class ChunkRef:
    """Where one chunk lives: its kind, tick range and byte span (header included)."""

    kind: str
    t0: int
    t1: int
    offset: int
    size: int

    def to_list(self) -> list:
        return [self.kind, self.t0, self.t1, self.offset, self.size]

    @classmethod
    def from_list(cls, row: Any) -> ChunkRef:
        """A row of the index, checked: one letter and four whole numbers from 0."""
        if not (isinstance(row, list) and len(row) == 5 and isinstance(row[0], str)
                and len(row[0]) == 1 and all(type(v) is int and v >= 0 for v in row[1:])):
            raise ReplayError(codes.CORRUPT_INDEX, f"an index row is not [kind, t0, t1, offset, "
                              f"size]: {str(row)[:80]}")
        kind, t0, t1, offset, size = row
        return cls(kind, t0, t1, offset, size)

    def overlaps(self, start: int, end: int) -> bool:
        return self.t0 <= end and self.t1 >= start


_ORJSON_OPTIONS = orjson.OPT_NON_STR_KEYS


# zlib's level for a chunk: 4 compresses a run's chunks in half level 6's time for about a
# ninth more bytes (docs/replays.md, Figures); a recorder compresses every segment of a run,
# and any level reads alike.
CHUNK_LEVEL = 4


def encode_json(obj: Any) -> bytes:
    """`obj` as compact UTF-8 JSON (whole-number keys as strings): a chunk's payload before
    compression."""
    # orjson writes the bytes the json module wrote (compact, UTF-8, whole-number keys as
    # strings) in a quarter of its time; a recorder encodes every frame of a run. What it
    # cannot write (a whole number past 64 bits, a lone surrogate) goes to the json module.
    try:
        return orjson.dumps(obj, option=_ORJSON_OPTIONS)
    except TypeError:
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def encode_payload(obj: Any, level: int = CHUNK_LEVEL) -> bytes:
    return zlib.compress(encode_json(obj), level)


PAYLOAD_LIMIT = 64 * 1024 * 1024  # bytes of JSON one chunk may inflate to (a bomb stops here)
HEADER_LIMIT = 8 * 1024 * 1024  # the header and the index are small; so is their cap


def decode_payload(payload: bytes, limit: int = PAYLOAD_LIMIT) -> Any:
    """A chunk's JSON, inflated to `limit` bytes at most; ReplayError for anything else (not
    zlib, cut short, past the limit, not UTF-8, not JSON, nested too deep)."""
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(payload, limit + 1)
    except zlib.error as exc:
        raise ReplayError(codes.CORRUPT_CHUNK, f"a chunk's payload is not zlib data ({exc})") \
            from None
    if len(data) > limit or inflater.unconsumed_tail:
        raise ReplayError(codes.CORRUPT_CHUNK, f"a chunk inflates past {limit // (1024 * 1024)} "
                          "MiB: not read further")
    if not inflater.eof:
        raise ReplayError(codes.CORRUPT_CHUNK, "a chunk's payload is cut short")
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ReplayError(codes.CORRUPT_CHUNK, f"a chunk's payload is not JSON text "
                          f"({type(exc).__name__})") from None


def _crc(kind: bytes, flags: int, t0: int, t1: int, payload: bytes) -> int:
    head = struct.pack(">cBQQI", kind, flags, t0, t1, len(payload))
    return zlib.crc32(payload, zlib.crc32(head))


def pack_chunk(kind: str, t0: int, t1: int, payload: bytes) -> bytes:
    """One chunk's bytes: header plus an already-compressed payload."""
    kind_b = kind.encode("ascii")
    crc = _crc(kind_b, 0, t0, t1, payload)
    return CHUNK_HEAD.pack(CHUNK_MAGIC, kind_b, 0, t0, t1, len(payload), crc) + payload


def pack_preamble() -> bytes:
    return PREAMBLE.pack(FILE_MAGIC, SCHEMA_VERSION)


def pack_footer(index_offset: int) -> bytes:
    return FOOTER.pack(FOOTER_MAGIC, index_offset)


def check_preamble(data: bytes) -> int:
    """The schema version, or a ReplayError saying why this is not a file we can read."""
    if len(data) < PREAMBLE.size or data[:6] != FILE_MAGIC:
        raise ReplayError(codes.NOT_A_REPLAY, "the file does not start with the ASIREP signature")
    _, version = PREAMBLE.unpack(data[: PREAMBLE.size])
    if version > SCHEMA_VERSION:
        raise ReplayError(
            codes.UNSUPPORTED_SCHEMA,
            f"replay schema {version} is newer than this build reads ({SCHEMA_VERSION}); "
            "upgrade asiworld to open it",
        )
    if version < 1:
        raise ReplayError(codes.UNKNOWN_SCHEMA, f"replay schema {version} is not a known version")
    return version


def read_chunk_at(f: BinaryIO, offset: int, file_size: int) -> tuple[ChunkRef, bytes] | None:
    """The chunk starting at `offset`, or None when the file ends inside it (a cut-off write).

    Raises ReplayError("corrupt_chunk") when the chunk is all there but its CRC does not match.
    """
    if offset + CHUNK_HEAD.size > file_size:
        return None
    f.seek(offset)
    head = f.read(CHUNK_HEAD.size)
    if len(head) < CHUNK_HEAD.size:
        return None
    magic, kind_b, flags, t0, t1, length, crc = CHUNK_HEAD.unpack(head)
    if magic != CHUNK_MAGIC:
        raise ReplayError(codes.CORRUPT_CHUNK, f"no chunk signature at byte {offset}")
    end = offset + CHUNK_HEAD.size + length
    if end > file_size:
        return None
    payload = f.read(length)
    if len(payload) < length:
        return None
    if _crc(kind_b, flags, t0, t1, payload) != crc:
        raise ReplayError(
            codes.CORRUPT_CHUNK,
            f"the chunk at byte {offset} (ticks {t0}-{t1}) fails its CRC check; "
            "the file was damaged after it was written",
        )
    kind = kind_b.decode("ascii", errors="replace")
    return ChunkRef(kind, t0, t1, offset, end - offset), payload
