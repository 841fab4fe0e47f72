"""Why a character got where it got: per dungeon tier what its expeditions cost, and the stalls
that add up to an answer, from its events alone.

Per tier: entries, clears, knockdowns with their causes, the damage taken inside by source, the
gear worn on entering and the supplies (food, potions) eaten inside. Findings (stalls), each at
the tick it refers to, so the replay viewer can seek there:

* `repeated_entries`: a tier entered REPEATED_ENTRIES or more times in a row without a clear of
  it in between;
* `goal_stalled`: the curriculum's next stage (the first unmet one, asiworld.evaluation.
  achievements) not met for a world day longer than the stage needs at least (Foothold asks for
  one survival day, Royal Tomb for a streak of days; the others could be met at once);
* `repeated_refusal`: the world refused the same code REFUSAL_REPEATS or more times with no other
  refusal between (accepted actions may come between: the agent keeps asking for what fails).

It reads the behaviour profile (knockdowns with what preceded them, refusals by code: profile.py)
and the curriculum record (achievements.py) as they are fed, rather than counting either again;
docs/evaluation.md, "Why", and the viewer's Why tab (docs/replay-viewer.md) show the same.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from asiworld.evaluation.achievements import (
    STAGE_NAMES,
    AchievementRecord,
    Thresholds,
    shipped_thresholds,
)
from asiworld.evaluation.measures import LEVEL_NAMES
from asiworld.evaluation.profile import Profile

Event = dict[str, Any]

# Two failed attempts at a tier can be bad luck (a crowded room, a bad roll); the third with no
# clear between is what the researcher stepped through by hand.
REPEATED_ENTRIES = 3
# A model retrying a refused call twice is ordinary; five times with no other refusal between, it
# is not reading the answer (the turn reader shows each refusal's code under its call).
REFUSAL_REPEATS = 5
SHOWN = 3  # of the goal and refusal stalls, only the longest few: a finding is worth a look
GEAR_SLOTS = ("weapon", "armor")  # always named on entry, "none" when empty: a missing armour is
# often the answer


@dataclass
class TierLog:
    """One tier's expeditions of one character."""

    tier: int
    entries: list[int] = field(default_factory=list)  # entry ticks
    clears: list[int] = field(default_factory=list)  # ticks of the boss defeat or clearing exit
    knockdowns: list[dict[str, Any]] = field(default_factory=list)  # the profile's own
    damage: Counter[str] = field(default_factory=Counter)
    gear: Counter[tuple[tuple[str, str], ...]] = field(default_factory=Counter)
    supplies: Counter[str] = field(default_factory=Counter)

    def to_dict(self) -> dict[str, Any]:
        causes = Counter(str(k["cause"]) for k in self.knockdowns)
        return {
            "tier": self.tier,
            "name": LEVEL_NAMES.get(self.tier, f"Tier {self.tier}"),
            "entries": len(self.entries),
            "entry_ticks": list(self.entries),
            "clears": len(self.clears),
            "clear_ticks": list(self.clears),
            "knockdowns": [{"tick": k["tick"], "cause": k["cause"],
                            "last_damage": k["last_damage"]} for k in self.knockdowns],
            "causes": _ordered(causes),
            "damage": _ordered(self.damage),
            "gear": [{"worn": dict(worn), "entries": n} for worn, n in self.gear.most_common()],
            "supplies": _ordered(self.supplies),
        }  # fmt: skip


def _ordered(counts: Counter[str]) -> dict[str, int]:
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


@dataclass
class _Trip:
    tier: int
    tick: int
    expedition: Any
    cleared: bool = False
    down: dict[str, Any] | None = None


