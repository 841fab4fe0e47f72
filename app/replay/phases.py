"""The viewer's timeline: each character's run cut into phases, and the moments worth jumping to.

Phases are painted from the evaluation events alone, lowest priority first, so a later rule wins
where two overlap (the same rules are shown in the viewer's help overlay):

* idle: everything not covered below;
* travel: an accepted `move`, `move_to`, `enter`, `leave` or `offer` action until its op ends;
* preparation: an accepted gathering, crafting, building, trade, `equip` or `eat` action until its
  op ends, and the tick of every `gathered`, `crafted`, `placed`, `equipped`, `bought` event;
* dungeon: from `dungeon_entered` to `dungeon_left` (or the end of the replay);
* combat: COMBAT_BEFORE ticks before to COMBAT_AFTER ticks after any `attacked`, `killed` or
  `damaged` event of the character whose source is not hunger;
* recovery: from `down` to `recovered`, then RECOVERY_AFTER more ticks of healing (cut short by
  the next combat).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

PHASES = ("idle", "travel", "preparation", "dungeon", "combat", "recovery")
IDLE, TRAVEL, PREPARATION, DUNGEON, COMBAT, RECOVERY = range(len(PHASES))

COMBAT_BEFORE = 5
COMBAT_AFTER = 30  # half a simulation minute after the last blow
RECOVERY_AFTER = 300  # five simulation minutes of healing after getting back up

TRAVEL_ACTIONS = {"move", "move_to", "enter", "leave", "offer"}
PREPARATION_CATEGORIES = {"gathering", "crafting", "building", "trade"}
PREPARATION_ACTIONS = {"equip", "eat", "use", "unequip", "pick_up"}
PREPARATION_EVENTS = {"gathered", "crafted", "placed", "equipped", "bought"}
OP_ENDS = {"op_done", "op_failed", "op_cancelled"}

# Moments the viewer can jump between (kind -> the events that mark one).
MARKER_KINDS = ("combat_start", "knockdown", "craft", "dungeon_entry", "boss_defeat", "achievement",
                "resumed")


def _action_phase(event: dict[str, Any]) -> int | None:
    kind, category = event.get("type"), event.get("category")
    if kind in TRAVEL_ACTIONS:
        return TRAVEL
    if category in PREPARATION_CATEGORIES or kind in PREPARATION_ACTIONS:
        return PREPARATION
    return None


class _Painter:
    def __init__(self, first: int, last: int) -> None:
        self.first, self.last = first, last
        self.layers = {p: np.zeros(last - first + 1, dtype=bool) for p in range(1, len(PHASES))}

    def paint(self, phase: int, start: int, end: int) -> None:
        a, b = max(start, self.first) - self.first, min(end, self.last) - self.first
        if b >= a:
            self.layers[phase][a : b + 1] = True

    def segments(self) -> list[list]:
        labels = np.zeros(self.last - self.first + 1, dtype=np.int8)
        for phase in range(1, len(PHASES)):  # ascending priority: a later rule wins
            labels[self.layers[phase]] = phase
        cuts = np.flatnonzero(np.diff(labels)) + 1
        starts = np.concatenate(([0], cuts))
        ends = np.concatenate((cuts - 1, [len(labels) - 1]))
        return [
            [int(s) + self.first, int(e) + self.first, PHASES[int(labels[s])]]
            for s, e in zip(starts, ends, strict=True)
        ]


def timeline(
    events: Iterable[dict[str, Any]], first: int, last: int, characters: Iterable[int]
) -> dict[str, Any]:
    """``{"phases": {char: [[start, end, phase], ...]}, "markers": [...], "totals": {...}}``.

    A marker is ``{"tick", "char", "kind", "label"}`` with kind one of MARKER_KINDS."""
    chars = [int(c) for c in characters]
    painters = {c: _Painter(first, last) for c in chars}
    open_ops: dict[int, tuple[int, int, int]] = {}  # char -> (op, phase, start)
    entered: dict[int, int] = {}
    downed: dict[int, int] = {}
    tails: list[tuple[int, int, int]] = []  # healing after getting back up
    markers: list[dict[str, Any]] = []
    achievements = _Achievements()

    def close_op(char: int, tick: int) -> None:
        op = open_ops.pop(char, None)
        if op is not None and char in painters:
            painters[char].paint(op[1], op[2], tick)

    for ev in events:
        char, kind, tick = ev.get("char"), ev.get("kind"), int(ev.get("tick", 0))
        if char is None or char not in painters:
            continue
        paint = painters[char].paint
        if kind == "action":
            close_op(char, tick - 1)
            phase = _action_phase(ev)
            if phase is not None:
                open_ops[char] = (ev.get("op"), phase, tick)
        elif kind in OP_ENDS:
            if char in open_ops and open_ops[char][0] == ev.get("op"):
                close_op(char, tick)
        if kind in PREPARATION_EVENTS:
            paint(PREPARATION, tick, tick)
        if kind in ("attacked", "killed") or (kind == "damaged" and ev.get("source") != "hunger"):
            paint(COMBAT, tick - COMBAT_BEFORE, tick + COMBAT_AFTER)
        if kind == "dungeon_entered":
            entered[char] = tick
            markers.append(_marker(ev, "dungeon_entry", f"entered tier {ev.get('tier')}"))
        elif kind == "dungeon_left" and char in entered:
            paint(DUNGEON, entered.pop(char), tick)
        elif kind == "down":
            downed[char] = tick
            markers.append(_marker(ev, "knockdown", f"knocked down ({ev.get('cause', '?')})"))
        elif kind == "recovered" and char in downed:
            paint(RECOVERY, downed.pop(char), tick)
            tails.append((char, tick + 1, tick + RECOVERY_AFTER))
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
    for char in list(open_ops):
        close_op(char, last)
    for char, start in entered.items():
        painters[char].paint(DUNGEON, start, last)
    for char, start in downed.items():
        painters[char].paint(RECOVERY, start, last)

    for char, start, end in tails:  # healing ends where the next fight begins
        painter = painters[char]
        a, b = max(start, first) - first, min(end, last) - first
        fights = np.flatnonzero(painter.layers[COMBAT][a : b + 1]) if b >= a else []
        painter.paint(RECOVERY, start, start + int(fights[0]) - 1 if len(fights) else end)
    phases = {char: painter.segments() for char, painter in painters.items()}
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
        try:
            from asiworld.evaluation.achievements import AchievementRecord
        except ImportError:  # the viewer still works without the evaluation layer
            AchievementRecord = None
        self.make = AchievementRecord
        self.records: dict[int, Any] = {}

    def feed(self, char: int, ev: dict[str, Any]) -> list[str]:
        if self.make is None:
            return []
        record = self.records.get(char)
        if record is None:
            record = self.records[char] = self.make()
        before = {s.stage for s in record.stages if s.met}
        try:
            record.feed(ev)
        except Exception:  # an odd event must not break the timeline
            return []
        return [s.name for s in record.stages if s.met and s.stage not in before]
