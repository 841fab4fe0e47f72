"""The report's figures, drawn with Pillow (no plotting library needed).

Two figures: dungeon performance by difficulty level (clear share, mean damage taken in clears)
and the composition of executed actions by category. Both take the pooled per-configuration data
of `asiworld.evaluation.tables.pool`, so a single run and a comparison of runs draw the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from asiworld.evaluation.measures import CATEGORIES, LEVEL_NAMES, LEVELS
from PIL import Image, ImageDraw, ImageFont

BACKGROUND = (255, 255, 255)
INK = (33, 37, 41)
MUTED = (120, 125, 130)
GRID = (226, 229, 233)
# Tableau 10 plus a neutral grey: distinct, print-safe, and familiar to readers of papers.
PALETTE = (
    (78, 121, 167),
    (242, 142, 43),
    (225, 87, 89),
    (118, 183, 178),
    (89, 161, 79),
    (237, 201, 72),
    (176, 122, 161),
    (255, 157, 167),
    (156, 117, 95),
    (186, 176, 172),
    (96, 99, 106),
)


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _text(draw: ImageDraw.ImageDraw, xy, text: str, size: int, fill=INK, anchor="la") -> None:
    draw.text(xy, text, font=_font(size), fill=fill, anchor=anchor)


def _legend(draw, items: list[tuple[str, tuple]], x: int, y: int, width: int) -> int:
    """Colour keys in rows starting at (x, y); returns the y below the legend."""
    cx, cy = x, y
    for label, colour in items:
        w = 22 + int(draw.textlength(label, font=_font(14))) + 18
        if cx + w > x + width and cx > x:
            cx, cy = x, cy + 24
        draw.rounded_rectangle([cx, cy + 2, cx + 14, cy + 16], radius=3, fill=colour)
        _text(draw, (cx + 20, cy + 1), label, 14)
        cx += w
    return cy + 24


def _panel(
    draw,
    box: tuple[int, int, int, int],
    title: str,
    names: list[str],
    values: dict[str, dict[int, float | None]],
    top: float,
    label,
    axis_label,
) -> None:
    """Grouped bars: one group per difficulty level, one bar per configuration."""
    x0, y0, x1, y1 = box
    _text(draw, ((x0 + x1) // 2, y0), title, 17, anchor="ma")
    px0, py0, px1, py1 = x0 + 52, y0 + 34, x1 - 8, y1 - 44
    for i in range(5):  # horizontal grid with axis values
        y = py1 - (py1 - py0) * i / 4
        draw.line([px0, y, px1, y], fill=GRID, width=1)
        _text(draw, (px0 - 8, y), axis_label(top * i / 4), 13, fill=MUTED, anchor="rm")
    draw.line([px0, py1, px1, py1], fill=INK, width=1)
    group_w = (px1 - px0) / len(LEVELS)
    n = max(1, len(names))
    bar_w = min(34.0, (group_w - 18) / n)
    for gi, level in enumerate(LEVELS):
        gx = px0 + gi * group_w
        start = gx + (group_w - bar_w * n) / 2
        for ni, name in enumerate(names):
            value = values.get(name, {}).get(level)
            bx = start + ni * bar_w
            colour = PALETTE[ni % len(PALETTE)]
            if value is None:  # no attempt / no clear: a thin mark, not a zero bar
                _text(draw, (bx + bar_w / 2, py1 - 4), "·", 14, fill=MUTED, anchor="mb")
                continue
            h = 0 if top <= 0 else (py1 - py0) * min(value, top) / top
            draw.rectangle([bx + 2, py1 - h, bx + bar_w - 2, py1], fill=colour)
            text = label(value)
            if draw.textlength(text, font=_font(11)) <= bar_w:  # never let labels collide
                _text(draw, (bx + bar_w / 2, py1 - h - 3), text, 11, anchor="mb")
        _text(draw, (gx + group_w / 2, py1 + 8), f"Level {level}", 14, anchor="ma")
        _text(draw, (gx + group_w / 2, py1 + 25), LEVEL_NAMES[level], 12, fill=MUTED, anchor="ma")


def dungeon_figure(path: Path, pooled: dict[str, dict[str, Any]]) -> Path:
    """Two panels: share of attempts that defeat the boss, and mean damage taken in clears."""
    names = list(pooled)
    share: dict[str, dict[int, float | None]] = {}
    damage: dict[str, dict[int, float | None]] = {}
    for name, data in pooled.items():
        share[name], damage[name] = {}, {}
        for level in LEVELS:
            d = data["dungeons"][str(level)]
            share[name][level] = d["clears"] / d["attempts"] if d["attempts"] else None
            damage[name][level] = d["clear_damage"] / d["clears"] if d["clears"] else None
    top_damage = max((v for row in damage.values() for v in row.values() if v), default=0)
    top_damage = _nice_ceiling(top_damage)

    width = 1280
    img = Image.new("RGB", (width, 600), BACKGROUND)
    draw = ImageDraw.Draw(img)
    _text(draw, (24, 18), "Dungeon performance by difficulty", 22)
    _text(
        draw,
        (24, 48),
        "Left: share of attempts that defeat the level's boss (%). Right: mean damage taken in "
        "clears.  · = no attempt / no clear",
        14,
        fill=MUTED,
    )
    half = (width - 48) // 2
    _panel(
        draw, (24, 86, 24 + half - 16, 520), "Clear share", names, share, 1.0,
        lambda v: f"{round(v * 100)}", lambda v: f"{round(v * 100)}%",
    )  # fmt: skip
    _panel(
        draw, (24 + half + 16, 86, width - 24, 520), "Mean damage in clears", names, damage,
        top_damage, lambda v: f"{v:.0f}", lambda v: f"{v:.0f}",
    )  # fmt: skip
    items = [(n, PALETTE[i % len(PALETTE)]) for i, n in enumerate(names)]
    bottom = _legend(draw, items, 76, 540, width - 100)
    img = img.crop((0, 0, width, max(600, bottom + 16)))
    img.save(path, "PNG", optimize=True)
    return path


def actions_figure(path: Path, pooled: dict[str, dict[str, Any]]) -> Path:
    """One stacked bar per configuration: the share of its executed actions in each category."""
    names = list(pooled)
    width = max(760, 180 + 110 * len(names))
    height = 620
    img = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(img)
    _text(draw, (24, 18), "Executed actions by category", 22)
    _text(draw, (24, 48), "Share of each configuration's accepted actions; total above the bar.",
          14, fill=MUTED)  # fmt: skip
    legend_w = 170
    px0, py0, px1, py1 = 76, 100, width - legend_w - 24, height - 70
    for i in range(5):
        y = py1 - (py1 - py0) * i / 4
        draw.line([px0, y, px1, y], fill=GRID, width=1)
        _text(draw, (px0 - 8, y), f"{25 * i}%", 13, fill=MUTED, anchor="rm")
    slot = (px1 - px0) / max(1, len(names))
    bar_w = min(64.0, slot * 0.6)
    for ni, name in enumerate(names):
        counts = pooled[name]["actions"]
        total = sum(counts.get(c, 0) for c in CATEGORIES)
        cx = px0 + slot * ni + slot / 2
        y = float(py1)
        for ci, category in enumerate(CATEGORIES):
            count = counts.get(category, 0)
            if not total or not count:
                continue
            h = (py1 - py0) * count / total
            draw.rectangle([cx - bar_w / 2, y - h, cx + bar_w / 2, y], fill=PALETTE[ci])
            if h >= 16:
                _text(draw, (cx, y - h / 2), f"{round(100 * count / total)}%", 11,
                      fill=_ink_on(PALETTE[ci]), anchor="mm")  # fmt: skip
            y -= h
        _text(draw, (cx, (y if total else py1) - 4), str(total), 13, anchor="mb")
        _text(draw, (cx, py1 + 10), _fit(draw, name, slot - 6), 14, anchor="ma")
    draw.line([px0, py1, px1, py1], fill=INK, width=1)
    lx = width - legend_w
    _text(draw, (lx, py0 - 24), "Category", 14, fill=MUTED)
    for ci, category in enumerate(reversed(CATEGORIES)):  # same top-to-bottom order as the bars
        colour = PALETTE[len(CATEGORIES) - 1 - ci]
        ly = py0 + ci * 24
        draw.rounded_rectangle([lx, ly + 2, lx + 14, ly + 16], radius=3, fill=colour)
        _text(draw, (lx + 20, ly + 1), category, 14)
    img.save(path, "PNG", optimize=True)
    return path


def _ink_on(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    """Dark text on light fills, white on dark ones, so every label stays readable."""
    r, g, b = colour
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else BACKGROUND


def _fit(draw, text: str, width: float) -> str:
    """Shorten a label with an ellipsis so neighbouring labels never overlap."""
    font = _font(14)
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text + "…"


def _nice_ceiling(value: float) -> float:
    """A round axis maximum at or above `value` (10, 20, 25, 50, 100, ...)."""
    if value <= 0:
        return 10.0
    step = 1.0
    while True:
        for m in (1, 2, 2.5, 5):
            if value <= m * step * 10:
                return m * step * 10
        step *= 10
