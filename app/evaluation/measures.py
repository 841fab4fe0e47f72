"""The measures of one configuration (one character), counted from its events.

Fed one event at a time, like the achievements, so a live world can be measured at any tick.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from asiworld.evaluation.achievements import shipped_thresholds
from asiworld.evaluation.presence import Presence

Event = dict[str, Any]

# Action categories of docs/engine-interface.md, in the order the reports show them.
CATEGORIES = (
    "movement",
    "gathering",
    "crafting",
    "building",
    "combat",
    "consumption",
    "trade",
    "rest",
    "dungeon",
    "communication",
    "idle",
)
LEVELS = (1, 2, 3, 4)  # difficulty levels: Tiers 1-3 and 4 = the Shadow Sanctum
LEVEL_NAMES = {1: "Outer Court", 2: "Inner Temple", 3: "Royal Tomb", 4: "Shadow Sanctum"}
SANCTUM_TIER = 4


@dataclass
class Expedition:
    """One dungeon entry, followed until its exit."""

    tier: int
    start: int
    boss: bool = False
    left: bool = False
    damage: int = 0
    supplies: int = 0  # dungeon supplies eaten inside


@dataclass
class Measures:
    outfit: bool = False
    outfit_tick: int | None = None
    hero: bool = False
    hero_tick: int | None = None
    depth: int = 0
    kills: int = 0
    bosses: int = 0
    crafts: int = 0
    coins: int = 0
    downs: int = 0
    damage_taken: int = 0
    supplies_used: int = 0
    actions: dict[str, int] = field(default_factory=lambda: {c: 0 for c in CATEGORIES})
    expeditions: dict[Any, Expedition] = field(default_factory=dict)
    incidents: list[dict[str, Any]] = field(default_factory=list)
    last_tick: int = 0
    presence: Presence = field(default_factory=Presence)
    day_ticks: int = 0  # a day of the world clock; 0: the shipped content's

    # -- feeding ---------------------------------------------------------------------------

    def feed(self, ev: Event) -> None:
        self.last_tick = max(self.last_tick, int(ev.get("tick", 0)))
        self.presence.feed(ev)
        handler = getattr(self, "_on_" + str(ev.get("kind")), None)
        if handler is not None:
            handler(ev)

    def _on_task_complete(self, ev: Event) -> None:
        if ev.get("task") == "production" and not self.outfit:
            self.outfit, self.outfit_tick = True, int(ev["tick"])
        elif ev.get("task") == "exploration" and not self.hero:
            self.hero, self.hero_tick = True, int(ev["tick"])

    def _on_killed(self, ev: Event) -> None:
        if ev.get("hostile"):
            self.kills += 1

    def _on_boss_defeated(self, ev: Event) -> None:
        tier = int(ev.get("tier", 0))
        if tier == SANCTUM_TIER:
            if not self.hero:
                self.hero, self.hero_tick = True, int(ev["tick"])
        elif tier >= 1:
            self.bosses += 1
            self.depth = max(self.depth, tier)
        exp = self.expeditions.get(ev.get("expedition"))
        if exp is not None:
            exp.boss = True

    def _on_crafted(self, ev: Event) -> None:
        # The engine emits one `crafted` per finished craft (a `craft` with count N gives N
        # events); the event's `count` is the recipe's yield, so items are not crafts.
        self.crafts += 1

    def _on_coins(self, ev: Event) -> None:
        amount = int(ev.get("amount", 0))
        if amount > 0:  # spending is not earning
            self.coins += amount

    def _on_down(self, ev: Event) -> None:
        self.downs += 1

    def _on_damaged(self, ev: Event) -> None:
        if "entity" in ev:  # a creature was hurt; `char` then names the character who hit it
            return
        amount = int(ev.get("amount", 0))
        self.damage_taken += amount
        if ev.get("in_dungeon"):
            for exp in self.expeditions.values():
                if not exp.left:
                    exp.damage += amount

    def _on_ate(self, ev: Event) -> None:
        if ev.get("supply") and ev.get("in_dungeon"):
            self.supplies_used += 1
            for exp in self.expeditions.values():
                if not exp.left:
                    exp.supplies += 1

    def _on_action(self, ev: Event) -> None:
        category = str(ev.get("category") or "idle")
        self.actions[category] = self.actions.get(category, 0) + 1

    def _on_dungeon_entered(self, ev: Event) -> None:
        self.expeditions[ev.get("expedition")] = Expedition(
            tier=int(ev.get("tier", 0)), start=int(ev["tick"])
        )

    def _on_dungeon_left(self, ev: Event) -> None:
        tier = int(ev.get("tier", 0))
        if ev.get("cleared") and 1 <= tier < SANCTUM_TIER:
            self.depth = max(self.depth, tier)
        exp = self.expeditions.get(ev.get("expedition"))
        if exp is not None:
            exp.left = True
            exp.damage = int(ev.get("damage", exp.damage))  # the exit's own count is authoritative
            exp.supplies = int(ev.get("supplies", exp.supplies))
            exp.boss = exp.boss or bool(ev.get("cleared"))

    def _on_incident(self, ev: Event) -> None:
        self.incidents.append(dict(ev))

    # -- summaries ---------------------------------------------------------------------------

    def dungeon_performance(self) -> dict[str, dict[str, Any]]:
        """Per difficulty level: attempts, clears, share of attempts that defeat the boss, mean
        damage taken and supplies eaten in clears (None when there was no clear)."""
        table: dict[str, dict[str, Any]] = {}
        for level in LEVELS:
            runs = [e for e in self.expeditions.values() if e.tier == level]
            clears = [e for e in runs if e.boss]
            table[str(level)] = {
                "attempts": len(runs),
                "clears": len(clears),
                "clear_share": len(clears) / len(runs) if runs else None,
                "clear_damage": sum(e.damage for e in clears),
                "mean_damage_in_clears": (
                    sum(e.damage for e in clears) / len(clears) if clears else None
                ),
                "clear_supplies": sum(e.supplies for e in clears),
            }
        return table

    def days_survived(self, now: int | None = None) -> float:
        """Days survived: time in the world alive and not knocked down, in days of the world
        clock (30 minutes), until `now` (the latest tick seen when not given)."""
        if not self.day_ticks:
            self.day_ticks = shipped_thresholds().day_ticks
        now = self.last_tick if now is None else now
        return self.presence.up_ticks(now) / self.day_ticks

    def incident_list(self, now: int | None = None) -> list[dict[str, Any]]:
        now = self.last_tick if now is None else now
        return [with_duration(i, now) for i in self.incidents]

    def to_dict(self, now: int | None = None) -> dict[str, Any]:
        now = self.last_tick if now is None else now
        return {
            "outfit": self.outfit,
            "outfit_tick": self.outfit_tick,
            "depth": self.depth,
            "hero": self.hero,
            "hero_tick": self.hero_tick,
            "kills": self.kills,
            "bosses": self.bosses,
            "crafts": self.crafts,
            "coins": self.coins,
            "downs": self.downs,
            "days": self.days_survived(now),
            "up_ticks": self.presence.up_ticks(now),
            "damage_taken": self.damage_taken,
            "supplies_used": self.supplies_used,
        }


def with_duration(incident: Event, now: int) -> dict[str, Any]:
    """An incident with its duration in ticks; one still open lasts until `now`."""
    out = dict(incident)
    start = out.get("start", out.get("tick", 0))
    end = out.get("end")
    out["start"] = start
    out["ongoing"] = end is None
    out["duration"] = max(0, int(end if end is not None else now) - int(start or 0))
    return out
