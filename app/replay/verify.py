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


def engine_world_factory() -> Callable[[int, int], Any]:
    """`(seed, size) -> World` from the real engine (imported only when verifying)."""
    from app.engine import World, load_content

    content = load_content()
    return lambda seed, size: World.create(seed=seed, content=content, size=size)


def resimulate(
    make_world: Callable[[int, int], Any],
    seed: int,
    size: int,
    log: Iterable[tuple[int, int | None, dict]],
    hashes: dict[int, str],
    until: int | None = None,
) -> Verdict:
    """Replay the log tick by tick; stop at the first hash that differs."""
    world = make_world(seed, size)
    until = max(hashes, default=0) if until is None else until
    by_tick: dict[int, list[tuple[int | None, dict]]] = {}
    for tick, char, action in log:
        by_tick.setdefault(int(tick), []).append((char, action))
    checked = 0
    while world.tick < until:
        inputs = []
        for char, action in by_tick.get(world.tick, ()):
            if char is None and action.get("type") == "join":
                got_id = world.add_character(
                    name=action.get("name", ""), label=action.get("label", "")
                )
                if "id" in action and got_id != action["id"]:
                    return Verdict(
                        False,
                        checked,
                        world.tick,
                        world.tick,
                        code="join_mismatch",
                        message=f"a join at tick {world.tick} made character {got_id}, "
                        f"the recording says {action['id']}",
                    )
            else:
                inputs.append((char, action))
        world.step(inputs)
        expected = hashes.get(world.tick)
        if expected is not None:
            checked += 1
            got = world.state_hash()
            if got != expected:
                return Verdict(
                    False,
                    checked,
                    world.tick,
                    world.tick,
                    expected,
                    got,
                    code="hash_mismatch",
                    message=f"state hash differs at tick {world.tick}: recorded {expected}, "
                    f"re-simulated {got}",
                )
    return Verdict(True, checked, world.tick)


def verify_replay(
    replay: Replay,
    make_world: Callable[[int, int], Any] | None = None,
    until: int | None = None,
) -> Verdict:
    hashes = replay.hashes()
    if not hashes:
        return Verdict(False, 0, 0, code="no_hashes", message="the replay holds no state hashes")
    if until is not None:
        hashes = {t: h for t, h in hashes.items() if t <= until}
    make_world = make_world or engine_world_factory()
    header = replay.header
    return resimulate(make_world, header.seed, header.width, replay.inputs(), hashes, until)
