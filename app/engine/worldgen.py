"""The surface map, generated from a seed: noise fields decide water, sand, grass, forest and
rock; a river crosses the map; the plaza sits at the centre with the merchant, the three gates
at increasing distance, and the altar far out. Roads of bare ground keep all of them reachable."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .content import Content
from .seeding import surface_rng


@dataclass
class Landmarks:
    plaza: tuple[int, int]
    merchant: tuple[int, int]
    gates: list[tuple[int, int]]  # tier 1, 2, 3
    altar: tuple[int, int]


def _noise(rng: np.random.Generator, size: int, cells: int) -> np.ndarray:
    """Smooth value noise: a coarse random grid, bilinearly upsampled."""
    grid = rng.random((cells + 1, cells + 1))
    coords = np.linspace(0, cells, size, endpoint=False)
    i = coords.astype(int)
    f = coords - i
    f = f * f * (3 - 2 * f)  # smoothstep, so cell edges do not show
    rows0 = grid[i][:, i] * (1 - f)[None, :] + grid[i][:, i + 1] * f[None, :]
    rows1 = grid[i + 1][:, i] * (1 - f)[None, :] + grid[i + 1][:, i + 1] * f[None, :]
    return rows0 * (1 - f)[:, None] + rows1 * f[:, None]


def _fractal(rng: np.random.Generator, size: int) -> np.ndarray:
    total = _noise(rng, size, 4) * 0.55 + _noise(rng, size, 8) * 0.3 + _noise(rng, size, 16) * 0.15
    return (total - total.min()) / max(1e-9, total.max() - total.min())


def generate_surface(seed: int, size: int, content: Content) -> tuple[np.ndarray, np.ndarray, Landmarks]:
    """Return (terrain codes [y, x], resource amounts, landmarks)."""
    rng = surface_rng(seed)
    T = content.tile_code
    height = _fractal(rng, size)
    moisture = _fractal(rng, size)
    ore = rng.random((size, size))

    terrain = np.full((size, size), T["grass"], dtype=np.uint8)
    thicket = rng.random((size, size))
    terrain[(moisture > 0.6) & (thicket < 0.8)] = T["tree"]
    terrain[(moisture > 0.5) & (moisture <= 0.6) & (thicket < 0.15)] = T["tree"]
    rock = height > 0.74
    terrain[rock] = T["rock"]
    terrain[rock & (ore < 0.10)] = T["coal"]
    terrain[rock & (ore > 0.93)] = T["iron"]
    terrain[(height < 0.24)] = T["sand"]
    terrain[(height < 0.19)] = T["water"]
    _carve_river(terrain, rng, size, T)

    grass = terrain == T["grass"]
    plants = rng.random((size, size))
    terrain[grass & (plants < content.map.flax_density)] = T["flax"]
    terrain[grass & (plants > 1 - content.map.bush_density)] = T["bush"]

    marks = _place_landmarks(terrain, rng, size, content)

    amount = np.zeros((size, size), dtype=np.uint8)
    for name, src in content.sources.items():
        if "amount" in src:
            amount[terrain == T[name]] = src["amount"]
    return terrain, amount, marks


def _carve_river(terrain: np.ndarray, rng: np.random.Generator, size: int, T: dict) -> None:
    """A river wanders from the top edge to the bottom edge, two tiles wide, sand on its banks."""
    x = int(rng.integers(size // 5, size // 3))
    for y in range(size):
        x = int(np.clip(x + rng.integers(-1, 2), 2, size - 4))
        terrain[y, max(0, x - 2)] = T["sand"] if terrain[y, max(0, x - 2)] != T["water"] else T["water"]
        terrain[y, x:x + 2] = T["water"]
        if terrain[y, x + 2] != T["water"]:
            terrain[y, x + 2] = T["sand"]


def _place_landmarks(terrain: np.ndarray, rng: np.random.Generator, size: int,
                     content: Content) -> Landmarks:
    T = content.tile_code
    c = size // 2
    r = content.map.plaza_radius
    # Open country around the plaza, so newcomers are not walled in by rock or forest.
    ring = r + 5
    yy, xx = np.mgrid[-ring:ring + 1, -ring:ring + 1]
    near = terrain[c - ring:c + ring + 1, c - ring:c + ring + 1]
    near[(np.hypot(xx, yy) <= ring) & ~np.isin(near, [T["water"], T["sand"]])] = T["grass"]
    terrain[c - r:c + r + 1, c - r:c + r + 1] = T["plaza"]
    merchant = (c + 2, c - 2)
    terrain[merchant[1], merchant[0]] = T["merchant"]

    # Gates and the altar lie along directions picked by the seed, each reached by a road.
    angles = rng.permutation(8)[:4] * (np.pi / 4) + rng.random() * 0.3
    gates: list[tuple[int, int]] = []
    for dist, angle in zip(content.map.gate_distances, angles[:3], strict=True):
        gates.append(_polar(c, dist, angle, size))
    altar = _polar(c, content.map.altar_distance, angles[3], size)
    for tier, (gx, gy) in enumerate(gates, start=1):
        _road(terrain, (c, c), (gx, gy), T)
        _clear(terrain, gx, gy, 1, T)
        terrain[gy, gx] = T[f"gate_{tier}"]
    _road(terrain, (c, c), altar, T)
    _clear(terrain, altar[0], altar[1], 2, T)
    terrain[altar[1], altar[0]] = T["altar"]
    terrain[c - r:c + r + 1, c - r:c + r + 1] = np.where(
        terrain[c - r:c + r + 1, c - r:c + r + 1] == T["merchant"], T["merchant"], T["plaza"])
    return Landmarks(plaza=(c, c), merchant=merchant, gates=gates, altar=altar)


def _polar(c: int, dist: int, angle: float, size: int) -> tuple[int, int]:
    x = int(round(c + dist * np.cos(angle)))
    y = int(round(c + dist * np.sin(angle)))
    return int(np.clip(x, 3, size - 4)), int(np.clip(y, 3, size - 4))


def _clear(terrain: np.ndarray, x: int, y: int, r: int, T: dict) -> None:
    patch = terrain[y - r:y + r + 1, x - r:x + r + 1]
    solid = ~np.isin(patch, [T["grass"], T["sand"], T["ground"], T["plaza"]])
    patch[solid] = T["ground"]


def _road(terrain: np.ndarray, start: tuple[int, int], end: tuple[int, int], T: dict) -> None:
    """An L-shaped road of bare ground (bridging water) from start to end."""
    (x0, y0), (x1, y1) = start, end
    # A later road must not pave over a gate or the altar placed before it.
    keep = (T["plaza"], T["merchant"], T["gate_1"], T["gate_2"], T["gate_3"], T["altar"])
    for x in range(min(x0, x1), max(x0, x1) + 1):
        if terrain[y0, x] not in keep:
            terrain[y0, x] = T["ground"]
    for y in range(min(y0, y1), max(y0, y1) + 1):
        if terrain[y, x1] not in keep:
            terrain[y, x1] = T["ground"]