class Why:
    """One character's why-summary, fed its events in tick order (like the profile it reads)."""

    def __init__(self, thresholds: Thresholds | None = None) -> None:
        self.numbers = thresholds or shipped_thresholds()
        self.profile = Profile()  # its knockdowns and refusals, as results.json's profile has them
        self.record = AchievementRecord(self.numbers)
        self.tiers: dict[int, TierLog] = {}
        self.worn: dict[str, str] = {}
        self.trip: _Trip | None = None
        self.trips: list[_Trip] = []
        self.first: int | None = None
        self.last = 0
        # The goal: the first unmet stage, since when it has been the goal.
        self.goal = 1
        self.goal_since: int | None = None
        self.goal_stretches: list[dict[str, Any]] = []
        # Refusals in a row: [code, first tick, last tick, count, type].
        self.run: list[Any] | None = None
        self.refusal_runs: list[dict[str, Any]] = []

    def feed(self, ev: Event) -> None:
        tick = int(ev.get("tick", 0))
        if self.first is None:
            self.first = self.goal_since = tick
        self.last = max(self.last, tick)
        downs = len(self.profile.knockdowns)
        self.profile.feed(ev)
        self.record.feed(ev)
        self._goal(tick)
        handler = getattr(self, "_on_" + str(ev.get("kind")), None)
        if handler is not None:
            handler(ev, tick)
        if len(self.profile.knockdowns) > downs and self.trip is not None:
            self.trip.down = self.profile.knockdowns[-1]
            self._tier(self.trip.tier).knockdowns.append(self.trip.down)

    def _tier(self, tier: int) -> TierLog:
        if tier not in self.tiers:
            self.tiers[tier] = TierLog(tier)
        return self.tiers[tier]

    # -- the tiers -------------------------------------------------------------------------

    def _on_equipped(self, ev: Event, tick: int) -> None:
        self.worn[str(ev.get("slot"))] = str(ev.get("item"))

    def _on_unequipped(self, ev: Event, tick: int) -> None:
        self.worn.pop(str(ev.get("slot")), None)

    def _on_dungeon_entered(self, ev: Event, tick: int) -> None:
        tier = int(ev.get("tier", 0))
        self.trip = _Trip(tier, tick, ev.get("expedition"))
        log = self._tier(tier)
        log.entries.append(tick)
        worn = {slot: "none" for slot in GEAR_SLOTS} | self.worn
        log.gear[tuple(sorted(worn.items()))] += 1

    def _on_damaged(self, ev: Event, tick: int) -> None:
        if "entity" in ev or self.trip is None:  # with `entity`, it hit a creature
            return
        log = self._tier(self.trip.tier)
        log.damage[str(ev.get("source"))] += int(ev.get("amount", 0))

    def _on_ate(self, ev: Event, tick: int) -> None:
        if self.trip is not None and ev.get("in_dungeon"):
            self._tier(self.trip.tier).supplies[str(ev.get("item"))] += 1

    def _on_boss_defeated(self, ev: Event, tick: int) -> None:
        if self.trip is not None and not self.trip.cleared:
            self.trip.cleared = True
            self._tier(self.trip.tier).clears.append(tick)

    def _on_dungeon_left(self, ev: Event, tick: int) -> None:
        trip = self.trip
        if trip is None:
            return
        if ev.get("cleared") and not trip.cleared:
            trip.cleared = True
            self._tier(trip.tier).clears.append(tick)
        self.trips.append(trip)
        self.trip = None

    # -- the stalls ------------------------------------------------------------------------

    def _goal(self, tick: int) -> None:
        trial = self.record.trial
        if trial + 1 == self.goal or self.goal > len(STAGE_NAMES):
            return
        # The stage is met at its own tick (a survival day is assessed where it ended, before
        # the event that told of it).
        met = self.record.stages[self.goal - 1].tick
        met = tick if met is None else met
        self._close_goal(met, met=True)
        self.goal, self.goal_since = trial + 1, met

    def _close_goal(self, tick: int, met: bool) -> None:
        if self.goal > len(STAGE_NAMES) or self.goal_since is None:
            return
        stage = self.goal
        self.goal_stretches.append({
            "stage": stage, "name": STAGE_NAMES[stage - 1], "start": self.goal_since,
            "end": tick, "met": met,
            "missing": "" if met else self.record.missing(stage),
        })  # fmt: skip

    def _least(self, stage: int) -> int:
        """The fewest ticks `stage` can take once it is the goal."""
        n = self.numbers
        if stage == 1:
            return n.day_ticks  # one continuous survival day
        if stage == 7:
            return n.streak_days * n.day_ticks
        return 0

    def _on_refused(self, ev: Event, tick: int) -> None:
        self._refusal(str(ev.get("code")), tick, ev.get("type"))

    def _on_op_failed(self, ev: Event, tick: int) -> None:
        self._refusal(str(ev.get("code")), tick, ev.get("type"))

    def _refusal(self, code: str, tick: int, kind: Any) -> None:
        if self.run is not None and self.run[0] == code:
            self.run[2], self.run[3] = tick, self.run[3] + 1
            return
        self._close_run()
        self.run = [code, tick, tick, 1, kind]

    def _close_run(self) -> None:
        if self.run is not None and self.run[3] >= REFUSAL_REPEATS:
            code, start, end, count, kind = self.run
            self.refusal_runs.append({"code": code, "start": start, "end": end, "count": count,
                                      "type": kind})
        self.run = None

    # -- the summary -----------------------------------------------------------------------

    def findings(self, now: int | None = None) -> list[dict[str, Any]]:
        """Every stall found up to `now` (the last tick seen by default), in tick order."""
        now = self.last if now is None else now
        found = self._entry_findings() + self._goal_findings(now) + self._refusal_findings()
        return sorted(found, key=lambda f: (f["tick"], f["kind"]))

    def _entry_findings(self) -> list[dict[str, Any]]:
        out = []
        streaks: dict[int, list[_Trip]] = {}
        trips = self.trips + ([self.trip] if self.trip is not None else [])
        ended: list[list[_Trip]] = []
        for trip in trips:
            streak = streaks.setdefault(trip.tier, [])
            if trip.cleared:
                ended.append(streaks.pop(trip.tier))
            else:
                streak.append(trip)
        ended += streaks.values()
        for streak in ended:
            if len(streak) >= REPEATED_ENTRIES:
                out.append(self._entry_finding(streak))
        return out

    def _entry_finding(self, streak: list[_Trip]) -> dict[str, Any]:
        tier = streak[0].tier
        downs = [t.down for t in streak if t.down is not None]
        causes = _ordered(Counter(str(k["cause"]) for k in downs))
        log = self.tiers[tier]
        gear = log.gear.most_common(1)[0][0] if log.gear else ()
        name = LEVEL_NAMES.get(tier, f"Tier {tier}")
        text = (f"entered Tier {tier} ({name}) {len(streak)} times in a row without a clear "
                f"({clock(streak[0].tick)} to {clock(streak[-1].tick)})")
        if downs:
            text += "; knocked down in " + (
                "all of them" if len(downs) == len(streak) else f"{len(downs)}")
            text += " (" + ", ".join(f"{c} ×{n}" for c, n in causes.items()) + ")"
        if gear:
            text += "; worn on entry: " + ", ".join(
                f"no {slot}" if item == "none" else item for slot, item in sorted(
                    gear, key=lambda kv: (kv[1] == "none", kv[0])))
        return {
            "kind": "repeated_entries", "tick": streak[0].tick, "end": streak[-1].tick,
            "tier": tier, "count": len(streak), "ticks": [t.tick for t in streak],
            "downs": [k["tick"] for k in downs], "causes": causes, "gear": dict(gear),
            "text": text,
        }  # fmt: skip

    def _goal_findings(self, now: int) -> list[dict[str, Any]]:
        stretches = list(self.goal_stretches)
        if self.goal <= len(STAGE_NAMES) and self.goal_since is not None:
            stage = self.goal
            stretches.append({"stage": stage, "name": STAGE_NAMES[stage - 1],
                              "start": self.goal_since, "end": now, "met": False,
                              "missing": self.record.missing(stage)})
        allowance = self.numbers.day_ticks
        slow = [s for s in stretches if s["end"] - s["start"] > self._least(s["stage"]) + allowance]
        slow.sort(key=lambda s: (-(s["end"] - s["start"]), s["start"]))
        out = []
        for s in slow[:SHOWN]:
            length = s["end"] - s["start"]
            text = (f"the goal {s['name']} (stage {s['stage']}) did not advance for "
                    f"{length // 60} minutes ({clock(s['start'])} to {clock(s['end'])})")
            text += "; then met" if s["met"] else f"; still missing: {s['missing']}"
            out.append({"kind": "goal_stalled", "tick": s["start"], "end": s["end"],
                        "stage": s["stage"], "minutes": round(length / 60, 1),
                        "met": s["met"], "missing": s["missing"], "text": text})
        return out

    def _refusal_findings(self) -> list[dict[str, Any]]:
        runs = list(self.refusal_runs)
        if self.run is not None and self.run[3] >= REFUSAL_REPEATS:
            code, start, end, count, kind = self.run
            runs.append({"code": code, "start": start, "end": end, "count": count, "type": kind})
        runs.sort(key=lambda r: (-r["count"], r["start"]))
        out = []
        for r in runs[:SHOWN]:
            what = f" ({r['type']})" if r["type"] else ""
            out.append({"kind": "repeated_refusal", "tick": r["start"], "end": r["end"],
                        "code": r["code"], "count": r["count"],
                        "text": f"refused {r['code']}{what} {r['count']} times with no other "
                                f"refusal between ({clock(r['start'])} to {clock(r['end'])})"})
        return out

    def to_dict(self, now: int | None = None) -> dict[str, Any]:
        return {
            "tiers": [self.tiers[t].to_dict() for t in sorted(self.tiers)],
            "findings": self.findings(now),
            "goal": {"stage": self.goal, "name": STAGE_NAMES[self.goal - 1],
                     "since": self.goal_since,
                     "missing": self.record.missing(self.goal)}
            if self.goal <= len(STAGE_NAMES) else None,
            "refusals": dict(sorted(self.profile.refusals.items())),
        }  # fmt: skip


