"""random: picks a random action every decision. The floor any configuration should beat."""

from __future__ import annotations

from typing import Any

from .base import Agent
from .skills import me

_RECIPES = ("wooden_pickaxe", "wooden_sword", "floor", "torch", "cloth")


class RandomAgent(Agent):
    name = "random"
    description = "a random action at each decision"
    intent = "try something at random"

    def decide(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        s = obs["self"]
        if s["down"] or s["action"] is not None:
            return None
        if s["asleep"]:
            return {"type": "wake"}
        x, y = me(obs)
        roll = self.rng.random()
        if roll < 0.4:
            return {"type": "move", "dir": self.rng.choice("nsew")}
        if roll < 0.7:
            return {"type": "gather", "x": x + self.rng.randint(-1, 1), "y": y + self.rng.randint(-1, 1)}
        if roll < 0.8 and s["inventory"]:
            return {"type": "eat", "item": self.rng.choice(s["inventory"])["item"]}
        if roll < 0.9:
            return {"type": "craft", "recipe": self.rng.choice(_RECIPES)}
        if obs["entities"]:
            return {"type": "attack", "target": self.rng.choice(obs["entities"])["id"]}
        return {"type": "wait", "ticks": self.rng.randint(1, 10)}
