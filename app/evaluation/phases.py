"""Phases: each character's time cut into idle, travel, preparation, dungeon, combat and
recovery, read from its events alone. The replay viewer's timeline (asiworld.replay.phases) and
the evaluation's behaviour profile (asiworld.evaluation.profile) both paint with this code, so
the two never disagree.

The rules, lowest priority first, so a later rule wins where two overlap (the viewer's help
overlay and docs/evaluation.md say the same):

* idle: everything not covered below;
* travel: an accepted `move`, `move_to`, `enter`, `leave` or `offer` action until its op ends;
* preparation: an accepted gathering, crafting, building, trade, `equip` or `eat` action until its
  op ends, and the tick of every `gathered`, `crafted`, `placed`, `equipped`, `bought` event;
* dungeon: from `dungeon_entered` to `dungeon_left` (or the end of the window);
* combat: COMBAT_BEFORE ticks before to COMBAT_AFTER ticks after any `attacked`, `killed` or
  `damaged` event of the character whose source is not hunger;
* recovery: from `down` to `recovered`, then RECOVERY_AFTER more ticks of healing (cut short by
  the next combat).
"""

from __future__ import annotations

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
# Every kind a rule reads; the others pass by at the cost of one set lookup (a live feed).
READ = {"action", *OP_ENDS, *PREPARATION_EVENTS, "attacked", "killed", "damaged",
        "dungeon_entered", "dungeon_left", "down", "recovered"}

Event = dict[str, Any]


def _action_phase(event: Event) -> int | None:
    kind, category = event.get("type"), event.get("category")
    if kind in TRAVEL_ACTIONS:
        return TRAVEL
    if category in PREPARATION_CATEGORIES or kind in PREPARATION_ACTIONS:
        return PREPARATION
    return None


class PhaseTrack:
    """One character's phases, fed its events in tick order; painted over any window of ticks.

    What is fed is kept as spans per phase (overlapping and touching spans merged, so a long
    fight is one span), which is why a live world can be asked for its phases at any tick."""

    def __init__(self) -> None:
        self._spans: dict[int, list[list[int]]] = {p: [] for p in range(1, len(PHASES))}
        self._op: tuple[Any, int, int] | None = None  # (op, phase, start) of the open action
        self._entered: int | None = None
        self._downed: int | None = None
        self._tails: list[tuple[int, int]] = []  # healing after getting back up

    def _add(self, phase: int, start: int, end: int) -> None:
        if end < start:
            return
        spans = self._spans[phase]
        if spans and start <= spans[-1][1] + 1 and end >= spans[-1][0] - 1:
            spans[-1][0], spans[-1][1] = min(start, spans[-1][0]), max(end, spans[-1][1])
        else:
            spans.append([start, end])

    def _close_op(self, tick: int) -> None:
        if self._op is not None:
            _, phase, start = self._op
            self._op = None
            self._add(phase, start, tick)

    def feed(self, ev: Event) -> None:
        kind = ev.get("kind")
        if kind not in READ:
            return
        tick = int(ev.get("tick", 0))
        if kind == "action":
            self._close_op(tick - 1)
            phase = _action_phase(ev)
            if phase is not None:
                self._op = (ev.get("op"), phase, tick)
        elif kind in OP_ENDS:
            if self._op is not None and self._op[0] == ev.get("op"):
                self._close_op(tick)
        if kind in PREPARATION_EVENTS:
            self._add(PREPARATION, tick, tick)
        if kind in ("attacked", "killed") or (kind == "damaged" and ev.get("source") != "hunger"):
            self._add(COMBAT, tick - COMBAT_BEFORE, tick + COMBAT_AFTER)
        if kind == "dungeon_entered":
            self._entered = tick
        elif kind == "dungeon_left" and self._entered is not None:
            self._add(DUNGEON, self._entered, tick)
            self._entered = None
        elif kind == "down":
            self._downed = tick
        elif kind == "recovered" and self._downed is not None:
            self._add(RECOVERY, self._downed, tick)
            self._downed = None
            self._tails.append((tick + 1, tick + RECOVERY_AFTER))

    def labels(self, first: int, last: int) -> np.ndarray:
        """The phase (an index into PHASES) of every tick from `first` to `last`; what is still
        open (an action, a dungeon, a knockdown) lasts to `last`."""
        layers = {p: np.zeros(max(0, last - first + 1), dtype=bool) for p in self._spans}

        def paint(phase: int, start: int, end: int) -> None:
            a, b = max(start, first) - first, min(end, last) - first
            if b >= a:
                layers[phase][a : b + 1] = True

        for phase, spans in self._spans.items():
            _paint_all(layers[phase], spans, first, last)
        if self._op is not None:
            paint(self._op[1], self._op[2], last)
        if self._entered is not None:
            paint(DUNGEON, self._entered, last)
        if self._downed is not None:
            paint(RECOVERY, self._downed, last)
        for start, end in self._tails:  # healing ends where the next fight begins
            a, b = max(start, first) - first, min(end, last) - first
            fights = np.flatnonzero(layers[COMBAT][a : b + 1]) if b >= a else []
            paint(RECOVERY, start, start + int(fights[0]) - 1 if len(fights) else end)
        labels = np.zeros(max(0, last - first + 1), dtype=np.int8)
        for phase in range(1, len(PHASES)):  # ascending priority: a later rule wins
            labels[layers[phase]] = phase
        return labels

    def segments(self, first: int, last: int) -> list[list]:
        """``[[start, end, phase], ...]`` covering every tick from `first` to `last` once."""
        labels = self.labels(first, last)
        if not len(labels):
            return []
        cuts = np.flatnonzero(np.diff(labels)) + 1
        starts = np.concatenate(([0], cuts))
        ends = np.concatenate((cuts - 1, [len(labels) - 1]))
        return [
            [int(s) + first, int(e) + first, PHASES[int(labels[s])]]
            for s, e in zip(starts, ends, strict=True)
        ]

    def totals(self, first: int, last: int) -> dict[str, int]:
        """Ticks in each phase from `first` to `last`."""
        counts = np.bincount(self.labels(first, last), minlength=len(PHASES))
        return {name: int(n) for name, n in zip(PHASES, counts, strict=True)}


def _paint_all(layer: np.ndarray, spans: list[list[int]], first: int, last: int) -> None:
    """Mark every span's ticks within `first`..`last` in `layer` (a boolean array from
    `first`), all at once: a long world has many thousands of spans."""
    if not spans or not len(layer):
        return
    both = np.asarray(spans, dtype=np.int64)
    a = np.maximum(both[:, 0], first) - first
    b = np.minimum(both[:, 1], last) - first
    inside = b >= a
    # +1 where each span starts, -1 after it ends; counted by bincount (np.add.at was most of
    # a run's assessment)
    size = len(layer) + 1
    edges = np.bincount(a[inside], minlength=size) - np.bincount(b[inside] + 1, minlength=size)
    layer |= np.cumsum(edges[:-1]) > 0


def tracks(events: list[Event], characters: list[int]) -> dict[int, PhaseTrack]:
    """Each listed character's PhaseTrack, fed the events about it."""
    found = {c: PhaseTrack() for c in characters}
    for ev in events:
        track = found.get(ev.get("char"))  # type: ignore[arg-type]
        if track is not None:
            track.feed(ev)
    return found
