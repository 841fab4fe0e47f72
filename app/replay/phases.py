"""The viewer's timeline: each character's run cut into phases, and the moments worth jumping to.

The phases are the evaluation's (asiworld.evaluation.phases, whose docstring holds the rules the
viewer's help overlay shows): the timeline and the behaviour profile in results.json paint with
the same code, so they never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from asiworld.engine import load_content
from asiworld.evaluation.achievements import AchievementRecord
from asiworld.evaluation.phases import COMBAT_AFTER, COMBAT_BEFORE, PHASES, RECOVERY_AFTER, tracks

__all__ = ["BOSS_FIGHT_GAP", "COMBAT_AFTER", "COMBAT_BEFORE", "MARKER_KINDS", "PHASES",
           "RECOVERY_AFTER", "boss_fights", "timeline"]

# Moments the viewer can jump between (kind -> the events that mark one).
MARKER_KINDS = ("combat_start", "knockdown", "craft", "dungeon_entry", "boss_fight", "boss_fight_end",
                "boss_defeat", "achievement", "resumed")
# A boss that lands no blow and takes none for a simulation minute has lost its quarry (it gives
# up when the character is out of sight): the fight ended at the last blow.
BOSS_FIGHT_GAP = 60


def timeline(
    events: Iterable[dict[str, Any]], first: int, last: int, characters: Iterable[int]
) -> dict[str, Any]:
    """``{"phases": {char: [[start, end, phase], ...]}, "markers": [...], "totals": {...}}``.

    A marker is ``{"tick", "char", "kind", "label"}`` with kind one of MARKER_KINDS; a boss
    fight's two markers also carry the fight (`boss_fights`) as ``"fight"``."""
    chars = [int(c) for c in characters]
    known = set(chars)
    events = list(events)
    markers: list[dict[str, Any]] = []
    achievements = _Achievements()
    for ev in events:
        char, kind = ev.get("char"), ev.get("kind")
        if char not in known:
            continue
        if kind == "dungeon_entered":
            markers.append(_marker(ev, "dungeon_entry", f"entered tier {ev.get('tier')}"))
        elif kind == "down":
            markers.append(_marker(ev, "knockdown", f"knocked down ({ev.get('cause', '?')})"))
        elif kind == "crafted":
            markers.append(_marker(ev, "craft", f"crafted {ev.get('count', 1)} {ev.get('item')}"))
        elif kind == "boss_defeated":
            markers.append(_marker(ev, "boss_defeat", f"defeated {ev.get('boss')}"))
        elif kind == "task_complete":
            markers.append(_marker(ev, "achievement", f"completed the {ev.get('task')} task"))
        elif kind == "resumed":  # a killed realtime study went on: this agent started over
            markers.append(_marker(ev, "resumed", f"study resumed: {ev.get('detail', '')}"))
        for name in achievements.feed(char, ev):
            markers.append(_marker(ev, "achievement", f"achievement: {name}"))
    phases = {char: track.segments(first, last) for char, track in tracks(events, chars).items()}
    markers += _combat_starts(phases)
    for fight in boss_fights(events, chars):
        # Both ends carry the whole fight, so either finds the other (the evaluation page links
        # a boss defeat to the start of the fight that won it).
        fight_of = {k: fight[k] for k in ("boss", "tier", "start", "end", "ending")}
        markers.append({"tick": fight["start"], "char": fight["char"], "kind": "boss_fight",
                        "label": f"boss fight: {fight['boss']} (tier {fight['tier']})",
                        "fight": fight_of})
        markers.append({"tick": fight["end"], "char": fight["char"], "kind": "boss_fight_end",
                        "label": f"boss fight ends: {fight['boss']} {ENDINGS[fight['ending']]}",
                        "fight": fight_of})
    markers.sort(key=lambda m: (m["tick"], m["char"]))
    return {"phases": phases, "markers": markers, "totals": _totals(phases)}


