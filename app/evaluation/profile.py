"""A configuration's behaviour profile, from its events alone: its time in each phase
(asiworld.evaluation.phases, the replay viewer's), what its dungeon clears cost, its knockdowns
and what preceded each, and the actions the world refused it, by code.

Fed one event at a time like the measures; `to_dict` is results.json's `profile` of a
configuration (docs/evaluation.md, "Behaviour").
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass
from typing import Any

from asiworld.engine import codes
from asiworld.evaluation.measures import LEVELS, Expedition
from asiworld.evaluation.phases import PHASES, PhaseTrack

Event = dict[str, Any]

# What "preceded" a knockdown: the damage taken in the simulation minute before it.
BEFORE_DOWN = 60
READ = {"refused", "damaged", "dungeon_entered", "dungeon_left", "down"}
# The world's refusal codes (engine/codes.py, the codes of the `action` surface): one long-format
# measure each, so every run has the same rows; any other code counts as `other`.
REFUSAL_CODES = tuple(c for c, entry in codes.TABLE.items() if codes.ACTION in entry.where)


class Daylight:
    """The world's time of day as its `day` events tell it (day, dusk, night, dawn); None until
    the first one. One per assessed world, shared by its characters' profiles."""

    def __init__(self) -> None:
        self.phase: str | None = None

    def feed(self, ev: Event) -> None:
        if ev.get("kind") == "day":
            self.phase = ev.get("phase")


@dataclass
class Hit:
    tick: int
    source: str
    amount: int
    health: int | None


class Profile:
    """One character's behaviour profile (see the module docstring)."""

    def __init__(self, daylight: Daylight | None = None) -> None:
        self.phases = PhaseTrack()
        self.daylight = daylight or Daylight()
        self.refusals: Counter[str] = Counter()
        self.knockdowns: list[dict[str, Any]] = []
        self._hits: deque[Hit] = deque()
        self._tier: int | None = None

    def feed(self, ev: Event) -> None:
        self.phases.feed(ev)
        kind = ev.get("kind")
        if kind not in READ:
            return
        tick = int(ev.get("tick", 0))
        if kind == "refused":
            self.refusals[str(ev.get("code"))] += 1
        elif kind == "damaged" and "entity" not in ev:  # with `entity`, it hit a creature
            health = ev.get("health")
            self._hits.append(Hit(tick, str(ev.get("source")), int(ev.get("amount", 0)),
                                  None if health is None else int(health)))
            while self._hits[0].tick < tick - BEFORE_DOWN:  # only the last minute's matter
                self._hits.popleft()
        elif kind == "dungeon_entered":
            self._tier = ev.get("tier")
        elif kind == "dungeon_left":
            self._tier = None
        elif kind == "down":
            self.knockdowns.append(self._knockdown(ev, tick))

    def _knockdown(self, ev: Event, tick: int) -> dict[str, Any]:
        recent = [h for h in self._hits if tick - BEFORE_DOWN <= h.tick <= tick]
        before: Counter[str] = Counter()
        for hit in recent:
            before[hit.source] += hit.amount
        last = recent[-1] if recent else None
        if not ev.get("in_dungeon"):
            where = "surface"
        else:
            where = "dungeon" if self._tier is None else f"tier {self._tier}"
        return {
            "tick": tick,
            "cause": ev.get("cause"),
            "where": where,
            "daytime": self.daylight.phase,
            "last_damage": None if last is None else {
                "tick": last.tick, "source": last.source, "amount": last.amount,
                "health": last.health},
            "damage_before": dict(sorted(before.items())),
        }  # fmt: skip

    def to_dict(self, entered: int | None, now: int,
                expeditions: dict[Any, Expedition]) -> dict[str, Any]:
        """The profile from `entered` (the character's first tick) to `now`."""
        if entered is None or now < entered:
            ticks = dict.fromkeys(PHASES, 0)
        else:
            ticks = self.phases.totals(entered, now)
        window = sum(ticks.values())
        return {
            "window": [entered, now],
            "phase_ticks": ticks,
            "phases": {p: (n / window if window else None) for p, n in ticks.items()},
            "clears": clear_costs(expeditions),
            "knockdowns": list(self.knockdowns),
            "refusals": dict(sorted(self.refusals.items())),
        }


def clear_costs(expeditions: dict[Any, Expedition]) -> dict[str, dict[str, Any]]:
    """Per difficulty level and over all ("all"): clears, and the damage taken and supplies
    eaten per clear (means; None without a clear)."""
    out = {}
    for key in ("all", *(str(lv) for lv in LEVELS)):
        clears = [e for e in expeditions.values() if e.boss and (key == "all" or e.tier == int(key))]
        n = len(clears)
        out[key] = {
            "clears": n,
            "damage": sum(e.damage for e in clears) / n if n else None,
            "supplies": sum(e.supplies for e in clears) / n if n else None,
        }
    return out


def refusal_measure(profile: dict[str, Any], code: str) -> int:
    """`refusals.<code>` of the long format: the count, `other` for codes not listed."""
    counts = profile["refusals"]
    if code == "other":
        return sum(n for c, n in counts.items() if c not in REFUSAL_CODES)
    return counts.get(code, 0)
