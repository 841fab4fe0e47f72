"""forage: a few berries to eat before anything else."""

from __future__ import annotations

from typing import Any

from .base import Answer, Goal


class Forage(Goal):
    name = "forage"
    purpose = "pick berries to eat"

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        if items.get("berries", 0) < 4 and obs["self"]["hunger"] < 70:
            return self.moves.fetch(obs, "b")
        return None
