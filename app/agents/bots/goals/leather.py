"""leather: boars hunted for their hides, tanned into leather for the outfit and, in a set that
wears it, leather armor (given up after hunting too long: the outfit's two hides suffice)."""

from __future__ import annotations

from typing import Any

from ..rulebook import inputs
from ..skills import me, near
from .base import Answer, Goal

PREY_MEMORY = 900  # ticks a boar seen is looked for where it was
HUNT_PATIENCE = 3000  # ticks of hunting before it goes on without leather armor


class Leather(Goal):
    name = "leather"
    purpose = "hunt boars for hides and tan leather"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.hunted = 0  # ticks spent hunting for hides
        self.hunt_tick: int | None = None
        self.armor_given_up = False  # leather armor given up: its hides could not be had

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        eq = obs["self"]["equipment"]
        have = self.me.has(obs, items)
        outfit_done = self.me.outfit_done(obs, items)
        leather_need = ((0 if outfit_done else inputs("travel_outfit")["leather"])
                        + (inputs("leather_armor")["leather"]
                           if self._wants_leather_armor(have) else 0))
        if items.get("leather", 0) < leather_need:
            hides = inputs("leather")["hide"] * (leather_need - items.get("leather", 0))
            if items.get("hide", 0) >= hides:
                return self.moves.make(
                    obs, items, "workbench", "leather", {},
                    count=leather_need - items.get("leather", 0),
                )
            self._hunting(obs)
            return self._hunt(obs, "boar")
        if self._wants_leather_armor(have):
            return self.moves.make(obs, items, "workbench", "leather_armor", {})
        if "leather_armor" in items and eq["armor"] is None:
            return {"type": "equip", "item": "leather_armor"}
        return None

    def _wants_leather_armor(self, have: set) -> bool:
        return (self.me.armor() == "leather" and not self.armor_given_up
                and not {"leather_armor", "iron_armor"} & have)

    def _hunting(self, obs: dict[str, Any]) -> None:
        """Time spent hunting for hides; past HUNT_PATIENCE the leather armor's four are given
        up (nine hunters share fourteen boars): the outfit's two are enough to go on."""
        tick = obs["tick"]
        if self.hunt_tick is not None:
            self.hunted += min(tick - self.hunt_tick, 60)
        self.hunt_tick = tick
        if self.hunted > HUNT_PATIENCE:
            self.armor_given_up = True

    def _hunt(self, obs: dict[str, Any], kind: str) -> dict[str, Any]:
        x, y = me(obs)
        # One across water or behind others' walls (the world had no way to it) is left alone.
        prey = [e for e in obs["entities"] if e["kind"] == kind and (e["x"], e["y"]) not in self.me.avoid]
        if not prey:
            return self._last_seen_prey(obs) or self.moves.explore(obs)
        e = min(prey, key=lambda e: abs(e["x"] - x) + abs(e["y"] - y))
        if max(abs(e["x"] - x), abs(e["y"] - y)) <= 1:
            return {"type": "attack", "target": e["id"]}
        return self.moves.go((e["x"], e["y"]))

    def _last_seen_prey(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """No boar in sight: the nearest one seen lately, where it was (boars wander slowly, and
        nine hunters share fourteen of them). One not there on arrival is forgotten."""
        here, tick = me(obs), obs["tick"]
        seen = {i: (p, t) for i, (p, t) in self.me.prey_seen.items()
                if tick - t <= PREY_MEMORY and p not in self.me.avoid and not near(here, p, 2)}
        self.me.prey_seen = seen
        if not seen:
            return None
        spot = min((p for p, _ in seen.values()),
                   key=lambda p: (abs(p[0] - here[0]) + abs(p[1] - here[1]), p))
        return self.moves.go(spot)
