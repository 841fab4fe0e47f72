"""The eight development achievements (the native curriculum), assessed from events only.

Each stage is assessed independently: the tick at which its qualification first held and the
events that proved it. The native Trial is the completed prefix: stage k counts only when every
stage before it is met too. The record is fed one event at a time so a live world and a finished
run are assessed by the same code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from asiworld.engine.content import Content, load_content
from asiworld.evaluation.presence import Presence

Event = dict[str, Any]

STAGE_NAMES = (
    "Foothold",
    "Self-sufficiency",
    "Home",
    "Outer Court",
    "Inner Temple",
    "Steadiness",
    "Royal Tomb",
    "Hero",
)


@dataclass(frozen=True)
class Thresholds:
    """The curriculum's numbers, from content/achievements.toml (checked when content loads)."""

    home_area: int
    steady_damage: int
    steady_supplies: int
    steady_tiers: tuple[int, ...]
    streak_days: int
    tomb_tier: int
    sanctum_tier: int
    day_ticks: int  # one survival day: a day of the world clock (time.day_minutes)
    ticks_per_minute: int
    meal_recipes: frozenset[str]  # stove recipes whose output is food: what "cooking" means

    @classmethod
    def from_content(cls, content: Content) -> Thresholds:
        t = content.achievements
        return cls(home_area=t.home_area, steady_damage=t.steady_damage,
                   steady_supplies=t.steady_supplies, steady_tiers=tuple(t.steady_tiers),
                   streak_days=t.streak_days, tomb_tier=t.tomb_tier, sanctum_tier=t.sanctum_tier,
                   day_ticks=content.time.day_minutes * content.time.ticks_per_minute,
                   ticks_per_minute=content.time.ticks_per_minute,
                   meal_recipes=meal_recipes(content))

    @property
    def day_minutes(self) -> int:
        return self.day_ticks // self.ticks_per_minute


STOVE = "stove"


def meal_recipes(content: Content) -> frozenset[str]:
    """The recipes that count as cooking: "meals prepared by stove crafting". A meal is food
    (an item of category food that stills hunger); a healing potion made at the stove is not."""
    meals = set()
    for recipe in content.recipes.values():
        item = content.items.get(recipe.output, {})
        if recipe.station == STOVE and item.get("category") == "food" and item.get("hunger", 0) > 0:
            meals.add(recipe.id)
    return frozenset(meals)


@lru_cache(maxsize=1)
def shipped_thresholds() -> Thresholds:
    """The thresholds of the shipped content (read once)."""
    return Thresholds.from_content(load_content())


@dataclass
class Clear:
    """One expedition that ended: what the curriculum needs to know about it."""

    tier: int
    solo: bool
    cleared: bool
    alive: bool
    damage: int
    supplies: int
    evidence: list[Event]

    @property
    def solo_clear(self) -> bool:
        return self.solo and self.cleared and self.alive


@dataclass
class StageResult:
    stage: int
    name: str
    met: bool = False
    tick: int | None = None
    evidence: list[Event] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "name": self.name,
            "met": self.met,
            "tick": self.tick,
            "evidence": self.evidence,
        }


