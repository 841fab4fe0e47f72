"""What every agent is: something that reads its character's observation and answers with an
action (or None to let the ongoing one run). `think_ticks` models a model's latency: the world
does not wait while the agent thinks."""

from __future__ import annotations

import random
from typing import Any


class Agent:
    name = "agent"
    description = ""
    # Why it sent its last action, in a few words a spectator reads after "to" ("smelt iron
    # ingots"); "" says nothing. The driver hands it to the pipeline with the action: it reaches
    # the `action` event, never the engine.
    intent = ""

    def __init__(self, seed: int = 0, think_ticks: int = 0):
        self.rng = random.Random(seed)
        self.think_ticks = think_ticks

    def decide(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        raise NotImplementedError

    def feedback(self, result: dict[str, Any]) -> None:
        """The answer to the last submitted action (accepted or refused)."""
