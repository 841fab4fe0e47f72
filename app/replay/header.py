"""The replay header: where a run came from, enough to re-simulate it and to list it."""

from __future__ import annotations

import datetime as _dt
from dataclasses import asdict, dataclass, field
from typing import Any

from asiworld import provenance
from asiworld.engine import codes

from .format import SCHEMA_VERSION, ReplayError

# The types of the fields a reader relies on (others are kept as they are, in `extra`).
INTS = ("seed", "width", "height", "horizon", "schema", "keyframe_every", "frames_per_chunk",
        "hash_every", "snapshot_every")
TEXTS = ("content_hash", "created_at", "title", "engine_version")
DICTS = ("extra", "start")


def _check(data: Any) -> None:
    if not isinstance(data, dict):
        raise ReplayError(codes.BAD_HEADER, "the replay's header is not a JSON object")
    wrong = [k for k in INTS if k in data and type(data[k]) is not int]
    wrong += [k for k in TEXTS if k in data and not isinstance(data[k], str)]
    wrong += [k for k in DICTS if k in data and not isinstance(data[k], dict)]
    if "seed" not in data:
        wrong.append("seed")
    if "git_commit" in data and data["git_commit"] is not None \
            and not isinstance(data["git_commit"], str):
        wrong.append("git_commit")
    configurations = data.get("configurations", [])
    if not isinstance(configurations, list) or not all(
            isinstance(c, dict) and isinstance(c.get("name"), str)
            and set(c) <= {"name", "characters", "description"}
            and isinstance(c.get("characters", []), list)
            and all(type(i) is int for i in c.get("characters", []))
            and isinstance(c.get("description", ""), str) for c in configurations):
        wrong.append("configurations")
    if wrong:
        raise ReplayError(codes.BAD_HEADER, "the replay's header has a wrong or missing "
                          f"{', '.join(sorted(set(wrong)))}")


@dataclass
class Configuration:
    """One configuration (a built-in or outside agent set-up) and the characters it played."""

    name: str
    characters: list[int] = field(default_factory=list)
    description: str = ""


@dataclass
class ReplayHeader:
    seed: int
    width: int = 128
    height: int = 128
    configurations: list[Configuration] = field(default_factory=list)
    horizon: int = 18_000  # ticks; 300 simulation minutes
    content_hash: str = ""
    engine_version: str = field(default_factory=provenance.version)
    # The checkout's commit when the recorder ran from one (None: an installed wheel, or a
    # file older than the field, which then reads as None too).
    git_commit: str | None = field(default_factory=provenance.git_commit)
    created_at: str = ""
    schema: int = SCHEMA_VERSION
    title: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    # Chunking choices, filled in by the recorder so a reader knows what to expect.
    keyframe_every: int = 600
    frames_per_chunk: int = 60
    hash_every: int = 60
    snapshot_every: int = 0  # ticks between world snapshots (chunk W); 0: none (older files)
    # Empty: the replay re-simulates from the seed (its input log starts at row 0). Otherwise the
    # recording began mid-run (a resumed or forked live world, whose early inputs are gone):
    # {"tick": T, "log_row": N, "characters": [{id, name, label, tick}]}: it starts from its
    # world snapshot (chunk W) at tick T, its input log holds the rows from absolute row N on,
    # and the characters listed were in the world already.
    start: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.created_at:
            now = _dt.datetime.now(_dt.UTC).replace(microsecond=0)
            self.created_at = now.isoformat().replace("+00:00", "Z")
        self.configurations = [
            c if isinstance(c, Configuration) else Configuration(**c) for c in self.configurations
        ]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReplayHeader:
        """The header a file's first chunk holds, its fields checked: a replay file is
        untrusted input (shared, downloaded, damaged), and a wrong type here once made every
        listing of the folder fail."""
        _check(data)
        known = {f for f in cls.__dataclass_fields__}
        kwargs = {k: v for k, v in data.items() if k in known}
        kwargs.setdefault("git_commit", None)  # not the reader's commit: the file never said
        header = cls(**kwargs)
        # Fields a newer writer added without a schema bump are kept, not lost.
        header.extra = {**{k: v for k, v in data.items() if k not in known}, **header.extra}
        return header

    def character_names(self) -> dict[int, str]:
        """Character id -> configuration name, for labels in reports and renderings."""
        return {cid: c.name for c in self.configurations for cid in c.characters}
