"""The World: one seeded, deterministic simulation. `submit` checks an action against the rules
and queues it; `step` applies the queued inputs, advances every operation, creature and body by
one tick, and returns the tick's events. The order inside a tick is fixed (ids ascending)."""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from . import actions, clock, codes, creatures, dungeons, hashing, homes, snapshot, survival, vision
from .content import Content, load_content
from .errors import ActionResult, Refusal, WorldFull
from .model import SURFACE, Area, Character, Creature, DungeonLedger, Entity, LootBag, Pos
from .observation import observe, observe_text
from .seeding import world_rng
from .worldgen import Landmarks, generate_surface

EVENT_MEMORY = 200  # events kept per character between observations


NEAR_RINGS = 4  # rings round a spot searched tile by tile before the arrays take over


class World:
    def __init__(self, content: Content, seed: int):
        self.content = content
        self.seed = int(seed)
        self.rng = world_rng(self.seed)
        self.tick = 0
        self.areas: dict[int, Area] = {}
        self.entities: dict[int, Entity] = {}
        self.next_id = 1
        self.next_op = 1
        self.next_area = 1
        self.landmarks: Landmarks | None = None
        # The grace nights a new character gets (serve --grace-nights): a setting of the
        # process, not state; each character keeps its own, and its join row says it
        self.grace_nights = 0
        self.pending: list[tuple[int, dict[str, Any], int]] = []
        # The inputs applied, in order. A live server may forget rows it has saved
        # (forget_inputs); input_log_base counts the forgotten ones, so row numbers stay absolute.
        self.input_log: list[tuple[int, int | None, dict[str, Any]]] = []
        self.input_log_base = 0
        self.char_events: dict[int, deque] = {}
        self.memory: dict[int, vision.Memory] = {}
        self.expiries: list[tuple[int, int, Pos]] = []  # (tick, area, pos) of regrowth
        self._events: list[dict[str, Any]] = []
        self.tile_changes: list[tuple[int, int, int, int]] = []  # (area, x, y, code) this tick
        self.structures_changed = False
        self.loot_changed = False
        self.dungeons: DungeonLedger | None = None  # made by the first expedition (dungeons.py)
        self.home_tiles: dict[int, set[Pos]] = {}  # character -> tiles of its locked home
        self.path_cache: dict[tuple, Any] = {}  # path cost per area version (homes.base_cost)
        self.path_memo: dict[tuple, Any] = {}  # recent paths (movement.find_path)
        self.sight_cache: dict[int, Any] = {}  # area id -> (version, see-through mask) (vision)
        # Bodies of crowded areas by cell (vision.BodyIndex), valid until a body is added,
        # moved or removed: every such change goes through _body_moved and counts here.
        self.bodies_moved = 0
        self._body_index: dict[int, tuple[dict, int, Any]] = {}
        # Per area, a [x, y] mask of the tiles a body stands on and the count at which a body
        # last came or went on each, kept as bodies move (detours round bodies and crowd
        # views read them instead of walking every body of a crowd).
        self._body_grids: dict[int, tuple[Area, np.ndarray, np.ndarray]] = {}
        # What a spectator sees of a creature (its place, health, boss phase) changes only
        # through entity_changed: the entities so changed, by id, the latest last, each with
        # the count of such changes at its latest (derived, not state). A frame builder then
        # rebuilds the creatures changed since it last looked instead of reading every one.
        self.entity_changes: dict[int, int] = {}
        self.entity_change_count = 0
        # The characters, in id order, as of (the entities dict, next_id, entity count):
        # characters are never removed, so an entity added or removed, or the dict replaced (a
        # snapshot read in), is what can change the list (derived, not state). Every tick
        # reads it; walking every creature for it was a tenth of a one-character step.
        self._characters: tuple[tuple[Any, int, int], list[Character]] = ((None, 0, -1), [])

    # ------------------------------------------------------------------ creation
    @classmethod
    def create(cls, seed: int = 0, content: Content | None = None, size: int | None = None) -> World:
        content = content or load_content()
        world = cls(content, seed)
        size = int(size or content.map.size)
        if size < 48:
            raise ValueError("the world must be at least 48 tiles wide")
        terrain, amount, marks = generate_surface(world.seed, size, content)
        world.areas[SURFACE] = Area(id=SURFACE, kind="surface", terrain=terrain, amount=amount)
        world.landmarks = marks
        creatures.populate(world)
        return world

    def add_character(self, name: str, label: str = "", grace_nights: int | None = None) -> int:
        """A new character at the plaza; recorded in the input log so a replay re-creates it.
        `grace_nights`: the nights shades spare it (default: the world's setting)."""
        name = str(name)[:32] or "anon"
        grace = self.grace_nights if grace_nights is None else int(grace_nights)
        pos = self.free_tile_near(SURFACE, self.landmarks.plaza)
        char = Character(id=self.next_id, kind="character", area=SURFACE, x=pos[0], y=pos[1],
                         health=self.content.character.max_health,
                         max_health=self.content.character.max_health, name=name,
                         label=str(label)[:32], hunger=self.content.character.max_hunger,
                         energy=self.content.character.max_energy, spawn=pos, surface_pos=pos,
                         joined=self.tick, grace_nights=grace)
        self.next_id += 1
        self.entities[char.id] = char
        self.areas[SURFACE].occupant[pos] = char.id
        self._body_moved(SURFACE, pos[0], pos[1], True)
        self.char_events[char.id] = deque(maxlen=EVENT_MEMORY)
        self.memory[char.id] = vision.Memory()
        join = {"type": "join", "name": name, "label": char.label, "id": char.id}
        if grace:
            join["grace_nights"] = grace
        self.input_log.append((self.tick, None, join))
        self.emit("joined", char=char.id, name=name, label=char.label, x=pos[0], y=pos[1])
        vision.update(self, char)
        return char.id

    # ------------------------------------------------------------------ inputs
    def submit(self, char_id: Any, action: Any) -> ActionResult:
        """Check an action against the rules now; if it passes, queue it for the next tick."""
        try:
            char = self.character(char_id)
            normal = actions.check(self, char, action)
        except Refusal as refusal:
            return ActionResult.refused(refusal)
        op = self.new_op_id()
        self.pending.append((char.id, normal, op))
        return ActionResult(True, "accepted", f"{normal['type']} accepted", op)

    def character(self, char_id: Any) -> Character:
        if isinstance(char_id, bool) or not isinstance(char_id, int):
            raise Refusal(codes.BAD_ARGUMENT, "a character id is a whole number")
        ent = self.entities.get(char_id)
        if not isinstance(ent, Character):
            raise Refusal(codes.UNKNOWN_CHARACTER, f"there is no character {char_id}")
        return ent

    # ------------------------------------------------------------------ the tick
    def step(self, inputs: list[tuple[int, dict[str, Any]]] | None = None) -> list[dict[str, Any]]:
        self.tile_changes = []
        self.structures_changed = False
        self.loot_changed = False
        queued, self.pending = self.pending, []
        for char_id, action in inputs or ():
            queued.append((char_id, action, None))
        for char_id, action, op in queued:
            self._apply_input(char_id, action, op)

        survival.clock_edges(self)
        chars = self.characters()  # characters are never removed, so one list serves the tick
        for char in chars:
            actions.advance(self, char)
        tick = self.tick
        for ent in list(self.entities.values()):
            # most creatures wait for their next move on most ticks (act returns at once)
            if type(ent) is Creature and tick >= ent.next_move and ent.id in self.entities:
                creatures.act(self, ent)
        for char in chars:
            survival.live(self, char)
        survival.world_systems(self)
        dungeons.sweep(self)
        homes.periodic(self)
        vision.update_all(self, chars)
        self.tick += 1
        # Events emitted between steps (a join) travel with the next step's events.
        events, self._events = self._events, []
        return events

    def _apply_input(self, char_id: int, action: dict[str, Any], op: int | None) -> None:
        # Every input takes an operation id, accepted or not, so a re-simulation that feeds the
        # log through step(inputs) numbers operations exactly as the live world did.
        op = op if op is not None else self.new_op_id()
        # Logged whether or not it still passes now: a re-run must fail it the same way.
        self.input_log.append((self.tick, char_id, action))
        try:
            char = self.character(char_id)
            normal = actions.check(self, char, action)
        except Refusal as refusal:
            self.emit("op_failed", char=char_id if isinstance(char_id, int) else None, op=op,
                      type=str(action.get("type")) if isinstance(action, dict) else None,
                      code=refusal.code, message=refusal.message)
            return
        actions.start(self, char, normal, op)

    # ------------------------------------------------------------------ the input log
    @property
    def input_log_end(self) -> int:
        """The absolute number of the next input-log row (rows ever logged)."""
        return self.input_log_base + len(self.input_log)

    def inputs_since(self, row: int) -> list[tuple[int, int | None, dict[str, Any]]]:
        """The logged rows from absolute row number `row` on (forgotten rows are not given)."""
        return self.input_log[max(0, row - self.input_log_base):]

    def forget_inputs(self, before: int) -> None:
        """Drop the rows before absolute row `before` (they are kept elsewhere: a live server's
        store). The world's future does not depend on its log, only re-simulation does."""
        drop = min(max(0, before - self.input_log_base), len(self.input_log))
        if drop:
            del self.input_log[:drop]
            self.input_log_base += drop

    # ------------------------------------------------------------------ events
    def emit(self, kind: str, **fields: Any) -> dict[str, Any]:
        event = {"tick": self.tick, "kind": kind, **fields}
        self._events.append(event)
        for key in ("char", "target"):
            cid = fields.get(key)
            if isinstance(cid, int) and cid in self.char_events:
                self.char_events[cid].append(event)
                if key == "target" and fields.get("char") == cid:
                    break
        return event

    # ------------------------------------------------------------------ geometry
    def area_of(self, ent: Entity) -> Area:
        return self.areas[ent.area]

    def walkable(self, area: Area, x: int, y: int, who: Entity | None = None) -> bool:
        """Can `who` stand on (x, y)? Terrain, structures and other bodies decide."""
        if not area.in_bounds(x, y):
            return False
        # .item: plain ints, not numpy scalars (creatures ask this at each step they take)
        if not self.content.walk_lut.item(area.terrain.item(y, x)):
            return False
        s = area.structures.get((x, y))
        if s is not None and not homes.passable(s, who, self.content):
            return False
        occ = area.occupant.get((x, y))
        return occ is None or (who is not None and occ == who.id)

    def find_free_tile(self, area_id: int, pos: Pos, radius: int | None = None) -> Pos | None:
        """The nearest tile a body can stand on, searched in growing square rings, each ring
        row by row (a fixed order, so the same world always picks the same tile); None when
        there is none within `radius` (default: anywhere in the area)."""
        area = self.areas[area_id]
        x0, y0 = pos
        if radius is None:  # far enough to reach every corner from `pos`
            radius = max(x0, y0, area.width - 1 - x0, area.height - 1 - y0)
        # The first rings tile by tile (the common case: room next to `pos`); past them the
        # rest at once as arrays, in the same order (a crowd would cost a ring scan per join).
        for r in range(min(radius, NEAR_RINGS) + 1):
            for dy in range(-r, r + 1):
                # a ring's top and bottom rows are whole; between them only its two ends
                for dx in range(-r, r + 1) if abs(dy) == r else (-r, r):
                    if self.walkable(area, x0 + dx, y0 + dy):
                        return (x0 + dx, y0 + dy)
        return self._nearest_standable(area, pos, radius) if radius > NEAR_RINGS else None

    def _nearest_standable(self, area: Area, pos: Pos, radius: int) -> Pos | None:
        x0, y0 = pos
        left, top = max(0, x0 - radius), max(0, y0 - radius)
        right, bottom = min(area.width, x0 + radius + 1), min(area.height, y0 + radius + 1)
        if left >= right or top >= bottom:
            return None
        free = self.content.walk_lut[area.terrain[top:bottom, left:right]].copy()
        for taken in (area.occupant, {p: s for p, s in area.structures.items()
                                      if not homes.passable(s, None, self.content)}):
            for x, y in taken:
                if left <= x < right and top <= y < bottom:
                    free[y - top, x - left] = False
        ys, xs = np.nonzero(free)
        if len(ys) == 0:
            return None
        dy, dx = ys + top - y0, xs + left - x0
        first = np.lexsort((dx, dy, np.maximum(np.abs(dx), np.abs(dy))))[0]
        return (int(x0 + dx[first]), int(y0 + dy[first]))

    def free_tile_near(self, area_id: int, pos: Pos, radius: int | None = None) -> Pos:
        """`find_free_tile`, or `world_full` when no tile is left to stand on."""
        found = self.find_free_tile(area_id, pos, radius)
        if found is None:
            where = f"within {radius} tiles of {pos}" if radius is not None else "anywhere"
            raise WorldFull(f"no free tile to stand on {where} in area {area_id}")
        return found

    def body_index(self, area_id: int) -> vision.BodyIndex | None:
        """The bodies of a crowded area by cell, current (built again after any body moved);
        None for an area with few bodies, where walking them all is cheaper."""
        area = self.areas[area_id]
        if len(area.occupant) < vision.CROWD:
            return None
        kept = self._body_index.get(area_id)
        if kept is None or kept[0] is not area.occupant or kept[1] != self.bodies_moved:
            kept = self._body_index[area_id] = (area.occupant, self.bodies_moved,
                                                vision.BodyIndex(area))
        return kept[2]

    def move_entity(self, ent: Entity, x: int, y: int, area_id: int | None = None) -> None:
        old = self.areas[ent.area]
        if old.occupant.get((ent.x, ent.y)) == ent.id:
            del old.occupant[(ent.x, ent.y)]
            self._body_moved(ent.area, ent.x, ent.y, False)
        if area_id is not None:
            ent.area = area_id
        ent.x, ent.y = x, y
        self.areas[ent.area].occupant[(x, y)] = ent.id
        self._body_moved(ent.area, x, y, True)
        self.entity_changed(ent)

    def entity_changed(self, ent: Entity) -> None:
        """Note that a field a spectator sees of a creature changed: its place (move_entity),
        its health or its phase. Every write of those fields calls this (characters' other
        fields change every tick and are not noted: frames build characters every time)."""
        self.entity_change_count += 1
        changes = self.entity_changes
        changes.pop(ent.id, None)  # to the end: the latest change last
        changes[ent.id] = self.entity_change_count

    def entities_changed_since(self, count: int) -> list[int]:
        """The ids of the entities noted by entity_changed after the count of changes was
        `count` (entity_change_count then), latest first."""
        out = []
        for eid, when in reversed(self.entity_changes.items()):
            if when <= count:
                break
            out.append(eid)
        return out

    def body_grid(self, area_id: int) -> np.ndarray:
        """A [x, y] mask of the tiles of an area a body stands on (read only: it is kept up
        to date as bodies move)."""
        area = self.areas[area_id]
        kept = self._body_grids.get(area_id)
        if kept is None or kept[0] is not area:
            for gone in [a for a in self._body_grids if a not in self.areas]:
                del self._body_grids[gone]
            grid = np.zeros((area.width, area.height), dtype=bool)
            if area.occupant:
                xy = np.array(list(area.occupant), dtype=np.int64)
                grid[xy[:, 0], xy[:, 1]] = True
            self.bodies_moved += 1  # every tile counts as changed when the grid is new
            moves = np.full((area.width, area.height), self.bodies_moved, dtype=np.int64)
            kept = self._body_grids[area_id] = (area, grid, moves)
        return kept[1]

    def body_moves(self, area_id: int) -> tuple[np.ndarray, int]:
        """A [x, y] grid of when a body last came onto or left each tile of an area, as a
        count of such changes, and the count now: nothing changed on a tile whose count is
        at most one read before (read only)."""
        self.body_grid(area_id)
        return self._body_grids[area_id][2], self.bodies_moved

    def _body_moved(self, area_id: int, x: int, y: int, standing: bool) -> None:
        """A body came onto (`standing`) or left a tile: counted, and marked on the area's
        grids if it has them."""
        self.bodies_moved += 1
        kept = self._body_grids.get(area_id)
        if kept is not None:
            kept[1][x, y] = standing
            kept[2][x, y] = self.bodies_moved

    def remove_entity(self, ent: Entity) -> None:
        area = self.areas.get(ent.area)
        if area is not None and area.occupant.get((ent.x, ent.y)) == ent.id:
            del area.occupant[(ent.x, ent.y)]
            self._body_moved(ent.area, ent.x, ent.y, False)
        self.entities.pop(ent.id, None)
        self.entity_changes.pop(ent.id, None)

    def add_creature(self, kind: str, area_id: int, pos: Pos, **extra: Any) -> Creature:
        spec = self.content.creatures[kind]
        creature = Creature(id=self.next_id, kind=kind, area=area_id, x=pos[0], y=pos[1],
                            health=int(spec["health"]), max_health=int(spec["health"]),
                            hostile=bool(spec.get("hostile", False)),
                            next_move=self.tick + 1, **extra)
        self.next_id += 1
        self.entities[creature.id] = creature
        self.areas[area_id].occupant[pos] = creature.id
        self._body_moved(area_id, pos[0], pos[1], True)
        return creature

    def set_tile(self, area: Area, x: int, y: int, name: str) -> None:
        code = self.content.tile_code[name]
        if area.terrain[y, x] != code:
            area.terrain[y, x] = code
            area.version += 1
            self.tile_changes.append((area.id, x, y, code))

    def tile_name(self, area: Area, x: int, y: int) -> str:
        return self.content.tiles[int(area.terrain[y, x])]["name"]

    def drop_loot(self, area: Area, pos: Pos, items: dict[str, int], owner: int) -> None:
        if not items:
            return
        bag = area.loot.get(pos)
        expires = self.tick + self.content.knockdown.loot_bag_ticks
        if bag is None:
            area.loot[pos] = LootBag(items=dict(items), expires=expires, owner=owner)
        else:
            for item, n in items.items():
                bag.items[item] = bag.items.get(item, 0) + n
            bag.expires = expires
        self.loot_changed = True

    def new_area(self, kind: str, terrain: np.ndarray, **fields: Any) -> Area:
        area = Area(id=self.next_area, kind=kind, terrain=terrain,
                    amount=np.zeros_like(terrain), **fields)
        self.next_area += 1
        self.areas[area.id] = area
        return area

    def new_op_id(self) -> int:
        op = self.next_op
        self.next_op += 1
        return op

    # ------------------------------------------------------------------ reading
    def characters(self) -> list[Character]:
        (entities, next_id, count), chars = self._characters
        if entities is not self.entities or next_id != self.next_id or count != len(entities):
            chars = [e for e in self.entities.values() if isinstance(e, Character)]
            self._characters = ((self.entities, self.next_id, len(self.entities)), chars)
        return list(chars)

    def time(self) -> dict[str, Any]:
        return clock.time_of(self.tick, self.content)

    def observe(self, char_id: int, *, full_memory: bool = False, consume: bool = True) -> dict:
        return observe(self, self.character(char_id), full_memory=full_memory, consume=consume)

    def observe_text(self, char_id: int, obs: dict | None = None) -> str:
        return observe_text(self, self.character(char_id), obs)

    def state_hash(self) -> str:
        """A stable digest of everything that decides the future (not caches, not memory);
        app/engine/hashing.py."""
        return hashing.state_hash(self)

    # ------------------------------------------------------------------ persistence
    def snapshot(self, *, input_log: bool = True) -> bytes:
        """The whole state as plain-data bytes (app/engine/snapshot.py); `World.restore` brings
        it back with the same future. Without `input_log` the log's rows are counted as
        forgotten (a replay keeps them itself)."""
        return snapshot.dump(self, input_log=input_log)

    @classmethod
    def restore(cls, blob: bytes, content: Content | None = None) -> World:
        """The world a `snapshot` holds; SnapshotError (nothing run, nothing changed) for bytes
        that are not a snapshot of this schema version."""
        state = snapshot.read(blob)
        world = cls(content or load_content(), state["seed"])
        snapshot.fill(world, state, EVENT_MEMORY)
        return world
