"""Dungeon instances as data: rooms joined by corridors, an entrance, enemies, chests with coins
and supplies, and a boss room with the exit portal. A layout depends only on (world seed,
character, tier, entry count), so the same entry always gives the same instance and the next
entry a fresh one. The Shadow Sanctum is one pillared hall with the King before the portal."""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .content import Content
from .seeding import dungeon_rng

Pos = tuple[int, int]
Room = tuple[int, int, int, int]  # x, y, w, h (floor tiles x..x+w-1, y..y+h-1)


@dataclass
class Layout:
    terrain: np.ndarray
    entrance: Pos
    portal: Pos
    boss: Pos
    enemies: list[Pos] = field(default_factory=list)
    enemy_coins: list[int] = field(default_factory=list)
    boss_coins: int = 0
    chests: dict[Pos, dict[str, Any]] = field(default_factory=dict)  # pos -> {coins, items}
    rooms: list[Room] = field(default_factory=list)


def generate_instance(content: Content, seed: int, char_id: int, tier: int, count: int) -> Layout:
    spec = content.raw["dungeons"]["tiers"][str(tier)]
    rules = content.raw["dungeons"]["rules"]
    rng = dungeon_rng(seed, char_id, tier, count)
    T = content.tile_code
    width, height = int(spec["width"]), int(spec["height"])
    terrain = np.full((height, width), T["dungeon_wall"], dtype=np.uint8)
    rooms = _place_rooms(
        rng, width, height, int(spec["rooms"]), int(spec["room_min"]), int(spec["room_max"])
    )
    for x, y, w, h in rooms:
        terrain[y : y + h, x : x + w] = T["dungeon_floor"]
    _connect(rng, terrain, rooms, T["dungeon_floor"])

    entrance = _centre(rooms[0])
    walk = terrain == T["dungeon_floor"]
    dist = _distances(walk, entrance)
    boss_room = max(rooms[1:], key=lambda r: (dist[_centre(r)[1], _centre(r)[0]], r))
    portal = _farthest_in(boss_room, dist)
    boss = _centre(boss_room)
    if boss == portal:
        boss = (boss[0] - 1, boss[1]) if boss[0] - 1 >= boss_room[0] else (boss[0] + 1, boss[1])
    terrain[entrance[1], entrance[0]] = T["entrance"]
    terrain[portal[1], portal[0]] = T["portal_closed"]

    taken = {entrance, portal, boss}
    chest_rooms = [r for r in rooms[1:] if r != boss_room] or [boss_room]
    chests = _place_chests(rng, terrain, walk, chest_rooms, int(spec["chests"]), taken, T["chest"])
    taken |= set(chests)

    far = int(rules["enemy_min_distance"])
    spots = sorted(
        (x, y)
        for r in rooms[1:]
        for y in range(r[1], r[1] + r[3])
        for x in range(r[0], r[0] + r[2])
        if (x, y) not in taken
        and max(abs(x - entrance[0]), abs(y - entrance[1])) >= far
        and terrain[y, x] == T["dungeon_floor"]
    )
    enemies = rng.sample(spots, min(int(spec["enemies"]), len(spots)))

    layout = Layout(
        terrain=terrain, entrance=entrance, portal=portal, boss=boss, enemies=enemies, rooms=rooms
    )
    _share_coins(rng, layout, spec, rules, chests)
    return layout


def generate_sanctum(content: Content, seed: int, char_id: int, count: int) -> Layout:
    spec = content.raw["dungeons"]["sanctum"]
    rng = dungeon_rng(seed, char_id, int(spec["tier"]), count)
    T = content.tile_code
    width, height = int(spec["width"]), int(spec["height"])
    terrain = np.full((height, width), T["dungeon_wall"], dtype=np.uint8)
    terrain[1 : height - 1, 1 : width - 1] = T["sanctum_floor"]
    cx = width // 2
    # Pillars in rows, never in the middle aisle, so the hall stays one open space.
    for y in range(4, height - 4, 4):
        for x in range(3 + rng.randrange(2), width - 3, 5):
            if abs(x - cx) > 1:
                terrain[y, x] = T["dungeon_wall"]
    entrance = (cx, height - 2)
    portal = (cx, 1)
    boss = (cx, 4)
    terrain[entrance[1], entrance[0]] = T["entrance"]
    terrain[portal[1], portal[0]] = T["portal_closed"]
    return Layout(
        terrain=terrain,
        entrance=entrance,
        portal=portal,
        boss=boss,
        rooms=[(1, 1, width - 2, height - 2)],
    )


