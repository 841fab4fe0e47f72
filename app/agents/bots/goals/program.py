"""program: the steady_clear program fights for it. On entering a fresh instance of a tier its set
hands over, the program is submitted; while it runs the character keeps out of its way, stepping
in (which stops it) only to stay alive or fed."""

from __future__ import annotations

from typing import Any

from .. import program_library
from ..character import FOODS
from .base import CARRY_ON, Answer, Goal


class Program(Goal):
    name = "program"
    purpose = "let the steady_clear program fight"
    keeps_on = False

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        if self._program_running(obs):
            step = self._while_program_runs(obs, items)
            return CARRY_ON if step is None else step
        return self._hand_over(obs)

    def _program_running(self, obs: dict[str, Any]) -> bool:
        return any(p["status"] in ("running", "waiting") for p in obs.get("programs", ()))

    def _while_program_runs(
            self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any] | None:
        """The program keeps the beat; step in (which stops it) only to stay alive or fed."""
        s = obs["self"]
        if s["health"] < 30 and items.get("healing_potion"):
            return {"type": "use", "item": "healing_potion"}
        food = next((f for f in FOODS if items.get(f)), None)
        if s["hunger"] < 25 and food:
            return {"type": "eat", "item": food}
        return None

    def _hand_over(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """In a fresh Inner Temple, hand the fight to the steady_clear program: deciding every
        few ticks, the planner cannot keep the enemies' two-tick beat; a program can, and a clear
        with little damage and no supplies is the curriculum's Steadiness stage."""
        d = self.me.dungeon
        if d is None or d.handed_over or d.cleared or self.me.entering not in self.me.p.hand_over:
            return None
        if "programs" not in obs:  # this world hosts no programs
            return None
        d.handed_over = True
        return {
            "type": "program",
            "name": "steady_clear",
            "source": program_library.source("steady_clear"),
        }
