"""Colours the viewer draws with: each character in its configuration's colour from the one
palette (the evaluation page's and the figures'), the timeline's phases (idle too) and the
dungeon's floor against its walls at least 3:1 apart (WCAG 2.1's contrast for graphics, 1.4.11).
"""

from __future__ import annotations

import json
import re

from asiworld.evaluation.palette import colours
from asiworld.resources import PACKAGE_DIR
from PIL import Image

STATIC = PACKAGE_DIR / "static"
TIMELINE_BACKGROUND = "#15161d"  # replay-timeline.js drawBase()


def luminance(rgb: tuple[float, float, float]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def rgb(hex_colour: str) -> tuple[int, int, int]:
    h = hex_colour.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def test_contrast_is_the_wcag_ratio():
    assert round(contrast(rgb("#000000"), rgb("#ffffff")), 1) == 21.0
    assert contrast(rgb("#777777"), rgb("#777777")) == 1.0


def test_each_character_comes_with_its_configurations_colour(client):
    body = client.get("/api/replays/demo").get_json()
    labels = [c["label"] for c in body["characters"]]
    want = colours(labels)
    assert [c["colour"] for c in body["characters"]] == [want[label] for label in labels]
    assert {c["name"]: c["colour"] for c in body["configurations"]} == want
    assert want["planner"] == "#0072b2"  # palette.json's, as in the report figures


def test_the_viewer_draws_characters_in_the_colours_the_server_hands_it():
    js = (STATIC / "js" / "replay.js").read_text(encoding="utf-8")
    assert "c.colour" in js and "const PALETTE" not in js


def test_every_phase_of_the_timeline_stands_out_from_its_background():
    js = (STATIC / "js" / "replay-timeline.js").read_text(encoding="utf-8")
    block = js[js.index("PHASE_COLOURS = {") : js.index("};", js.index("PHASE_COLOURS = {"))]
    phases = dict(re.findall(r'(\w+): "(#[0-9a-f]{6})"', block))
    assert set(phases) == {"idle", "travel", "preparation", "dungeon", "combat", "recovery"}
    low = {p: round(contrast(rgb(c), rgb(TIMELINE_BACKGROUND)), 2) for p, c in phases.items()}
    assert all(ratio >= 3 for ratio in low.values()), low
    html = (PACKAGE_DIR / "templates" / "_timeline_legend.html").read_text(encoding="utf-8")
    assert f'background:{phases["idle"]}"></i>idle' in html  # the legend shows the same grey


def sprite_colour(name: str) -> tuple[float, float, float]:
    """A sprite's average opaque colour, as the minimap and the eye see the tile."""
    index = json.loads((STATIC / "sprites" / "atlas.json").read_text(encoding="utf-8"))
    x, y = index["sprites"][name][:2]
    size = index["tile"]
    with Image.open(STATIC / "sprites" / "atlas.png") as atlas:
        tile = atlas.convert("RGBA").crop((x, y, x + size, y + size))
    raw = tile.tobytes()
    pixels = [raw[i : i + 3] for i in range(0, len(raw), 4) if raw[i + 3] >= 128]
    return tuple(sum(p[i] for p in pixels) / len(pixels) for i in range(3))


def test_a_dungeons_floor_and_walls_are_told_apart():
    ratio = contrast(sprite_colour("dungeon_floor"), sprite_colour("dungeon_wall"))
    assert ratio >= 3, f"dungeon floor against wall {ratio:.2f}:1"
