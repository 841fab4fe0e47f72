"""Re-simulating a replay from its input log and comparing state hashes.

A recorded hash for tick t is the world's ``state_hash()`` right after the step that reached t,
before any input logged at tick t is applied (see Recorder). Re-simulation is the engine's own
(``asiworld.engine.resim``) from a fresh ``World.create(seed, content, size)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import asiworld
from asiworld.engine import World, codes, load_content
from asiworld.engine.errors import SnapshotError
from asiworld.engine.resim import ResimMismatch, replay_inputs, resimulate

from .format import ReplayError
from .header import ReplayHeader
from .reader import Replay

if TYPE_CHECKING:
    from asiworld.engine import World


@dataclass
class Verdict:
    ok: bool
    checked: int  # hashes compared
    last_tick: int  # the tick the re-simulation reached
    mismatch_tick: int | None = None
    expected: str | None = None
    got: str | None = None
    code: str = "ok"
    message: str = ""


class _Mismatch(Exception):
    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict


class HashCheck:
    """An ``on_tick(world, events)`` hook that compares each recorded hash as the tick is reached."""

    def __init__(self, hashes: dict[int, str]) -> None:
        self.hashes = hashes
        self.checked = 0

    def __call__(self, world: World, events: list | None = None) -> None:
        expected = self.hashes.get(world.tick)
        if expected is None:
            return
        self.checked += 1
        got = world.state_hash()
        if got != expected:
            raise _Mismatch(
                Verdict(
                    False,
                    self.checked,
                    world.tick,
                    world.tick,
                    expected,
                    got,
                    code=codes.HASH_MISMATCH,
                    message=f"state hash differs at tick {world.tick}: recorded {expected}, "
                    f"re-simulated {got}",
                )
            )


def provenance_notes(header: ReplayHeader) -> list[str]:
    """Why a re-simulation may differ before it starts: other content or another engine build."""
    notes = []
    current = load_content().hash
    if header.content_hash and header.content_hash != current:
        notes.append(
            f"the replay was recorded with content {header.content_hash}, this build has "
            f"{current}: changed rules or numbers make the hashes differ"
        )
    if header.engine_version != asiworld.__version__:
        notes.append(
            f"recorded by asiworld {header.engine_version}, verifying with {asiworld.__version__}"
        )
    return notes


def _start_world(replay: Replay, tick: int, blob: bytes, hashes: dict[int, str]) -> World:
    """The world a mid-run recording begins with, once its recorded hash confirms it."""
    try:
        world = World.restore(blob, load_content())
    except SnapshotError as exc:
        raise ReplayError(exc.code, f"the starting snapshot: {exc.message}") from None
    recorded = replay.hashes().get(tick)
    if world.tick != tick or recorded is None or world.state_hash() != recorded:
        raise ReplayError(
            codes.BAD_SNAPSHOT,
            f"the starting world snapshot is not the one recorded at tick {tick}"
        )
    hashes.pop(tick, None)  # confirmed here, before any input of its tick
    return world


def verify_replay(replay: Replay, until: int | None = None) -> Verdict:
    """Re-simulate `replay` with the engine and compare its hashes (up to `until`)."""
    hashes = replay.hashes()
    if until is not None:
        hashes = {t: h for t, h in hashes.items() if t <= until}
    hashes.pop(0, None)  # tick 0 has no step before it: no fixed moment to compare
    if not hashes:
        return Verdict(False, 0, 0, code=codes.NO_HASHES,
                       message="the replay holds no state hashes")
    last = max(hashes)
    check = HashCheck(hashes)
    header = replay.header
    try:
        start = replay.start_world()
        if start is None:
            world = replay_inputs(
                header.seed, replay.inputs(), last, load_content(), size=header.width,
                on_tick=check,
            )
        else:  # begun mid-run: from its first snapshot, which its own hash must confirm
            world = _start_world(replay, *start, hashes)
            check.checked += 1
            world = resimulate(world, replay.inputs(), last, on_tick=check)
    except ReplayError as exc:
        return Verdict(False, check.checked, -1, code=exc.code, message=exc.message)
    except _Mismatch as mismatch:
        return mismatch.verdict
    except ResimMismatch as exc:  # the engine refuses a log it cannot follow (a join mismatch)
        return Verdict(False, check.checked, -1, code=codes.LOG_MISMATCH, message=str(exc))
    return Verdict(True, check.checked, world.tick)
