"""eat: hungry, it eats the best food it carries."""

from __future__ import annotations

from typing import Any

from ..character import FOODS
from .base import Answer, Goal

HUNGRY = 55  # hunger below which it eats


class Eat(Goal):
    name = "eat"
    purpose = "eat"
    keeps_on = False

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        food = next((f for f in FOODS if items.get(f)), None)
        if obs["self"]["hunger"] < HUNGRY and food:
            return {"type": "eat", "item": food}
        return None
