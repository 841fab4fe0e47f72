"""home: a locked 5x5 stone home with a bed inside, to sleep in at night (skills.build_house); a
site found to overlap a neighbour's house is left, and what it built there taken down."""

from __future__ import annotations

from typing import Any

from ..character import Pos
from ..moves import SOURCE
from ..rulebook import inputs
from ..skills import adjacent, build_house, find_house_site, me, stand_spot
from .base import Answer, Goal

HOUSE_PATIENCE = 20  # tiles with nowhere to stand beside them before it gives the home up


class Home(Goal):
    name = "home"
    purpose = "build a locked stone home with a bed"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.place_failures: dict[Pos, int] = {}
        self.house_stuck = 0  # times a tile of its house had nowhere to stand beside it

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        if not self.me.builds_home():
            return None
        return self._home(obs, items)

    def _home(self, obs: dict[str, Any], items: dict[str, int]) -> dict[str, Any] | None:
        """The next step toward a locked house with a bed in it; None once both stand."""
        if not self.me.house.lock_fitted and not items.get("lock"):
            if items.get("iron_ingot", 0) < 1:
                return None  # the ingot plan above makes one first
            return self.moves.make(obs, items, "workbench", "lock", {})
        if self.me.old_house:
            step = self._take_down(obs)
            if step is not None:
                return step
        foreign = self._foreign_in_house(obs)
        if foreign is not None:
            self._relocate_house(foreign)
            return {"type": "wait", "ticks": 1}
        step = build_house(
            obs,
            items,
            self.me.house,
            self.me.notes,
            find_site=lambda: self.house_site(obs),
            craft=lambda station, recipe, needs, count: self.moves.make(
                obs, items, station, recipe, needs, count=count, batch=True
            ),
            fetch=lambda material: self.moves.fetch(obs, SOURCE[material]),
            place_at=lambda item, target: self._place_at(obs, item, target),
            explore=lambda: self.moves.explore(obs),
            blocked=self.me.blocked(),
        )
        if step is not None:
            return step
        if "bed" in self.me.sites:
            return None
        if items.get("bed"):
            return self._place_at(obs, "bed", self.me.house.bed_tile())
        bed = inputs("cloth_bed")
        if items.get("cloth", 0) < bed["cloth"]:
            if "loom" not in self.me.sites:
                return self.moves.place(obs, "loom", near_site="workbench")
            need = bed["cloth"] - items.get("cloth", 0)
            return self.moves.make(obs, items, "loom", "cloth", inputs("cloth"), count=need)
        return self.moves.make(obs, items, "workbench", "cloth_bed", bed)

    def house_site(self, obs: dict[str, Any]) -> Pos | None:
        taken = self.me.seen_structures | self.me.others_floors | set(self.me.sites.values()) | self.me.avoid
        site = find_house_site(self.me.notes, [self.me.sites["workbench"]], taken, radius=25)
        return site or find_house_site(self.me.notes, [me(obs)], taken)

    def _place_at(self, obs: dict[str, Any], item: str, target: Pos) -> dict[str, Any]:
        """Place `item` on `target`, walking next to it first (inside the house for the bed)."""
        here = me(obs)
        if adjacent(here, target):
            self.me.last_target = None  # a refused place (a sheep in the way) is tried again
            self.place_failures[target] = self.place_failures.get(target, 0) + 1
            if self.place_failures[target] > 6:
                self._move_house(target)
            return {"type": "place", "item": item, "x": target[0], "y": target[1]}
        within = self.me.house.inside if item == "bed" else None
        spot = stand_spot(self.me.notes, here, target, self.me.blocked(), within)
        if spot is None and within is not None:
            # Tiles of its own house put off-limits by earlier refusals (walking in before the
            # door stood, say): inside its locked house they are reachable now.
            self.me.avoid = {p for p in self.me.avoid if not within(p)}
            spot = stand_spot(self.me.notes, here, target, self.me.blocked(), within)
        if spot is None:
            self._move_house(target)
            self.house_stuck += 1
            if self.house_stuck > HOUSE_PATIENCE:
                self.me.home_given_up = True  # walled round by others: no home this time
            return {"type": "wait", "ticks": 1}
        return self.moves.go(spot)

    def _foreign_in_house(self, obs: dict[str, Any]) -> Pos | None:
        """A tile of its house still to build that holds another's wall, station or floor: two
        sites chosen at once by neighbours overlap, and neither can ever build on the other's
        piece (the place is refused every time). None when there is none in sight."""
        house = self.me.house
        if house.site is None or house.locked:
            return None
        others = _pieces(obs, own=False)
        floors, walls, door = house.layout()
        for p in [*floors, *walls, door]:
            if p not in house.built and p in others:
                return p
        return None

    def _relocate_house(self, target: Pos) -> None:
        """Start the house again on another site; what it built of this one is taken down
        first (materials back), so no half house is left standing in others' way."""
        self.me.avoid.add(target)
        house = self.me.house
        self.me.old_house |= set(house.built)
        if house.site is not None and house.layout()[2] in house.built:
            house.lock_fitted = False  # the lock comes back with the door
        house.site, house.built = None, {}
        for piece in ("floor", "wall", "door"):
            self.me.sites.pop(piece, None)
        house.search_at = -(10**9)
        self.place_failures.clear()

    def _take_down(self, obs: dict[str, Any]) -> dict[str, Any] | None:
        """The next piece of a house given up: walk next to it and dismantle it. None once
        none is left (or its pack has no room for what comes back)."""
        if self.me.take_down_refused >= 3:
            self.me.old_house.clear()
            return None
        standing = _pieces(obs, own=True)
        view = obs["view"]
        x0, y0 = view["x0"], view["y0"]
        h, w = len(view["tiles"]), len(view["tiles"][0]) if view["tiles"] else 0
        here = me(obs)
        for p in sorted(self.me.old_house, key=lambda p: (abs(p[0] - here[0]) + abs(p[1] - here[1]), p)):
            if x0 <= p[0] < x0 + w and y0 <= p[1] < y0 + h and p not in standing:
                self.me.old_house.discard(p)  # gone (taken down)
                continue
            if adjacent(here, p):
                return {"type": "dismantle", "x": p[0], "y": p[1]}
            spot = stand_spot(self.me.notes, here, p, self.me.blocked())
            if spot is None:
                self.me.old_house.discard(p)
                continue
            return self.moves.go(spot)
        return None

    def _move_house(self, target: Pos) -> None:
        """A tile of the house cannot be built: look for another site (before walls stand)."""
        self.me.avoid.add(target)
        house = self.me.house
        if house.site is not None and not house.walls():
            house.site, house.built = None, {}


def _pieces(obs: dict[str, Any], own: bool) -> set[Pos]:
    """Where the structures and floors in view stand that are its own (`own`) or others'."""
    mine = obs["self"]["id"]
    return {(p["x"], p["y"]) for p in (*obs["structures"], *obs.get("floors", ()))
            if (p.get("owner") == mine) == own}