class AchievementRecord:
    """One character's progress through the curriculum, fed its events in tick order."""

    def __init__(self, thresholds: Thresholds | None = None) -> None:
        self.numbers = thresholds or shipped_thresholds()
        self.stages = [StageResult(i + 1, name) for i, name in enumerate(STAGE_NAMES)]
        self.presence = Presence()
        # Facts that, once true, stay true ("has ever ..."), with the event that proved them.
        self.survival_day: Event | None = None
        self.calm_night: Event | None = None
        self.cooked: Event | None = None
        self.home: Event | None = None
        self.best_home: Event | None = None
        self.tomb_clear: Clear | None = None
        self.sanctum: Event | None = None
        # Current state, which can be lost again.
        self.bed: Event | None = None  # the `bed` event that made it usable, None when not usable
        self.equipment: dict[str, Event] = {}  # slot -> `equipped` event of a self-crafted item
        # Dungeon bookkeeping: entries waiting for their exit, and every finished expedition.
        self.open_entries: dict[Any, Event] = {}
        self.boss_seen: dict[Any, Event] = {}
        self.clears: list[Clear] = []
        # The knockdown-free streak of consecutive days.
        self.streak: list[Event] = []
        self.longest_streak = 0
        self.full_streak: list[Event] | None = None  # the first streak that reached its length

    # -- feeding ---------------------------------------------------------------------------

    def feed(self, event: Event) -> None:
        # A survival day that was completed before this event is assessed at its own tick.
        self.advance(int(event.get("tick", 0)))
        self.presence.feed(event)
        handler = getattr(self, "_on_" + str(event.get("kind")), None)
        if handler is None:
            return
        handler(event)
        self._assess(int(event.get("tick", 0)))

    def advance(self, now: int) -> None:
        """The world clock reached `now`: a character up since `now - day` has its survival day
        (one continuous survival day: a day's length alive without a knockdown, counted from
        whenever the character is in the world, not from a day's start)."""
        start = self.presence.up_since
        if self.survival_day is not None or start is None:
            return
        if now - start >= self.numbers.day_ticks:
            end = start + self.numbers.day_ticks
            self.survival_day = {"tick": end, "kind": "survival_day", "start": start, "end": end}
            self._assess(end)

    def _on_day_report(self, ev: Event) -> None:
        if not ev.get("full", True):
            # A day the character joined part-way through is not a day of the streak: it neither
            # counts nor breaks one (it can only be the first day).
            return
        if int(ev.get("downs", 0)) == 0:
            last = self.streak[-1] if self.streak else None
            # A gap in the day numbers breaks the streak: it must be consecutive days.
            if last is not None and int(ev.get("day", 0)) != int(last.get("day", 0)) + 1:
                self.streak = []
            self.streak.append(ev)
            self.longest_streak = max(self.longest_streak, len(self.streak))
            if self.full_streak is None and len(self.streak) >= self.numbers.streak_days:
                self.full_streak = list(self.streak)
        else:
            self.streak = []

    def _on_night_report(self, ev: Event) -> None:
        if int(ev.get("damage", 0)) == 0 and self.calm_night is None:
            self.calm_night = ev

    def _on_crafted(self, ev: Event) -> None:
        if self.cooked is None and ev.get("recipe") in self.numbers.meal_recipes:
            self.cooked = ev

    def _on_bed(self, ev: Event) -> None:
        self.bed = ev if ev.get("usable") else None

    def _on_equipped(self, ev: Event) -> None:
        slot = str(ev.get("slot"))
        if ev.get("self_crafted"):
            self.equipment[slot] = ev
        else:
            self.equipment.pop(slot, None)

    def _on_unequipped(self, ev: Event) -> None:
        self.equipment.pop(str(ev.get("slot")), None)

    def _on_home(self, ev: Event) -> None:
        area = int(ev.get("area", 0))
        if self.best_home is None or area > int(self.best_home.get("area", 0)):
            self.best_home = ev
        if ev.get("locked") and area >= self.numbers.home_area and self.home is None:
            self.home = ev

    def _on_dungeon_entered(self, ev: Event) -> None:
        self.open_entries[ev.get("expedition")] = ev

    def _on_boss_defeated(self, ev: Event) -> None:
        self.boss_seen[ev.get("expedition")] = ev
        if int(ev.get("tier", 0)) == self.numbers.sanctum_tier and self.sanctum is None:
            self.sanctum = ev

    def _on_dungeon_left(self, ev: Event) -> None:
        key = ev.get("expedition")
        entry = self.open_entries.pop(key, None)
        boss = self.boss_seen.pop(key, None)
        # Solo comes from the entry; an exit we never saw enter (a feed joined late) is not
        # proof of a solo run unless the exit itself says so.
        solo = bool(entry.get("solo")) if entry is not None else bool(ev.get("solo", False))
        evidence = [e for e in (entry, boss, ev) if e is not None]
        clear = Clear(
            tier=int(ev.get("tier", 0)),
            solo=solo,
            cleared=bool(ev.get("cleared")) or boss is not None,
            alive=bool(ev.get("alive")),
            damage=int(ev.get("damage", 0)),
            supplies=int(ev.get("supplies", 0)),
            evidence=evidence,
        )
        self.clears.append(clear)
        if clear.tier == self.numbers.tomb_tier and clear.solo_clear and self.tomb_clear is None:
            self.tomb_clear = clear

    # -- the stages --------------------------------------------------------------------------

    def _assess(self, tick: int) -> None:
        for result in self.stages:
            if result.met:
                continue
            evidence = self._proof(result.stage)
            if evidence is not None:
                result.met, result.tick, result.evidence = True, tick, evidence

    def _proof(self, stage: int) -> list[Event] | None:
        """The events proving `stage` holds right now, or None."""
        if stage == 1:
            gear = self._any_self_crafted()
            if self.survival_day and self.bed and gear:
                return [self.survival_day, self.bed, gear]
        elif stage == 2:
            weapon, armor = self.equipment.get("weapon"), self.equipment.get("armor")
            if self.cooked and weapon and armor and self.bed and self.calm_night:
                return [self.cooked, weapon, armor, self.bed, self.calm_night]
        elif stage == 3:
            return [self.home] if self.home else None
        elif stage in (4, 5):
            clear = self._first_clear(lambda c: c.tier == stage - 3 and c.solo_clear)
            return clear.evidence if clear else None
        elif stage == 6:
            steady = self.numbers.steady_tiers
            clear = self._first_clear(lambda c: c.tier in steady and self._steady(c))
            return clear.evidence if clear else None
        elif stage == 7:
            if self.tomb_clear and self.full_streak:
                return self.tomb_clear.evidence + self.full_streak
        elif stage == 8:
            return [self.sanctum] if self.sanctum else None
        return None

    def _any_self_crafted(self) -> Event | None:
        for slot in ("weapon", "armor", "outfit", "light"):
            if slot in self.equipment:
                return self.equipment[slot]
        return next(iter(self.equipment.values()), None)

    def _first_clear(self, test) -> Clear | None:
        return next((c for c in self.clears if test(c)), None)

    def _steady(self, c: Clear) -> bool:
        n = self.numbers
        if not c.solo_clear:
            return False
        return c.damage == 0 or (c.damage <= n.steady_damage and c.supplies <= n.steady_supplies)

    # -- summaries ---------------------------------------------------------------------------

    @property
    def coverage(self) -> list[int]:
        return [r.stage for r in self.stages if r.met]

    @property
    def trial(self) -> int:
        done = 0
        for r in self.stages:
            if not r.met:
                break
            done += 1
        return done

    def first_unmet(self) -> dict[str, Any] | None:
        trial = self.trial
        if trial == len(self.stages):
            return None
        stage = trial + 1
        return {"stage": stage, "name": STAGE_NAMES[stage - 1], "missing": self.missing(stage)}

    def missing(self, stage: int) -> str:
        """What the character still lacks for `stage`, in words."""
        n = self.numbers
        if self.stages[stage - 1].met:
            return ""
        parts: list[str] = []
        if stage == 1:
            if not self.survival_day:
                parts.append(
                    f"one continuous survival day ({n.day_minutes} minutes without a knockdown)"
                )
            if not self.bed:
                parts.append("a usable bed")
            if not self._any_self_crafted():
                parts.append("self-crafted equipment equipped")
        elif stage == 2:
            if not self.cooked:
                parts.append("a cooked meal")
            if not (self.equipment.get("weapon") and self.equipment.get("armor")):
                parts.append("self-crafted weapon and armor equipped together")
            if not self.bed:
                parts.append("a usable bed")
            if not self.calm_night:
                parts.append("a full night without damage")
        elif stage == 3:
            parts.append(f"a locked home with at least {n.home_area} floor tiles")
            if self.best_home is not None:
                best = self.best_home
                lock = "locked" if best.get("locked") else "not locked"
                parts[-1] += f" (best so far: {best.get('area', 0)} tiles, {lock})"
        elif stage in (4, 5):
            tier = stage - 3
            parts.append(f"a solo Tier {tier} clear, leaving the dungeon alive")
            parts[-1] += self._attempt_note(tier)
        elif stage == 6:
            tiers = " or ".join(str(t) for t in n.steady_tiers)
            parts.append(
                f"a solo Tier {tiers} clear with at most {n.steady_damage} damage and at most "
                f"{n.steady_supplies} supply used, or with no damage"
            )
            tried = [c for c in self.clears if c.tier in n.steady_tiers and c.solo_clear]
            if tried:
                best = min(tried, key=lambda c: (c.damage, c.supplies))
                parts[-1] += f" (best so far: {best.damage} damage, {best.supplies} supplies)"
        elif stage == 7:
            if not self.tomb_clear:
                parts.append(f"a solo Tier {n.tomb_tier} clear" + self._attempt_note(n.tomb_tier))
            if not self.full_streak:
                parts.append(
                    f"a {n.streak_days}-day streak without a knockdown "
                    f"(current {len(self.streak)}, longest {self.longest_streak})"
                )
        elif stage == 8:
            parts.append("the Shadow King defeated")
        return "; ".join(parts)

    def _attempt_note(self, tier: int) -> str:
        tried = [c for c in self.clears if c.tier == tier]
        if not tried:
            return " (no attempt yet)"
        party = sum(1 for c in tried if c.cleared and c.alive and not c.solo)
        note = f" ({len(tried)} attempt{'s' if len(tried) != 1 else ''}"
        if party:
            note += f", {party} party clear{'s' if party != 1 else ''} (not solo)"
        return note + ")"

    def to_dict(self) -> dict[str, Any]:
        return {
            "stages": [r.to_dict() for r in self.stages],
            "coverage": self.coverage,
            "trial": self.trial,
            "first_unmet": self.first_unmet(),
        }
