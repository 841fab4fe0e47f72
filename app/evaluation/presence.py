"""A character's time in the world: when it is up, when it is knocked down.

Both "one continuous survival day" (Foothold) and "days survived" are read from this: the world
does not report either directly. A character is in the world from its `joined` event (or, on a
feed that started late, from its first event); a `down` ends the current span of being up and
its `recovered` starts a new one.
"""

from __future__ import annotations

from typing import Any

Event = dict[str, Any]


class Presence:
    """Follows one character's spans of being alive and not knocked down, fed in tick order."""

    def __init__(self) -> None:
        self.entered: int | None = None  # the tick the character was first in the world
        self.up_since: int | None = None  # start of the current span up; None while down
        self.down_ticks = 0  # ticks spent knocked down, spans already closed
        self.down_since: int | None = None

    def feed(self, ev: Event) -> None:
        tick = int(ev.get("tick", 0))
        kind = ev.get("kind")
        if self.entered is None:
            self.entered = tick
            self.up_since = tick
        if kind == "down" and self.down_since is None:
            self.down_since, self.up_since = tick, None
        elif kind == "recovered" and self.down_since is not None:
            self.down_ticks += tick - self.down_since
            self.down_since, self.up_since = None, tick

    def up_ticks(self, now: int) -> int:
        """Ticks alive and not knocked down from entering the world until `now`."""
        if self.entered is None:
            return 0
        down = self.down_ticks + (now - self.down_since if self.down_since is not None else 0)
        return max(0, now - self.entered - down)