def _place_rooms(
    rng: random.Random, width: int, height: int, n: int, lo: int, hi: int
) -> list[Room]:
    rooms: list[Room] = []
    for _ in range(n * 40):
        if len(rooms) >= n:
            break
        w, h = rng.randint(lo, hi), rng.randint(lo, hi)
        x, y = rng.randint(1, width - w - 1), rng.randint(1, height - h - 1)
        # A one-tile wall between rooms, so rooms meet only through corridors.
        if all(
            x + w + 1 <= rx or rx + rw + 1 <= x or y + h + 1 <= ry or ry + rh + 1 <= y
            for rx, ry, rw, rh in rooms
        ):
            rooms.append((x, y, w, h))
    if len(rooms) < 3:
        raise ValueError("dungeon too small for its rooms; check dungeons.toml sizes")
    return rooms


def _centre(room: Room) -> Pos:
    x, y, w, h = room
    return (x + w // 2, y + h // 2)


def _connect(rng: random.Random, terrain: np.ndarray, rooms: list[Room], floor: int) -> None:
    """Each room joins the nearest earlier room by an L-shaped corridor: a tree, so every room
    is reachable from the first."""
    for i in range(1, len(rooms)):
        ax, ay = _centre(rooms[i])
        bx, by = min(
            (_centre(r) for r in rooms[:i]), key=lambda c: (abs(c[0] - ax) + abs(c[1] - ay), c)
        )
        if rng.random() < 0.5:
            terrain[ay, min(ax, bx) : max(ax, bx) + 1] = floor
            terrain[min(ay, by) : max(ay, by) + 1, bx] = floor
        else:
            terrain[min(ay, by) : max(ay, by) + 1, ax] = floor
            terrain[by, min(ax, bx) : max(ax, bx) + 1] = floor


def _distances(walk: np.ndarray, start: Pos) -> np.ndarray:
    """Steps from `start` over walkable tiles (-1 where unreachable)."""
    h, w = walk.shape
    dist = np.full((h, w), -1, dtype=np.int32)
    dist[start[1], start[0]] = 0
    queue = deque([start])
    while queue:
        x, y = queue.popleft()
        d = dist[y, x] + 1
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if 0 <= nx < w and 0 <= ny < h and walk[ny, nx] and dist[ny, nx] < 0:
                dist[ny, nx] = d
                queue.append((nx, ny))
    return dist


def _farthest_in(room: Room, dist: np.ndarray) -> Pos:
    x, y, w, h = room
    tiles = [(dist[ty, tx], (tx, ty)) for ty in range(y, y + h) for tx in range(x, x + w)]
    return max(tiles)[1]


def _place_chests(
    rng: random.Random,
    terrain: np.ndarray,
    walk: np.ndarray,
    rooms: list[Room],
    n: int,
    taken: set[Pos],
    chest: int,
) -> list[Pos]:
    """Chests stand in room corners, and only where they cut no way through the dungeon."""
    corners = []
    for x, y, w, h in rooms:
        corners += [(x, y), (x + w - 1, y), (x, y + h - 1), (x + w - 1, y + h - 1)]
    rng.shuffle(corners)
    placed: list[Pos] = []
    for pos in corners:
        if len(placed) >= n:
            break
        if pos in taken or pos in placed or not _cuts_nothing(walk, *pos):
            continue
        walk[pos[1], pos[0]] = False
        terrain[pos[1], pos[0]] = chest
        placed.append(pos)
    return placed


_RING = ((-1, -1), (0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0))


def _cuts_nothing(walk: np.ndarray, x: int, y: int) -> bool:
    """Can (x, y) be walled up without parting anything? Yes when the open tiles around it that
    touch it (n, s, e, w) are joined to each other through its ring of eight neighbours: then
    every way through it has a way around it."""
    h, w = walk.shape
    ring = {
        (x + dx, y + dy)
        for dx, dy in _RING
        if 0 <= x + dx < w and 0 <= y + dy < h and walk[y + dy, x + dx]
    }
    touching = [p for p in ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)) if p in ring]
    if len(touching) <= 1:
        return True
    seen = {touching[0]}
    stack = [touching[0]]
    while stack:
        px, py = stack.pop()
        for q in ((px + 1, py), (px - 1, py), (px, py + 1), (px, py - 1)):
            if q in ring and q not in seen:
                seen.add(q)
                stack.append(q)
    return all(p in seen for p in touching)


def _share_coins(
    rng: random.Random, layout: Layout, spec: dict, rules: dict, chests: list[Pos]
) -> None:
    """The instance's coins, drawn from the tier's range, split between chests and enemies so
    that opening every chest and defeating every enemy yields exactly the drawn total."""
    lo, hi = spec["coins"]
    total = rng.randint(int(lo), int(hi))
    in_chests = int(total * float(rules["chest_share"])) if chests else 0
    for i, pos in enumerate(chests):
        coins = in_chests // len(chests) + (1 if i < in_chests % len(chests) else 0)
        item, count = rng.choice(spec["chest_loot"])
        layout.chests[pos] = {"coins": coins, "items": {str(item): int(count)}}
    rest = total - in_chests
    shares = len(layout.enemies) + int(rules["boss_coin_weight"])
    each = rest // shares
    layout.enemy_coins = [each] * len(layout.enemies)
    layout.boss_coins = rest - each * len(layout.enemies)
