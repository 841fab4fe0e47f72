"""busy: a gather or a craft under way is let finish."""

from __future__ import annotations

from typing import Any

from .base import CARRY_ON, Answer, Goal


class Busy(Goal):
    name = "busy"
    purpose = "finish what it started"
    keeps_on = False

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        action = obs["self"]["action"]
        if action is not None and action["type"] in ("gather", "craft"):
            return CARRY_ON
        return None
