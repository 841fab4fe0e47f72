"""The world clock: ticks, minutes, days, and whether it is day or night."""

from __future__ import annotations

from .content import Content


def day_ticks(content: Content) -> int:
    return content.time.day_minutes * content.time.ticks_per_minute


def night_start(content: Content) -> int:
    return content.time.night_starts_minute * content.time.ticks_per_minute


def is_night(tick: int, content: Content) -> bool:
    return tick % day_ticks(content) >= night_start(content)


def grace_nights_left(joined: int, grace: int, tick: int, content: Content) -> int:
    """Of a character's `grace` nights, those not yet over at `tick` (tonight's included):
    its first night is the one of the day it joined, even when it joined after dark."""
    length = day_ticks(content)
    return max(0, grace - (tick // length - joined // length))


def time_of(tick: int, content: Content) -> dict:
    length = day_ticks(content)
    in_day = tick % length
    night = in_day >= night_start(content)
    return {
        "tick": tick,
        "day": tick // length + 1,
        "minute": in_day // content.time.ticks_per_minute,
        "phase": "night" if night else "day",
        "ticks_to_dawn": length - in_day if night else None,
        "ticks_to_dusk": None if night else night_start(content) - in_day,
    }