def _marker(ev: dict[str, Any], kind: str, label: str) -> dict[str, Any]:
    return {"tick": int(ev["tick"]), "char": ev.get("char"), "kind": kind, "label": label}


@lru_cache(maxsize=1)
def boss_kinds() -> frozenset[str]:
    """The creatures the shipped content marks as bosses (creatures.toml `boss = true`)."""
    return frozenset(n for n, cr in load_content().creatures.items() if cr.get("boss"))


ENDINGS = {"defeated": "defeated", "down": "not defeated: the character was knocked down",
           "left": "not defeated: the character left the dungeon",
           "broke_off": "not defeated: no blow for a minute", "open": "still on at the end"}


def boss_fights(events: Iterable[dict[str, Any]], characters: Iterable[int],
                bosses: frozenset[str] | None = None) -> list[dict[str, Any]]:
    """Each character's boss fights, from its events: ``{"char", "boss", "tier", "start", "end",
    "ending"}``. A fight starts at the first blow between the character and a boss (either way)
    and ends at the boss's defeat (`defeated`), the character's knockdown (`down`) or exit from
    the dungeon (`left`), or at its last blow when a minute passes without one (`broke_off`);
    one still on when the events end is `open` at its last blow."""
    bosses = boss_kinds() if bosses is None else bosses
    known = {int(c) for c in characters}
    open_: dict[int, dict[str, Any]] = {}
    tiers: dict[int, int] = {}
    out: list[dict[str, Any]] = []

    def close(char: int, tick: int, ending: str) -> None:
        fight = open_.pop(char)
        fight["end"], fight["ending"] = max(tick, fight["start"]), ending
        out.append(fight)

    for ev in events:
        char, kind = ev.get("char"), ev.get("kind")
        if char not in known:
            continue
        tick = int(ev.get("tick", 0))
        fight = open_.get(char)
        if fight is not None and tick - fight["last"] > BOSS_FIGHT_GAP:
            close(char, fight["last"], "broke_off")
            fight = None
        boss = None
        if kind == "damaged" and "entity" not in ev and ev.get("source") in bosses:
            boss = ev.get("source")
        elif kind == "attacked" and ev.get("target_kind") in bosses:
            boss = ev.get("target_kind")
        if boss is not None:
            if fight is None:
                fight = open_[char] = {"char": char, "boss": boss, "tier": tiers.get(char),
                                       "start": tick, "last": tick}
            fight["last"] = tick
        elif kind == "dungeon_entered":
            tiers[char] = ev.get("tier")
        elif fight is not None and kind in ("boss_defeated", "down", "dungeon_left"):
            close(char, tick, {"boss_defeated": "defeated", "down": "down",
                               "dungeon_left": "left"}[kind])
    for char, fight in list(open_.items()):
        close(char, fight["last"], "open")
    for fight in out:
        del fight["last"]
    return sorted(out, key=lambda f: (f["start"], f["char"]))


def _combat_starts(phases: dict[int, list[list]]) -> list[dict[str, Any]]:
    return [
        {"tick": start, "char": char, "kind": "combat_start", "label": "combat starts"}
        for char, segments in phases.items()
        for start, _, phase in segments
        if phase == "combat"
    ]


def _totals(phases: dict[int, list[list]]) -> dict[int, dict[str, int]]:
    totals = {}
    for char, segments in phases.items():
        counts = dict.fromkeys(PHASES, 0)
        for start, end, phase in segments:
            counts[phase] += end - start + 1
        totals[char] = counts
    return totals


class _Achievements:
    """The evaluation layer's curriculum per character: the stages each event newly meets."""

    def __init__(self) -> None:
        self.make = AchievementRecord
        self.records: dict[int, Any] = {}

    def feed(self, char: int, ev: dict[str, Any]) -> list[str]:
        record = self.records.get(char)
        if record is None:
            record = self.records[char] = self.make()
        before = {s.stage for s in record.stages if s.met}
        try:
            record.feed(ev)
        except Exception:  # an odd event must not break the timeline
            return []
        return [s.name for s in record.stages if s.met and s.stage not in before]
