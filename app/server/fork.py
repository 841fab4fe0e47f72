"""Fork on the live server: a replay's world (asiworld.replay.fork) replaces the live one in the
server's pipeline, and play goes on from there. On the runner thread, between two ticks:

* the pipeline plays the forked world (`Pipeline.replace_world`): a new frame baseline, the
  program host moved to it (the old world's programs end with it), and every driver and observer
  kept in the same order — the live rooms send every spectator a keyframe and drop the old
  world's browser seats, the agent API drops the old world's agent seats and tokens (their
  character ids now name other characters);
* the fork's characters whose label is a built-in configuration get a new agent of it, by the
  built-in agents' one seeding rule (an agent's private memory is not in a replay: it starts
  over from what its character observes); they hand programs to the same program host as
  before the fork;
* a saving server's store starts its history again from the fork, and /evaluation assesses the
  fork's characters from the replay's events up to the fork;
* `take_over`, when given, gets a browser seat (its token is returned) instead of an agent.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from asiworld.engine import codes
from asiworld.replay.format import ReplayError
from asiworld.server import assessment, services
from asiworld.server.extensions import STORE


def install(app: Any, forked: Any, take_over: int | None, name: str = "",
            history: Iterable[dict[str, Any]] = ()) -> dict[str, Any]:
    """Make `forked` the server's running world; seat a browser player on `take_over`.
    `history` is the events that led to it (the replay's, up to the fork): /evaluation assesses
    the fork's characters from them on."""
    svc = services(app)
    runner, live = svc.runner, svc.live
    if take_over is not None and take_over not in {c.id for c in forked.characters()}:
        raise ReplayError(codes.UNKNOWN_CHARACTER,
                          f"there is no character {take_over} at that tick")

    def swap() -> dict[str, Any]:
        runner.replace_world(forked)
        assessment.restart(app, forked, history)
        builtin = svc.builtin.seat_world(runner.pipeline, skip=take_over)
        store = app.extensions.get(STORE)
        if store is not None:  # the saved history starts again from the fork
            store.rebase(forked, builtin)
        seat = None
        if take_over is not None:
            seat = live.seat_on(take_over, name or forked.entities[take_over].name)
        return {
            "tick": forked.tick,
            "char": take_over,
            "token": seat.token if seat else None,
            "name": seat.name if seat else None,
        }

    return runner.call(swap, timeout=30)
