"""unstick: stuck where it stands. Others block its way on a narrow road (it steps aside and lets
them pass), or every walk is refused from a small pocket walled in by trees, rock and stations
(it clears a way out)."""

from __future__ import annotations

from typing import Any

from ..character import Pos
from ..moves import MINEABLE, OPEN, STATIONS
from ..skills import WALKABLE_GROUND, gather, goto, me, pocket, unless_doing
from .base import CARRY_ON, Answer, Goal

JAMMED = 3  # walks stopped by others' bodies in a row before it steps aside to let them pass
PASSING_REACH = 15  # steps it looks back for a place to step aside
PASSING_WAIT = (20, 180)  # ticks it waits there, a random while (two that both stepped aside
# would otherwise meet again on the narrow way)
WALLED_IN = 6  # walks refused in a row before it looks at what walls it in
POCKET = 60  # open tiles it can reach, fewer than which it is walled in


class Unstick(Goal):
    name = "unstick"
    purpose = "get unstuck"
    keeps_on = False

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.passing_until: int | None = None

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        if self.me.jammed >= JAMMED or self.me.passing is not None:
            aside = self._make_way(obs)
            if self.me.passing is not None:
                return CARRY_ON if aside is None else aside  # None while it walks there
        if self.me.moves_refused >= WALLED_IN:
            return self._way_out(obs, items)
        return None

    def _make_way(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """Others stand in its way on a narrow way (a road one tile wide between rock and
        trees), and it in theirs: every walk is stopped, on both sides, for good. Step back to
        the nearest open place, off the narrow way, and wait there a random while so the others
        can pass; then go on. None when there is no such place behind it."""
        here, tick = me(obs), obs["tick"]
        if self.me.passing is None:
            self.me.passing = self._passing_place(obs)
            self.passing_until = None
            if self.me.passing is None:
                self.me.jammed = 0
                return None
        if self.passing_until is None:
            if here != self.me.passing:
                action = obs["self"]["action"]
                if action is not None and action["type"] == "move_to" and (
                        action["args"]["x"], action["args"]["y"]) == self.me.passing:
                    return None
                return self.moves.go(self.me.passing)
            self.passing_until = tick + self.me.rng.randint(*PASSING_WAIT)
        if tick < self.passing_until:
            return unless_doing(obs, {"type": "wait", "ticks": min(30, self.passing_until - tick)})
        self.me.passing, self.passing_until, self.me.jammed = None, None, 0
        return None

    def _passing_place(self, obs: dict[str, Any]) -> Pos | None:
        """The nearest remembered tile it can walk to without passing anyone, in the open (six
        or more open tiles in the 3x3 block around it): others walk round a body standing
        there."""
        tiles = self.me.notes.tiles
        bodies = {(e["x"], e["y"]) for e in obs["entities"]}
        taken = self.me.seen_structures | {(st["x"], st["y"]) for st in obs["structures"]}

        def open_ground(p: Pos) -> bool:
            return tiles.get(p) in WALKABLE_GROUND and p not in taken

        here = me(obs)
        seen, frontier = {here}, [here]
        for _ in range(PASSING_REACH):
            nxt = []
            for x, y in frontier:
                for q in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                    if q in seen or q in bodies or not open_ground(q):
                        continue
                    seen.add(q)
                    nxt.append(q)
            for q in sorted(nxt):
                block = sum(open_ground((q[0] + dx, q[1] + dy))
                            for dx in (-1, 0, 1) for dy in (-1, 0, 1))
                if block >= 6:
                    return q
            frontier = nxt
        return None

    def _way_out(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any] | None:
        """Walled in (every walk refused, and the open ground it can reach is a small pocket):
        clear the side that opens onto ground beyond, a tree or rock by gathering it, else a
        station of its own by taking it down (the plan sets it up again elsewhere). None when
        it is not walled in or nothing round the pocket can be cleared."""
        here = me(obs)
        tiles = self.me.notes.tiles
        taken = self.me.seen_structures | {(st["x"], st["y"]) for st in obs["structures"]}
        if self.me.house.site is not None:
            taken = taken - {self.me.house.layout()[2]}  # its own door opens for it
        region = pocket(tiles, here, taken, POCKET)
        if len(region) >= POCKET:
            return None
        own = {p: name for name, p in self.me.sites.items() if name in STATIONS}
        pickaxe = any(items.get(t) for t in ("wooden_pickaxe", "stone_pickaxe", "iron_pickaxe"))
        best = None
        for x, y in region:
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                side, beyond = (x + dx, y + dy), (x + 2 * dx, y + 2 * dy)
                if side in region:
                    continue
                if side in own:
                    rank = 2
                elif tiles.get(side) == "T" or (tiles.get(side) in MINEABLE and pickaxe):
                    rank = 0
                else:
                    continue
                if not (tiles.get(beyond) in OPEN and beyond not in taken):
                    rank += 4
                key = (rank, abs(x - here[0]) + abs(y - here[1]), side, (x, y))
                best = key if best is None or key < best else best
        if best is None:
            return None
        side, stand = best[2], best[3]
        if stand != here:
            return goto(*stand)  # across the pocket, beside the side to clear
        self.me.moves_refused = WALLED_IN - 2  # walk again soon: the side may be open by then
        if side in own:
            del self.me.sites[own[side]]
            return {"type": "dismantle", "x": side[0], "y": side[1]}
        self.me.last_target = side
        return gather(side)
