"""Re-simulating a replay from its input log and comparing state hashes.

A recorded hash for tick t is the world's ``state_hash()`` right after the step that reached t,
before any input logged at tick t is applied (see Recorder). Re-simulation follows the
engine's contract: a fresh ``World.create(seed, content, size)``; for each tick T the log's joins
become ``add_character`` calls and its actions go, in log order, to ``step(inputs)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .reader import Replay


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

    def __call__(self, world: Any, events: list | None = None) -> None:
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
                    code="hash_mismatch",
                    message=f"state hash differs at tick {world.tick}: recorded {expected}, "
                    f"re-simulated {got}",
                )
            )


def resimulate(
    make_world: Callable[[int, int], Any],
    seed: int,
    size: int,
    log: Iterable[tuple[int, int | None, dict]],
    until: int,
    on_tick: Callable[[Any, list], None],
) -> Any:
    """The contract's re-simulation with any world (the tests' stand-in has no resim module):
    joins logged at tick T become ``add_character`` before T's step, actions go to ``step``."""
    world = make_world(seed, size)
    by_tick: dict[int, list[tuple[int | None, dict]]] = {}
    for tick, char, action in log:
        by_tick.setdefault(int(tick), []).append((char, action))
    while world.tick < until:
        inputs = []
        for char, action in by_tick.get(world.tick, ()):
            if char is None and action.get("type") == "join":
                made = world.add_character(
                    name=action.get("name", ""), label=action.get("label", "")
                )
                if "id" in action and made != action["id"]:
                    raise ValueError(
                        f"join at tick {world.tick} made character {made}, the log says {action['id']}"
                    )
            else:
                inputs.append((char, action))
        on_tick(world, world.step(inputs))
    return world


def engine_resimulator() -> Callable[..., Any]:
    """The engine's own re-simulation (imported only when verifying)."""
    from asiworld.engine import load_content
    from asiworld.engine.resim import replay_inputs

    content = load_content()

    def run(seed: int, size: int, log: list, until: int, on_tick: Callable) -> Any:
        return replay_inputs(seed, log, until, content=content, size=size, on_tick=on_tick)

    return run


def provenance_notes(header: Any) -> list[str]:
    """Why a re-simulation may differ before it starts: other content or another engine build."""
    import asiworld
    from asiworld.engine import load_content

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


def verify_replay(
    replay: Replay,
    make_world: Callable[[int, int], Any] | None = None,
    until: int | None = None,
) -> Verdict:
    """Re-simulate `replay` and compare its hashes; `make_world(seed, size)` replaces the engine."""
    hashes = replay.hashes()
    if until is not None:
        hashes = {t: h for t, h in hashes.items() if t <= until}
    hashes.pop(0, None)  # tick 0 has no step before it: no fixed moment to compare
    if not hashes:
        return Verdict(False, 0, 0, code="no_hashes", message="the replay holds no state hashes")
    last = max(hashes)
    if make_world is None:
        run = engine_resimulator()
    else:

        def run(seed: int, size: int, log: list, until: int, on_tick: Callable) -> Any:
            return resimulate(make_world, seed, size, log, until, on_tick)

    check = HashCheck(hashes)
    header = replay.header
    try:
        world = run(header.seed, header.width, list(replay.inputs()), last, check)
    except _Mismatch as mismatch:
        return mismatch.verdict
    except ValueError as exc:  # the engine refuses a log it cannot follow (e.g. a join mismatch)
        return Verdict(False, check.checked, -1, code="log_mismatch", message=str(exc))
    return Verdict(True, check.checked, world.tick)
