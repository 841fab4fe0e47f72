"""Drawing a spectator state as a picture (for `asiworld replay export`): terrain colours,
structures as squares, loot as dots, creatures and characters as filled circles, and a header line.

This is a ground-truth map for sharing a moment, not the browser's sprite renderer.
"""

from __future__ import annotations

import zlib
from typing import Any

from PIL import Image, ImageDraw

Colour = tuple[int, int, int]

TERRAIN: dict[str, Colour] = {
    "grass": (106, 168, 79),
    "sand": (222, 205, 146),
    "ground": (150, 120, 85),
    "plaza": (200, 190, 170),
    "water": (64, 120, 200),
    "tree": (34, 96, 40),
    "rock": (110, 110, 110),
    "coal": (45, 45, 45),
    "iron": (170, 120, 100),
    "flax": (150, 190, 230),
    "flax_picked": (120, 150, 90),
    "bush": (160, 40, 80),
    "bush_picked": (90, 120, 60),
    "gate_1": (240, 200, 60),
    "gate_2": (240, 150, 40),
    "gate_3": (220, 80, 40),
    "altar": (230, 230, 255),
    "merchant": (255, 215, 0),
    "dungeon_floor": (90, 80, 70),
    "dungeon_wall": (40, 35, 30),
    "entrance": (200, 170, 90),
    "portal_closed": (90, 60, 120),
    "portal_open": (190, 120, 255),
    "chest": (200, 140, 40),
    "chest_open": (120, 90, 40),
    "sanctum_floor": (60, 40, 80),
    "void": (0, 0, 0),
}
STRUCTURES: dict[str, Colour] = {
    "wall": (90, 60, 40),
    "door": (160, 110, 60),
    "floor": (190, 160, 120),
    "bed": (200, 60, 60),
}
STATION: Colour = (240, 240, 240)
CREATURES: dict[str, Colour] = {
    "sheep": (250, 250, 250),
    "boar": (120, 70, 40),
    "shade": (70, 0, 110),
}
HOSTILE: Colour = (200, 30, 30)
LOOT: Colour = (255, 230, 0)
HEADER_HEIGHT = 14


def _stable_colour(name: str, lo: int = 60) -> Colour:
    """A colour derived from a name, the same on every run (no random or hash() salt)."""
    h = zlib.crc32(name.encode())
    return tuple(lo + ((h >> s) & 0xFF) * (255 - lo) // 255 for s in (0, 8, 16))  # type: ignore[return-value]


def character_colour(char_id: int) -> Colour:
    return _stable_colour(f"character-{char_id}", lo=90)


def scale_for(width: int, height: int, target: int = 512) -> int:
    return max(1, target // max(width, height, 1))


def _clock_line(state: dict[str, Any]) -> str:
    time = state.get("time") or {}
    parts = [f"tick {state.get('tick', 0)}"]
    if "day" in time:
        minute = time.get("minute")
        parts.append(f"day {time['day']}" + (f" min {minute}" if minute is not None else ""))
    if "phase" in time:
        parts.append(str(time["phase"]))
    return "  ".join(parts)


def _legend(raw: Any) -> dict[int, str]:
    """Tile code -> name; the engine sends a list (index = code), a dict is accepted too."""
    if isinstance(raw, list):
        return dict(enumerate(raw))
    return {int(code): name for code, name in (raw or {}).items()}


def render_state(
    state: dict[str, Any],
    *,
    area: str = "0",
    scale: int | None = None,
    names: dict[int, str] | None = None,
    focus: int | None = None,
) -> Image.Image:
    """The ground-truth picture of one area of `state` (an applied-frame state)."""
    body = state["areas"][str(area)]
    w, h = int(body["w"]), int(body["h"])
    scale = scale or scale_for(w, h)
    legend = _legend(state.get("legend"))
    palette = [TERRAIN.get(legend.get(code, ""), _stable_colour(f"t{code}")) for code in range(256)]
    flat = bytes(c for code in body["tiles"] for c in palette[code])
    terrain = Image.frombytes("RGB", (w, h), flat).resize((w * scale, h * scale), Image.NEAREST)
    image = Image.new("RGB", (w * scale, h * scale + HEADER_HEIGHT), (20, 20, 20))
    image.paste(terrain, (0, HEADER_HEIGHT))
    draw = ImageDraw.Draw(image)

    def cell(x: int, y: int, inset: int = 0) -> tuple[int, int, int, int]:
        top = HEADER_HEIGHT + y * scale
        return (
            x * scale + inset,
            top + inset,
            (x + 1) * scale - 1 - inset,
            top + scale - 1 - inset,
        )

    def here(thing: dict) -> bool:
        return str(thing.get("area", 0)) == str(area)

    for s in state.get("structures") or []:
        if here(s):
            colour = STRUCTURES.get(s.get("kind", ""), STATION)
            draw.rectangle(cell(s["x"], s["y"], inset=0 if s.get("kind") == "floor" else 1), colour)
    for bag in state.get("loot") or []:
        if here(bag):
            draw.rectangle(cell(bag["x"], bag["y"], inset=max(1, scale // 3)), LOOT)
    entities = sorted(
        state.get("entities", {}).values(), key=lambda e: e.get("kind") == "character"
    )
    for ent in entities:
        if not here(ent):
            continue
        if ent.get("kind") == "character":
            box = cell(ent["x"], ent["y"], inset=-1 if scale >= 4 else 0)
            draw.ellipse(box, character_colour(ent["id"]), outline=(0, 0, 0))
        else:
            colour = CREATURES.get(ent.get("kind", ""), HOSTILE)
            draw.ellipse(cell(ent["x"], ent["y"], inset=max(0, scale // 4)), colour)
    if focus is not None and str(focus) in state["entities"]:
        ent = state["entities"][str(focus)]
        if here(ent):
            draw.rectangle(cell(ent["x"], ent["y"], inset=-scale), outline=(255, 255, 255))
    line = _clock_line(state)
    if names:
        groups: dict[str, int] = {}
        for name in names.values():
            groups[name] = groups.get(name, 0) + 1
        line += "   " + "  ".join(f"{n} x{k}" for n, k in groups.items())
    draw.text((3, 1), line, fill=(240, 240, 240))
    return image
