"""planner: the strategy (strategy.py) with the planner's parameter set, the configuration the
README's main run and most tests use by this name."""

from __future__ import annotations

from .character import DAY_TICKS, STREAK_BY, STREAK_DAYS
from .parameters import params
from .strategy import Strategy

__all__ = ["DAY_TICKS", "STREAK_BY", "STREAK_DAYS", "Planner"]


class Planner(Strategy):
    def __init__(self, seed: int = 0, think_ticks: int = 0):
        super().__init__(seed, think_ticks, params("planner"))
