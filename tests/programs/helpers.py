from __future__ import annotations

from asiworld.engine import ActionResult, World
from asiworld.programs.manager import ProgramManager


def run_ticks(manager: ProgramManager, world, ticks: int) -> list[dict]:
    events: list[dict] = []
    for _ in range(ticks):
        manager.before_step()
        step = world.step()
        manager.after_step(step)
        events.extend(step)
    return events


def run_until_done(
    manager: ProgramManager, world, char: int, pid: int, limit: int = 500
) -> dict:
    for _ in range(limit):
        if manager.status(char, pid)["status"] not in ("running", "waiting"):
            break
        run_ticks(manager, world, 1)
    return manager.status(char, pid)


def watch_submits(world: World) -> list[tuple[int, dict, ActionResult]]:
    """Every (character, action, answer) the world's submit gets from now on: a test reads what a
    program sent and what the engine said, and the engine still decides."""
    seen: list[tuple[int, dict, ActionResult]] = []
    submit = world.submit

    def watched(char_id: int, action: dict) -> ActionResult:
        answer = submit(char_id, action)
        seen.append((char_id, action, answer))
        return answer

    world.submit = watched
    return seen
