"""The built-in configurations' parameter sets, read from app/engine/content/configurations.toml:
one strategy (strategy.py) and the numbers that make a configuration what it is. A set names only
what differs from [defaults]; a value of the wrong kind is refused with the set's and the key's
name, before any character joins."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Any

from asiworld.engine import codes
from asiworld.engine.content import CONTENT_DIR

from .goals import GOALS

FILE = "configurations.toml"
WEAPONS = ("iron", "stone", "wooden")
ARMORS = ("iron", "leather", "none")
TIERS = 4  # three tiers and the Sanctum


class ParameterError(ValueError):
    """configurations.toml holds a value the strategy cannot use; `code` names the kind."""

    def __init__(self, message: str, code: str = codes.BAD_PARAMETER):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Params:
    name: str
    description: str
    weapon: str
    armor: str
    home: bool
    cook: bool
    production: bool
    max_tier: int
    potions: tuple[int, ...]
    drink_below: int
    retreat_below: int  # -1: never
    retreat_with_potions: bool
    enter_above: int
    hand_over: tuple[int, ...]
    buy_potions: bool
    hold_for_streak: bool
    spare_potions: int
    spare_torches: int
    loss_potions: int  # more potions carried into a tier for each knockdown it had in there
    goals: tuple[str, ...]  # the goals the strategy asks, in this order (goals/)

    def potions_for(self, tier: int) -> int:
        return self.potions[min(tier, TIERS) - 1]

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _check(name: str, key: str, value: Any) -> Any:
    def bad(what: str) -> ParameterError:
        return ParameterError(f"{FILE} [sets.{name}] {key} must be {what}, not {value!r}")

    if key == "description":
        if not isinstance(value, str):
            raise bad("a string")
    elif key == "weapon":
        if value not in WEAPONS:
            raise bad(" or ".join(WEAPONS))
    elif key == "armor":
        if value not in ARMORS:
            raise bad(" or ".join(ARMORS))
    elif key in ("home", "cook", "production", "retreat_with_potions", "buy_potions",
                 "hold_for_streak"):
        if type(value) is not bool:
            raise bad("true or false")
    elif key == "max_tier":
        if type(value) is not int or not 0 <= value <= TIERS:
            raise bad(f"a whole number from 0 to {TIERS}")
    elif key == "potions":
        if (not isinstance(value, list) or len(value) != TIERS
                or any(type(v) is not int or v < 0 for v in value)):
            raise bad(f"a list of {TIERS} whole numbers >= 0 (tiers 1-3 and the Sanctum)")
        return tuple(value)
    elif key == "hand_over":
        if not isinstance(value, list) or any(v not in (1, 2, 3) for v in value):
            raise bad("a list of tiers 1-3")
        return tuple(value)
    elif key == "retreat_below":
        if type(value) is not int or not -1 <= value <= 100:
            raise bad("a health from 0 to 100, or -1 (never)")
    elif key in ("drink_below", "enter_above"):
        if type(value) is not int or not 0 <= value <= 100:
            raise bad("a health from 0 to 100")
    elif key == "goals":
        return _goals(name, value)
    elif key in ("spare_potions", "spare_torches", "loss_potions"):
        if type(value) is not int or value < 0:
            raise bad("a whole number >= 0")
    else:
        raise ParameterError(f"{FILE} [sets.{name}] has unknown key {key!r}")
    return value


def _goals(name: str, value: Any) -> tuple[str, ...]:
    """The goals' order: known names, each once, at least one."""
    where = f"{FILE} [sets.{name}] goals"
    if not isinstance(value, list) or any(not isinstance(g, str) for g in value):
        raise ParameterError(f"{where} must be a list of goal names, not {value!r}", codes.BAD_GOALS)
    if not value:
        raise ParameterError(f"{where} is empty: the strategy would have nothing to ask; "
                             f"goals: {', '.join(GOALS)}", codes.NO_GOALS)
    for goal in value:
        if goal not in GOALS:
            raise ParameterError(f"{where} names unknown goal {goal!r}; goals: "
                                 f"{', '.join(GOALS)}", codes.UNKNOWN_GOAL)
    twice = next((g for i, g in enumerate(value) if g in value[:i]), None)
    if twice is not None:
        raise ParameterError(f"{where} names goal {twice!r} twice", codes.REPEATED_GOAL)
    return tuple(value)


def read_sets(folder: Path | str | None = None) -> dict[str, Params]:
    """Every named parameter set of the file, checked."""
    path = Path(folder or CONTENT_DIR) / FILE
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ParameterError(f"{FILE} is missing from {path.parent}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ParameterError(f"{FILE}: {exc}") from None
    defaults = raw.get("defaults")
    sets = raw.get("sets")
    if not isinstance(defaults, dict) or not isinstance(sets, dict) or not sets:
        raise ParameterError(f"{FILE} needs a [defaults] table and at least one [sets.NAME]")
    names = {f.name for f in fields(Params)} - {"name"}
    missing = names - set(defaults)
    if missing:
        raise ParameterError(f"{FILE} [defaults] lacks {', '.join(sorted(missing))}")
    out = {}
    for name, overrides in sets.items():
        values = {k: _check(name, k, v) for k, v in {**defaults, **overrides}.items()}
        out[name] = Params(name=name, **values)
    return out


@lru_cache(maxsize=1)
def shipped_sets() -> dict[str, Params]:
    return read_sets()


def params(name: str) -> Params:
    return shipped_sets()[name]
