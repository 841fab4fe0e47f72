"""The character's view as an RGB picture, drawn with the browser's sprite atlas (Pillow).

`ViewPainter.paint(obs)` turns one observation into a `(WINDOW * 16, WINDOW * 16, 3)` uint8
array: terrain, floors, structures, loot bags and entities as `app/static/js/render.js` draws
them (the same sprite names and the same name normalisation), the character at the centre, and
black where the character cannot see. It reads the observation only, never the world.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import numpy as np
from asiworld.resources import PACKAGE_DIR

SPRITES = PACKAGE_DIR / "static" / "sprites"
CHARACTER_SPRITES = 8  # render.js: character, character_1 .. character_7


@cache
def atlas() -> tuple[dict[str, list[int]], int, np.ndarray]:
    """(sprite name -> [x, y], tile size, the atlas as float RGBA in 0..1)."""
    from PIL import Image

    index = json.loads((SPRITES / "atlas.json").read_text(encoding="utf-8"))
    with Image.open(SPRITES / "atlas.png") as image:
        pixels = np.asarray(image.convert("RGBA"), dtype=np.float32) / 255.0
    return index["sprites"], int(index["tile"]), pixels


def find(name: str | None) -> list[int] | None:
    """render.js's Atlas.find: lower case, spaces and dashes to `_`, a plural's `s` dropped."""
    if not name:
        return None
    sprites = atlas()[0]
    key = "_".join(str(name).lower().replace("-", " ").split())
    return sprites.get(key) or sprites.get(key.removesuffix("s"))


def entity_sprite(e: dict[str, Any]) -> str:
    if e["kind"] == "character":
        if e.get("down"):
            return "character_down"
        n = abs(int(e["id"])) % CHARACTER_SPRITES
        return f"character_{n}" if n else "character"
    if e["kind"] == "sheep" and e.get("wool") is False:
        return "sheep_shorn"
    return e["kind"]


def structure_sprite(s: dict[str, Any]) -> str:
    return "locked_door" if s["kind"] == "door" and s.get("locked") else s["kind"]


class ViewPainter:
    def __init__(self, legend: dict[str, str], window: int) -> None:
        _, tile, pixels = atlas()
        self.tile, self.window, self.pixels = tile, window, pixels
        # One opaque RGB tile per terrain character; unknown names stay mid grey.
        self.lut = np.zeros(256, np.int64)
        terrain = [np.zeros((tile, tile, 3), np.float32)]  # 0: not visible (black)
        for ch, name in sorted(legend.items()):
            if ch == " ":
                continue
            self.lut[ord(ch)] = len(terrain)
            sprite = self.cut(find(name))
            terrain.append(sprite[..., :3] * sprite[..., 3:] + 0.24 * (1 - sprite[..., 3:]))
        self.terrain = np.stack(terrain)

    def cut(self, at: list[int] | None) -> np.ndarray:
        t = self.tile
        if at is None:
            return np.zeros((t, t, 4), np.float32)
        return self.pixels[at[1]:at[1] + t, at[0]:at[0] + t]

    def paint(self, obs: dict) -> np.ndarray:
        me, view, n, t = obs["self"], obs["view"], self.window, self.tile
        left, top = me["x"] - n // 2, me["y"] - n // 2
        codes = np.zeros((n, n), np.int64)
        for row, line in enumerate(view["tiles"]):
            y = view["y0"] + row - top
            if 0 <= y < n:
                for col, ch in enumerate(line):
                    x = view["x0"] + col - left
                    if 0 <= x < n:
                        codes[y, x] = self.lut[ord(ch) & 0xFF]
        canvas = self.terrain[codes].transpose(0, 2, 1, 3, 4).reshape(n * t, n * t, 3).copy()
        marks = [(f, "floor") for f in obs.get("floors", [])]
        marks += [(s, structure_sprite(s)) for s in obs.get("structures", [])]
        marks += [(b, "loot") for b in obs.get("loot", [])]
        marks += [(e, entity_sprite(e)) for e in obs.get("entities", [])]
        marks.append((me, entity_sprite({"kind": "character", **me})))
        for thing, name in marks:
            x, y = thing["x"] - left, thing["y"] - top
            if 0 <= x < n and 0 <= y < n and codes[y, x]:
                sprite = self.cut(find(name))
                cell = canvas[y * t:(y + 1) * t, x * t:(x + 1) * t]
                cell[:] = sprite[..., :3] * sprite[..., 3:] + cell * (1 - sprite[..., 3:])
        return (canvas * 255 + 0.5).astype(np.uint8)
