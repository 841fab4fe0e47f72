"""The world's state as plain data: areas (the surface and dungeon instances), entities,
structures, loot bags and operations. Behaviour lives in the rule modules."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

SURFACE = 0
Pos = tuple[int, int]


@dataclass
class Structure:
    kind: str
    owner: int
    has_lock: bool = False
    locked: bool = False

    def to_dict(self, x: int, y: int) -> dict[str, Any]:
        return {"kind": self.kind, "x": x, "y": y, "owner": self.owner,
                "has_lock": self.has_lock, "locked": self.locked}


@dataclass
class LootBag:
    items: dict[str, int]
    expires: int
    owner: int  # the character who dropped it (anyone may pick it up)


@dataclass
class Chest:
    """What a closed chest in an instance holds (gather opens it once)."""

    coins: int
    items: dict[str, int]


@dataclass
class Instance:
    """A dungeon or Sanctum instance's bookkeeping (app/engine/dungeons.py)."""

    name: str
    entrance: Pos
    portal: Pos
    cleared: bool = False  # its boss has fallen and the portal is open
    chests: dict[Pos, Chest] = field(default_factory=dict)  # the closed ones
    owner: int = 0  # the character whose entry made it
    entry: int = 0  # that character's entry count for the tier
    dark_radius: int | None = None  # view radius without a torch (dark tiers only)
    boss: int = 0  # the boss's entity id
    members: list[int] = field(default_factory=list)  # who is inside now


@dataclass
class Expedition:
    """A character's current expedition; published as `dungeon_left` when it ends."""

    number: int
    tier: int
    instance: int
    start: int
    solo: bool
    party: list[int]
    damage: int = 0
    supplies: int = 0
    coins: int = 0
    kills: int = 0


@dataclass
class DungeonLedger:
    """The world's dungeon bookkeeping, made by the first expedition."""

    expeditions: int = 0  # expeditions started so far (numbers them)
    recover_at: dict[int, Pos] = field(default_factory=dict)  # knocked down inside -> gate spot
    sweep: list[int] = field(default_factory=list)  # instances to remove once empty


@dataclass
class Area:
    """One map: the surface (id 0) or a dungeon instance. Terrain is a uint8 array of tile
    codes indexed [y, x]; `amount` counts what a resource tile still holds."""

    id: int
    kind: str  # "surface", "dungeon", "sanctum"
    terrain: np.ndarray
    amount: np.ndarray
    dark: bool = False
    tier: int = 0
    floor: dict[Pos, int] = field(default_factory=dict)  # floor tiles -> owner
    structures: dict[Pos, Structure] = field(default_factory=dict)
    occupant: dict[Pos, int] = field(default_factory=dict)  # solid entity per tile
    loot: dict[Pos, LootBag] = field(default_factory=dict)
    # Bumped whenever walkability or sight changes, so caches (vision, paths) know to refresh.
    version: int = 0
    instance: Instance | None = None  # a dungeon or Sanctum instance's bookkeeping

    @property
    def height(self) -> int:
        return int(self.terrain.shape[0])

    @property
    def width(self) -> int:
        return int(self.terrain.shape[1])

    def in_bounds(self, x: int, y: int) -> bool:
        h, w = self.terrain.shape  # not the properties: asked several times a tick per body
        return 0 <= x < w and 0 <= y < h


@dataclass
class Op:
    """A character's ongoing operation (a multi-tick action)."""

    id: int
    type: str
    args: dict[str, Any]
    wait: int = 1  # ticks until the next effect
    remaining: int = 1  # units still to do (craft count, wait ticks)
    path: list[Pos] = field(default_factory=list)
    stuck: int = 0
    started: int = 0
    result: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.id, "type": self.type, "args": self.args, "status": "running",
                "ticks_left": self.wait, "remaining": self.remaining}


@dataclass
class Entity:
    id: int
    kind: str
    area: int
    x: int
    y: int
    health: int
    max_health: int

    @property
    def is_character(self) -> bool:
        return False


@dataclass
class Creature(Entity):
    hostile: bool = False
    target: int | None = None
    lost_sight: int = 0
    next_move: int = 0
    next_attack: int = 0
    wool_at: int = 0  # sheep: tick from which it can be shorn again
    boss: bool = False
    tier: int = 0
    phase: int = 1
    coins: int | None = None  # a dungeon creature's T-coins, paid to whoever defeats it
    next_summon: int | None = None  # the Shadow King in phase 2: tick of his next summons
    summoned_by: int | None = None  # a shade the Shadow King called


@dataclass
class Character(Entity):
    name: str = ""
    label: str = ""
    hunger: int = 100
    energy: int = 100
    coins: int = 0
    inventory: list[list[Any]] = field(default_factory=list)  # [[item, count], ...] slot order
    equipment: dict[str, str | None] = field(
        default_factory=lambda: {"weapon": None, "armor": None, "outfit": None, "light": None})
    light_ticks: int = 0
    crafted: dict[str, int] = field(default_factory=dict)  # item -> times crafted by this character
    op: Op | None = None
    asleep: bool = False
    down: bool = False
    down_until: int = 0
    next_attack: int = 0
    spawn: Pos = (0, 0)
    surface_pos: Pos = (0, 0)  # where it stood on the surface (its gate while in a dungeon)
    usable_bed: bool = False
    home_area: int = 0
    home_locked: bool = False
    night_damage: int = 0
    night_full: bool = False  # present for the whole of the current night
    day_downs: int = 0
    joined: int = 0
    expedition: Expedition | None = None
    entries: dict[int, int] = field(default_factory=dict)  # tier -> entries so far
    sanctum_open: bool = False
    tasks: dict[str, int] = field(default_factory=dict)  # task -> tick completed
    # Shades spare it for its first N nights (a world option for new players: serve
    # --grace-nights); 0, the default, is left out of hashes and snapshots (hashing, snapshot)
    grace_nights: int = 0

    @property
    def is_character(self) -> bool:
        return True

    def count(self, item: str) -> int:
        return sum(n for name, n in self.inventory if name == item)
