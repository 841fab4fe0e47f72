"""Player names on /play are unique and never a built-in agent's.

Names are how people tell characters apart on the map, in the event log and in the evaluation,
so a player may not join as `planner-1` (or `planner`: the names the built-in agents are
given, `<configuration>-<n>`) nor under a name someone in the world already has. Compared
without case and outer spaces: `Ada` and ` ada` are the same name to a reader.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from asiworld.agents.bots.builtin import available
from asiworld.engine import codes
from asiworld.server.joining import JoinRefused


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


def reserved_for(name: str) -> str | None:
    """The built-in configuration whose agents' names look like `name`, if any."""
    match = re.fullmatch(r"(.+?)(?:[-_ ]\d+)?", _key(name))
    base = match.group(1) if match else _key(name)
    return base if base in available() else None


def check_player_name(name: str, taken: Iterable[str]) -> None:
    """Raises JoinRefused (409) when `name` is a built-in agent's or already in the world."""
    builtin = reserved_for(name)
    if builtin is not None:
        raise JoinRefused(
            codes.NAME_RESERVED,
            f"{name} is a name of the built-in {builtin} agents: choose another name",
        )
    if _key(name) in {_key(other) for other in taken}:
        raise JoinRefused(
            codes.NAME_TAKEN, f"someone in this world is already called {name}: choose another name"
        )
