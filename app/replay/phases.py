"""The viewer's timeline: each character's run cut into phases, and the moments worth jumping to.

The phases are the evaluation's (asiworld.evaluation.phases, whose docstring holds the rules the
viewer's help overlay shows): the timeline and the behaviour profile in results.json paint with
the same code, so they never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from asiworld.evaluation.achievements import AchievementRecord
from asiworld.evaluation.phases import COMBAT_AFTER, COMBAT_BEFORE, PHASES, RECOVERY_AFTER, tracks

__all__ = ["COMBAT_AFTER", "COMBAT_BEFORE", "MARKER_KINDS", "PHASES", "RECOVERY_AFTER", "timeline"]

# Moments the viewer can jump between (kind -> the events that mark one).
MARKER_KINDS = ("combat_start", "knockdown", "craft", "dungeon_entry", "boss_defeat", "achievement",
                "resumed")


def timeline(
    events: Iterable[dict[str, Any]], first: int, last: int, characters: Iterable[int]
) -> dict[str, Any]:
    """``{"phases": {char: [[start, end, phase], ...]}, "markers": [...], "totals": {...}}``.

    A marker is ``{"tick", "char", "kind", "label"}`` with kind one of MARKER_KINDS."""
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
    markers.sort(key=lambda m: (m["tick"], m["char"]))
    return {"phases": phases, "markers": markers, "totals": _totals(phases)}


def _marker(ev: dict[str, Any], kind: str, label: str) -> dict[str, Any]:
    return {"tick": int(ev["tick"]), "char": ev.get("char"), "kind": kind, "label": label}


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
