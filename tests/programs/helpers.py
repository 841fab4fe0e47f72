from __future__ import annotations

from asiworld.programs.manager import ProgramManager


def run_ticks(manager: ProgramManager, world, ticks: int) -> list[dict]:
    events: list[dict] = []
    for _ in range(ticks):
        manager.before_step()
        step = world.step()
        manager.after_step(step)
        events.extend(step)
    return events


def run_until_done(manager: ProgramManager, world, pid: int, limit: int = 500) -> dict:
    for _ in range(limit):
        if manager.status(pid)["status"] not in ("running", "waiting"):
            break
        run_ticks(manager, world, 1)
    return manager.status(pid)