def clock(tick: int) -> str:
    """m:ss of a tick (one tick is a simulation second), as the viewer writes moments."""
    return f"{tick // 60}:{tick % 60:02d}"


def why_summaries(events: Any, characters: list[dict[str, Any]],
                  thresholds: Thresholds | None = None) -> dict[str, Any]:
    """The why-summary of every listed character (``{"id", "name", "label"}``) from `events` in
    tick order: ``{"characters": [{"char", "name", "label", **Why.to_dict()}], "rules": {...}}``."""
    numbers = thresholds or shipped_thresholds()
    whys = {int(c["id"]): Why(numbers) for c in characters if c.get("id") is not None}
    last = 0
    for ev in events:
        last = max(last, int(ev.get("tick", 0)))
        why = whys.get(ev.get("char"))  # type: ignore[arg-type]
        if why is not None:
            why.feed(ev)
    rows = []
    for c in characters:
        why = whys.get(int(c["id"])) if c.get("id") is not None else None
        if why is None:
            continue
        rows.append({"char": int(c["id"]), "name": c.get("name"), "label": c.get("label"),
                     **why.to_dict(last)})
    return {"characters": rows, "rules": rules(numbers)}


def rules(numbers: Thresholds | None = None) -> dict[str, Any]:
    """The detectors' thresholds, for the page to say what a finding means."""
    numbers = numbers or shipped_thresholds()
    return {"repeated_entries": REPEATED_ENTRIES, "refusal_repeats": REFUSAL_REPEATS,
            "goal_allowance_minutes": numbers.day_ticks // numbers.ticks_per_minute,
            "shown": SHOWN}
