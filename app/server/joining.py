"""Who may make a new character: the join token of a closed world and the character cap.

Characters are permanent (the engine has no removal), so a join is the one request whose
effect outlives its sender. Three bounds hold for both ways in, the agent API's
`POST /api/agents/join` and the play page's Socket.IO `join`:

* a **join token** (`JOIN_TOKEN`, `asiworld serve --join-token`, `ASIWORLD_JOIN_TOKEN`): when
  set, a join must carry it as `join_token`, else `join_closed` (403);
* a **character cap** (`MAX_CHARACTERS`, `--max-characters`, default 500): a world that holds
  that many characters (built-in agents included) refuses with `world_full` (409);
* a **join rate per client address** (validation.py's `join` bucket, keyed on the address, not
  on any header a client chooses), refused with `rate_limited` (429).

A refused join changes nothing. The cap is checked and the character added under one lock, so
concurrent joins never pass it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from asiworld.engine import codes
from asiworld.engine.errors import CodedError
from asiworld.server.auth import same
from asiworld.server.extensions import JOINS

DEFAULT_MAX_CHARACTERS = 500
T = TypeVar("T")


class JoinRefused(CodedError):
    """A join the world says no to, with the HTTP status the table gives its code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)
        self.http_status = codes.status(code)


class JoinGate:
    """The join token and the cap of one app."""

    def __init__(self, config: Any) -> None:
        self.config = config
        self._lock = threading.Lock()

    @property
    def max_characters(self) -> int:
        return int(self.config.get("MAX_CHARACTERS") or DEFAULT_MAX_CHARACTERS)

    def admit(self, given_token: Any, count: Callable[[], int], add: Callable[[], T]) -> T:
        """add() when the token fits and the world has room (count() is below the cap);
        raises JoinRefused, having changed nothing, otherwise."""
        expected = self.config.get("JOIN_TOKEN")
        if expected and not same(given_token, expected):
            raise JoinRefused(codes.JOIN_CLOSED,
                              "this world is closed: joining needs its join token")
        with self._lock:
            held = count()
            if held >= self.max_characters:
                raise JoinRefused(
                    codes.WORLD_FULL,
                    f"this world holds its most characters ({held} of {self.max_characters}): "
                    "no one more can join",
                )
            return add()


def join_gate(app: Any) -> JoinGate:
    gate = app.extensions.get(JOINS)
    if gate is None:
        gate = app.extensions[JOINS] = JoinGate(app.config)
    return gate


def character_count(runner: Any) -> int:
    return runner.call(lambda: len(runner.world.characters()))
