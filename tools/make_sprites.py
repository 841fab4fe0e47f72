"""Draw ASIWorld's pixel-art tileset into app/static/sprites/atlas.png + atlas.json.

Every sprite is 16x16, drawn with Pillow from a small shared palette so terrain, structures,
creatures and items read as one coherent set. The output is committed; re-run this script after
changing a drawing:  python tools/make_sprites.py
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

from PIL import Image, ImageDraw

TILE = 16
COLUMNS = 16
OUT_DIR = Path(__file__).resolve().parent.parent / "app" / "static" / "sprites"

# One palette for the whole set (hex), so colours repeat across sprites on purpose.
P = {
    "outline": "#1b1b24",
    "grass": "#5a9c3c",
    "grass_dk": "#4a8532",
    "grass_lt": "#74b64a",
    "leaf": "#2f6e2a",
    "leaf_dk": "#22521f",
    "leaf_lt": "#4f9a3a",
    "trunk": "#6b4426",
    "trunk_dk": "#4a2e19",
    "rock": "#8a8a94",
    "rock_dk": "#62626c",
    "rock_lt": "#b0b0ba",
    "coal": "#24242a",
    "iron": "#c8825a",
    "iron_lt": "#e6a97c",
    "water": "#3a6fc4",
    "water_dk": "#2c579e",
    "water_lt": "#6b9be0",
    "sand": "#dcc68a",
    "sand_dk": "#c4ad72",
    "flax": "#8fb0e8",
    "flax_stem": "#5f8f3a",
    "berry": "#c8324a",
    "plaza": "#b9a88e",
    "plaza_dk": "#9c8c74",
    "wood": "#a0703f",
    "wood_dk": "#7a5230",
    "wood_lt": "#c08c52",
    "stone_wall": "#7d7d88",
    "metal": "#5d6470",
    "metal_lt": "#9aa3b0",
    "fire": "#f0a030",
    "fire_lt": "#ffe070",
    "wool": "#eeeae0",
    "skin": "#f0c8a0",
    "boar": "#7a5a42",
    "boar_dk": "#553c2a",
    "shade": "#3a2a5a",
    "shade_lt": "#7a5ab0",
    "eye": "#ff4040",
    "gold": "#e8c040",
    "gold_dk": "#b08a20",
    "purple": "#8a4ad0",
    "purple_lt": "#c08aff",
    "dfloor": "#857a8e",  # floor and wall at least 3:1 apart (WCAG non-text contrast)
    "dfloor_dk": "#716779",
    "dwall": "#221d28",
    "dwall_lt": "#3a3247",
    "cloth": "#d04848",
    "bed": "#c84040",
    "white": "#ffffff",
    "black": "#000000",
}

SpriteFn = Callable[[ImageDraw.ImageDraw, random.Random], None]
SPRITES: dict[str, SpriteFn] = {}


def sprite(*names: str) -> Callable[[SpriteFn], SpriteFn]:
    def register(fn: SpriteFn) -> SpriteFn:
        for name in names:
            SPRITES[name] = fn
        return fn

    return register


# --- drawing helpers -------------------------------------------------------------------------


def speckle(d: ImageDraw.ImageDraw, r: random.Random, base: str, dots: list[str], n: int) -> None:
    d.rectangle([0, 0, TILE - 1, TILE - 1], fill=P[base])
    for _ in range(n):
        d.point((r.randrange(TILE), r.randrange(TILE)), fill=P[r.choice(dots)])


def grass_base(d: ImageDraw.ImageDraw, r: random.Random) -> None:
    speckle(d, r, "grass", ["grass_dk", "grass_lt"], 26)


def blob(d: ImageDraw.ImageDraw, box: list[int], fill: str, outline: str = "outline") -> None:
    d.ellipse(box, fill=P[fill], outline=P[outline])


# --- terrain ---------------------------------------------------------------------------------


@sprite("grass", "surface", "ground")
def grass(d, r):
    grass_base(d, r)
    for _ in range(5):  # small tufts
        x, y = r.randrange(1, 15), r.randrange(2, 15)
        d.point((x, y), fill=P["grass_lt"])
        d.point((x, y - 1), fill=P["grass_lt"])


@sprite("tree", "forest")
def tree(d, r):
    grass_base(d, r)
    d.rectangle([7, 10, 8, 14], fill=P["trunk"], outline=P["trunk_dk"])
    blob(d, [2, 1, 13, 11], "leaf", "leaf_dk")
    for _ in range(12):
        d.point((r.randrange(4, 12), r.randrange(2, 9)), fill=P["leaf_lt"])
    d.point((5, 4), fill=P["leaf_lt"])
    d.point((6, 3), fill=P["leaf_lt"])


@sprite("stump")
def stump(d, r):
    grass_base(d, r)
    d.ellipse([5, 8, 10, 12], fill=P["wood_lt"], outline=P["trunk_dk"])


def rock_base(d, r, veins: str | None) -> None:
    grass_base(d, r)
    d.polygon([(1, 14), (2, 6), (6, 2), (11, 2), (14, 6), (15, 14)], fill=P["rock"])
    d.line([(1, 14), (2, 6), (6, 2), (11, 2), (14, 6), (15, 14), (1, 14)], fill=P["rock_dk"])
    d.line([(4, 6), (7, 4)], fill=P["rock_lt"])
    d.line([(3, 9), (4, 7)], fill=P["rock_lt"])
    if veins:
        for x, y in [(5, 8), (9, 6), (10, 11), (6, 12), (12, 9)]:
            d.rectangle([x, y, x + 1, y + 1], fill=P[veins])
        if veins == "iron":
            for x, y in [(5, 8), (9, 6), (12, 9)]:
                d.point((x, y), fill=P["iron_lt"])


@sprite("rock", "stone")
def rock(d, r):
    rock_base(d, r, None)
    d.line([(8, 8), (11, 11)], fill=P["rock_dk"])


@sprite("coal", "coal_vein")
def coal(d, r):
    rock_base(d, r, "coal")


@sprite("iron", "iron_vein", "iron_ore")
def iron(d, r):
    rock_base(d, r, "iron")


@sprite("water", "lake", "river")
def water(d, r):
    speckle(d, r, "water", ["water_dk"], 14)
    for y in (3, 8, 13):
        x = r.randrange(0, 8)
        d.line([(x, y), (x + 4, y)], fill=P["water_lt"])


@sprite("sand")
def sand(d, r):
    speckle(d, r, "sand", ["sand_dk", "white"], 20)


@sprite("flax", "fibre_plant")
def flax(d, r):
    grass_base(d, r)
    for x in (3, 7, 11):
        d.line([(x, 14), (x, 6)], fill=P["flax_stem"])
        d.rectangle([x - 1, 4, x + 1, 6], fill=P["flax"])
        d.point((x, 3), fill=P["white"])


@sprite("flax_empty", "flax_picked", "flax_regrowing")
def flax_empty(d, r):
    grass_base(d, r)
    for x in (3, 7, 11):
        d.line([(x, 14), (x, 11)], fill=P["flax_stem"])


@sprite("bush", "berry_bush")
def bush(d, r):
    grass_base(d, r)
    blob(d, [1, 4, 14, 14], "leaf", "leaf_dk")
    for x, y in [(4, 7), (9, 6), (7, 10), (11, 10), (5, 12)]:
        d.rectangle([x, y, x + 1, y + 1], fill=P["berry"])
        d.point((x, y), fill=P["white"])


@sprite("bush_empty", "bush_picked", "bush_regrowing")
def bush_empty(d, r):
    grass_base(d, r)
    blob(d, [1, 4, 14, 14], "leaf", "leaf_dk")
    for _ in range(8):
        d.point((r.randrange(4, 12), r.randrange(6, 12)), fill=P["leaf_lt"])


@sprite("plaza", "spawn")
def plaza(d, r):
    d.rectangle([0, 0, 15, 15], fill=P["plaza"])
    for y in (0, 8):
        d.line([(0, y), (15, y)], fill=P["plaza_dk"])
    for x, y in [(4, 1), (12, 1), (0, 9), (8, 9)]:
        d.line([(x, y), (x, y + 6)], fill=P["plaza_dk"])


def gate(d, r, tier: int) -> None:
    plaza(d, r)
    colors = {1: "rock_lt", 2: "gold", 3: "purple"}
    c = colors[tier]
    d.rectangle([2, 2, 13, 15], fill=P[c], outline=P["outline"])
    d.rectangle([5, 5, 10, 15], fill=P["black"])
    d.arc([5, 2, 10, 9], 180, 360, fill=P["outline"])
    for i in range(tier):  # pips tell the tier at a glance
        d.rectangle([4 + i * 3, 3, 5 + i * 3, 3], fill=P["white"])


@sprite("gate_1", "gate1", "outer_court_gate", "gate_outer")
def gate1(d, r):
    gate(d, r, 1)


@sprite("gate_2", "gate2", "inner_temple_gate", "gate_inner")
def gate2(d, r):
    gate(d, r, 2)


@sprite("gate_3", "gate3", "royal_tomb_gate", "gate_royal")
def gate3(d, r):
    gate(d, r, 3)


@sprite("altar")
def altar(d, r):
    grass_base(d, r)
    d.rectangle([2, 8, 13, 14], fill=P["rock_lt"], outline=P["outline"])
    d.rectangle([4, 5, 11, 8], fill=P["rock"], outline=P["outline"])
    d.rectangle([7, 2, 8, 4], fill=P["purple_lt"])
    d.point((7, 1), fill=P["white"])
    for x in (4, 7, 10):
        d.point((x, 11), fill=P["purple"])


@sprite("merchant", "trading_post")
def merchant(d, r):
    plaza(d, r)
    d.rectangle([1, 7, 14, 14], fill=P["wood"], outline=P["outline"])
    d.polygon([(0, 7), (3, 2), (12, 2), (15, 7)], fill=P["cloth"], outline=P["outline"])
    for x in (4, 8, 12):
        d.line([(x - 1, 3), (x, 7)], fill=P["white"])
    d.rectangle([6, 9, 9, 11], fill=P["gold"], outline=P["gold_dk"])


@sprite("dungeon_floor", "dfloor", "floor_dungeon")
def dungeon_floor(d, r):
    speckle(d, r, "dfloor", ["dfloor_dk"], 18)
    d.line([(0, 7), (15, 7)], fill=P["dfloor_dk"])
    d.line([(7, 0), (7, 7)], fill=P["dfloor_dk"])
    d.line([(3, 8), (3, 15)], fill=P["dfloor_dk"])


@sprite("dungeon_wall", "dwall", "wall_dungeon")
def dungeon_wall(d, r):
    d.rectangle([0, 0, 15, 15], fill=P["dwall"])
    for y in (0, 5, 10):
        off = 0 if y % 10 == 0 else 4
        for x in range(-off, 16, 8):
            d.rectangle([x, y, x + 7, y + 4], outline=P["dwall_lt"])
    d.line([(0, 15), (15, 15)], fill=P["black"])


@sprite("entrance", "dungeon_entrance", "stairs")
def entrance(d, r):
    dungeon_floor(d, r)
    for i, y in enumerate(range(3, 14, 3)):
        d.rectangle([2 + i, y, 13 - i, y + 2], fill=P["rock_lt" if i % 2 else "rock"])
    d.rectangle([6, 13, 9, 15], fill=P["black"])


@sprite("ground", "dirt", "path")
def ground(d, r):
    speckle(d, r, "sand_dk", ["trunk", "sand"], 30)


@sprite("sanctum_floor")
def sanctum_floor(d, r):
    speckle(d, r, "shade", ["dfloor_dk", "purple"], 16)
    d.rectangle([0, 0, 15, 15], outline=P["dfloor_dk"])
    d.point((7, 7), fill=P["purple_lt"])


@sprite("portal_closed", "portal_sealed")
def portal_closed(d, r):
    # A sealed ring: the same frame as the open portal, dark inside and barred, so the tile
    # reads as "the way out, not yet" next to the bright open one.
    dungeon_floor(d, r)
    d.ellipse([1, 0, 14, 15], fill=P["dwall"], outline=P["outline"])
    d.ellipse([2, 1, 13, 14], outline=P["purple"])
    d.ellipse([4, 3, 11, 12], fill=P["shade"])
    for x in (5, 8, 10):
        d.line([(x, 3), (x, 12)], fill=P["dwall_lt"])
    d.line([(4, 7), (11, 7)], fill=P["dwall_lt"])


@sprite("void", "unknown", "none")
def void(d, r):
    d.rectangle([0, 0, 15, 15], fill=P["black"])


# --- structures --------------------------------------------------------------------------------


@sprite("wall", "wood_wall")
def wall(d, r):
    d.rectangle([0, 0, 15, 15], fill=P["wood"])
    for x in (0, 5, 10):
        d.rectangle([x, 0, x + 4, 15], outline=P["wood_dk"])
        d.line([(x + 2, 1), (x + 2, 14)], fill=P["wood_lt"])
    d.line([(0, 4), (15, 4)], fill=P["wood_dk"])
    d.line([(0, 11), (15, 11)], fill=P["wood_dk"])


@sprite("stone_wall")
def stone_wall(d, r):
    d.rectangle([0, 0, 15, 15], fill=P["stone_wall"])
    for y in (0, 4, 8, 12):
        off = 0 if y % 8 == 0 else 4
        for x in range(-off, 16, 8):
            d.rectangle([x, y, x + 7, y + 3], outline=P["rock_dk"])


@sprite("floor", "wood_floor")
def floor(d, r):
    d.rectangle([0, 0, 15, 15], fill=P["wood_lt"])
    for y in (3, 7, 11, 15):
        d.line([(0, y), (15, y)], fill=P["wood"])
    for x, y in [(5, 0), (11, 4), (3, 8), (9, 12)]:
        d.line([(x, y), (x, y + 2)], fill=P["wood"])


def door_base(d, open_: bool = False) -> None:
    d.rectangle([0, 0, 15, 15], fill=P["wood_lt"])
    if open_:
        d.rectangle([1, 0, 3, 15], fill=P["wood"], outline=P["outline"])
        return
    d.rectangle([2, 0, 13, 15], fill=P["wood"], outline=P["outline"])
    d.line([(7, 1), (7, 14)], fill=P["wood_dk"])
    d.line([(3, 4), (12, 4)], fill=P["wood_dk"])
    d.line([(3, 11), (12, 11)], fill=P["wood_dk"])


@sprite("door")
def door(d, r):
    door_base(d)
    d.rectangle([10, 7, 11, 8], fill=P["gold"])


@sprite("door_open")
def door_open(d, r):
    door_base(d, open_=True)


@sprite("locked_door", "door_locked")
def locked_door(d, r):
    door_base(d)
    d.rectangle([5, 6, 10, 11], fill=P["gold"], outline=P["outline"])
    d.arc([6, 3, 9, 8], 180, 360, fill=P["metal_lt"])
    d.point((7, 8), fill=P["outline"])
    d.point((7, 9), fill=P["outline"])


@sprite("bed")
def bed(d, r):
    floor(d, r)
    d.rectangle([2, 1, 13, 14], fill=P["wood_dk"], outline=P["outline"])
    d.rectangle([3, 2, 12, 5], fill=P["wool"])
    d.rectangle([3, 6, 12, 13], fill=P["bed"])
    d.line([(3, 6), (12, 6)], fill=P["white"])


def station_top(d, r) -> None:
    floor(d, r)
    d.rectangle([1, 3, 14, 14], fill=P["wood"], outline=P["outline"])
    d.rectangle([1, 3, 14, 6], fill=P["wood_lt"], outline=P["outline"])


@sprite("workbench", "crafting_table")
def workbench(d, r):
    station_top(d, r)
    d.line([(3, 2), (8, 5)], fill=P["metal_lt"], width=1)  # a saw blade
    d.rectangle([9, 1, 12, 4], fill=P["metal"], outline=P["outline"])  # hammer head
    d.rectangle([3, 9, 5, 13], fill=P["wood_dk"])
    d.rectangle([10, 9, 12, 13], fill=P["wood_dk"])


@sprite("furnace")
def furnace(d, r):
    floor(d, r)
    d.rectangle([1, 1, 14, 15], fill=P["stone_wall"], outline=P["outline"])
    d.line([(1, 5), (14, 5)], fill=P["rock_dk"])
    d.line([(1, 10), (14, 10)], fill=P["rock_dk"])
    d.rectangle([4, 7, 11, 14], fill=P["black"])
    d.rectangle([5, 10, 10, 14], fill=P["fire"])
    d.rectangle([6, 12, 9, 14], fill=P["fire_lt"])


@sprite("stove")
def stove(d, r):
    floor(d, r)
    d.rectangle([1, 4, 14, 15], fill=P["metal"], outline=P["outline"])
    d.rectangle([3, 9, 12, 13], fill=P["black"])
    d.rectangle([4, 11, 11, 13], fill=P["fire"])
    d.ellipse([3, 1, 12, 6], fill=P["metal_lt"], outline=P["outline"])  # pot
    d.point((6, 0), fill=P["white"])
    d.point((9, 0), fill=P["white"])


@sprite("loom")
def loom(d, r):
    floor(d, r)
    d.rectangle([1, 1, 14, 14], outline=P["wood_dk"], width=2)
    for x in range(4, 13, 2):
        d.line([(x, 3), (x, 12)], fill=P["wool"])
    d.rectangle([3, 6, 12, 9], fill=P["cloth"])


@sprite("anvil")
def anvil(d, r):
    floor(d, r)
    d.polygon([(1, 4), (14, 4), (12, 8), (3, 8)], fill=P["metal"], outline=P["outline"])
    d.rectangle([5, 8, 10, 11], fill=P["metal"], outline=P["outline"])
    d.rectangle([3, 11, 12, 14], fill=P["metal"], outline=P["outline"])
    d.line([(2, 5), (12, 5)], fill=P["metal_lt"])


@sprite("tailoring_table", "tailor")
def tailoring_table(d, r):
    station_top(d, r)
    d.rectangle([3, 2, 9, 8], fill=P["cloth"], outline=P["outline"])
    d.line([(10, 1), (13, 6)], fill=P["metal_lt"])  # needle
    d.line([(13, 1), (10, 6)], fill=P["metal_lt"])
    d.point((5, 5), fill=P["white"])


@sprite("chest")
def chest(d, r):
    dungeon_floor(d, r)
    d.rectangle([2, 5, 13, 14], fill=P["wood"], outline=P["outline"])
    d.rectangle([2, 5, 13, 8], fill=P["wood_dk"], outline=P["outline"])
    d.rectangle([7, 7, 8, 10], fill=P["gold"])


@sprite("chest_open")
def chest_open(d, r):
    dungeon_floor(d, r)
    d.rectangle([2, 8, 13, 14], fill=P["wood"], outline=P["outline"])
    d.rectangle([2, 3, 13, 7], fill=P["wood_dk"], outline=P["outline"])
    d.rectangle([4, 8, 11, 9], fill=P["black"])


@sprite("portal", "portal_open", "exit_portal", "exit")
def portal(d, r):
    d.ellipse([1, 0, 14, 15], fill=P["purple"], outline=P["outline"])
    d.ellipse([3, 2, 12, 13], fill=P["purple_lt"])
    d.ellipse([5, 4, 10, 11], fill=P["white"])


@sprite("loot", "loot_bag", "bag")
def loot(d, r):
    d.ellipse([3, 5, 12, 15], fill=P["wood_lt"], outline=P["outline"])
    d.rectangle([6, 2, 9, 5], fill=P["wood_lt"], outline=P["outline"])
    d.line([(5, 5), (10, 5)], fill=P["cloth"])
    d.point((7, 10), fill=P["gold"])
    d.point((8, 10), fill=P["gold"])


@sprite("torch")
def torch(d, r):
    d.rectangle([7, 7, 8, 15], fill=P["trunk"])
    d.ellipse([5, 1, 10, 8], fill=P["fire"])
    d.ellipse([6, 3, 9, 7], fill=P["fire_lt"])


# --- creatures ---------------------------------------------------------------------------------


@sprite("sheep")
def sheep(d, r):
    blob(d, [2, 5, 13, 13], "wool")
    for x, y in [(4, 7), (7, 6), (10, 7), (5, 10), (9, 10)]:
        d.point((x, y), fill=P["white"])
    d.rectangle([11, 6, 14, 9], fill=P["outline"])  # face
    d.point((13, 7), fill=P["white"])
    for x in (4, 10):
        d.line([(x, 13), (x, 15)], fill=P["outline"])


@sprite("sheep_shorn")
def sheep_shorn(d, r):
    blob(d, [3, 7, 12, 13], "skin")
    d.rectangle([11, 6, 14, 9], fill=P["outline"])
    d.point((13, 7), fill=P["white"])
    for x in (5, 10):
        d.line([(x, 13), (x, 15)], fill=P["outline"])


@sprite("boar")
def boar(d, r):
    blob(d, [1, 5, 13, 13], "boar", "boar_dk")
    d.line([(3, 5), (10, 5)], fill=P["boar_dk"])  # bristles
    d.rectangle([11, 7, 15, 11], fill=P["boar_dk"], outline=P["outline"])
    d.point((13, 8), fill=P["eye"])
    d.point((15, 11), fill=P["white"])  # tusk
    d.point((15, 12), fill=P["white"])
    for x in (3, 10):
        d.line([(x, 13), (x, 15)], fill=P["outline"])


@sprite("shade")
def shade(d, r):
    d.polygon(
        [(8, 0), (14, 6), (14, 15), (11, 12), (8, 15), (5, 12), (2, 15), (2, 6)],
        fill=P["shade"],
        outline=P["shade_lt"],
    )
    d.rectangle([5, 5, 6, 6], fill=P["eye"])
    d.rectangle([9, 5, 10, 6], fill=P["eye"])


@sprite("shadow_shade", "summoned_shade")
def shadow_shade(d, r):
    # The Shadow King's summons: a shade with a violet glow, told apart from the surface shade.
    d.polygon(
        [(8, 1), (13, 6), (13, 15), (10, 12), (8, 15), (6, 12), (3, 15), (3, 6)],
        fill=P["purple"],
        outline=P["purple_lt"],
    )
    d.polygon([(8, 3), (11, 7), (11, 12), (5, 12), (5, 7)], fill=P["shade"])
    d.rectangle([6, 6, 7, 7], fill=P["white"])
    d.rectangle([9, 6, 10, 7], fill=P["white"])


def humanoid(d, body: str, head: str, trim: str, weapon: bool = True) -> None:
    d.rectangle([5, 1, 10, 6], fill=P[head], outline=P["outline"])
    d.rectangle([4, 7, 11, 12], fill=P[body], outline=P["outline"])
    d.line([(4, 9), (11, 9)], fill=P[trim])
    d.rectangle([5, 13, 6, 15], fill=P["outline"])
    d.rectangle([9, 13, 10, 15], fill=P["outline"])
    if weapon:
        d.line([(13, 2), (13, 12)], fill=P["metal_lt"])
        d.line([(12, 10), (14, 10)], fill=P["gold_dk"])


@sprite("guard")
def guard(d, r):
    humanoid(d, "metal", "metal_lt", "rock_lt")
    d.line([(6, 4), (9, 4)], fill=P["outline"])  # visor


@sprite("warden")
def warden(d, r):
    humanoid(d, "gold_dk", "gold", "white")
    d.line([(6, 4), (9, 4)], fill=P["eye"])


@sprite("tomb_knight")
def tomb_knight(d, r):
    humanoid(d, "dwall_lt", "rock_lt", "purple")
    d.point((6, 4), fill=P["purple_lt"])
    d.point((9, 4), fill=P["purple_lt"])


def boss(d, body: str, crown: str, eye: str) -> None:
    d.rectangle([3, 4, 12, 9], fill=P[body], outline=P["outline"])
    d.rectangle([1, 9, 14, 15], fill=P[body], outline=P["outline"])
    d.polygon([(3, 4), (3, 0), (5, 2), (7, 0), (8, 0), (10, 2), (12, 0), (12, 4)], fill=P[crown])
    d.rectangle([5, 6, 6, 7], fill=P[eye])
    d.rectangle([9, 6, 10, 7], fill=P[eye])
    d.line([(1, 12), (14, 12)], fill=P[crown])


@sprite("gatekeeper", "boss_1")
def gatekeeper(d, r):
    boss(d, "metal", "rock_lt", "eye")


@sprite("high_priest", "boss_2")
def high_priest(d, r):
    boss(d, "white", "gold", "purple")


@sprite("tomb_king", "boss_3")
def tomb_king(d, r):
    boss(d, "dwall_lt", "gold", "purple_lt")


@sprite("shadow_king", "boss_4")
def shadow_king(d, r):
    boss(d, "shade", "purple_lt", "eye")
    d.point((0, 5), fill=P["shade_lt"])
    d.point((15, 5), fill=P["shade_lt"])


# --- badges: coins, sigils, tasks (drawn as CSS sprites in the side panels) --------------------


@sprite("coin", "coins", "t_coin")
def coin(d, r):
    d.ellipse([2, 2, 13, 13], fill=P["gold"], outline=P["gold_dk"])
    d.ellipse([4, 4, 11, 11], outline=P["gold_dk"])
    d.line([(6, 6), (9, 6)], fill=P["white"])  # a T, for T-coin
    d.line([(7, 6), (7, 10)], fill=P["white"])
    d.line([(8, 6), (8, 10)], fill=P["white"])


def sigil(d, fill: str, mark: str) -> None:
    d.polygon([(8, 0), (15, 8), (8, 15), (0, 8)], fill=P[fill], outline=P["outline"])
    d.polygon([(8, 3), (12, 8), (8, 12), (4, 8)], fill=P[mark])
    d.point((8, 8), fill=P["white"])


@sprite("outer_sigil")
def outer_sigil(d, r):
    sigil(d, "rock_lt", "metal")


@sprite("inner_sigil")
def inner_sigil(d, r):
    sigil(d, "gold", "gold_dk")


@sprite("royal_sigil")
def royal_sigil(d, r):
    sigil(d, "purple_lt", "purple")


@sprite("travel_outfit", "outfit", "task_production")
def travel_outfit(d, r):
    d.polygon(
        [(4, 1), (11, 1), (14, 4), (12, 6), (12, 15), (3, 15), (3, 6), (1, 4)],
        fill=P["cloth"],
        outline=P["outline"],
    )
    d.line([(7, 1), (7, 15)], fill=P["gold_dk"])
    for y in (5, 8, 11):
        d.point((8, y), fill=P["gold"])
    d.rectangle([3, 10, 12, 11], fill=P["wood_dk"])


@sprite("hero", "crown", "task_exploration")
def crown(d, r):
    d.polygon(
        [(1, 5), (4, 9), (8, 2), (12, 9), (15, 5), (13, 14), (3, 14)],
        fill=P["gold"],
        outline=P["gold_dk"],
    )
    d.rectangle([3, 11, 13, 14], fill=P["gold_dk"])
    d.point((8, 12), fill=P["eye"])
    d.point((5, 12), fill=P["purple_lt"])
    d.point((11, 12), fill=P["purple_lt"])


@sprite("travel_outfit_design", "design")
def design(d, r):
    d.rectangle([2, 1, 13, 14], fill=P["wool"], outline=P["outline"])
    d.polygon([(6, 3), (10, 3), (11, 5), (10, 12), (6, 12), (5, 5)], outline=P["water_dk"])
    d.line([(4, 13), (12, 13)], fill=P["water_dk"])


@sprite("healing_potion", "potion")
def healing_potion(d, r):
    d.rectangle([6, 1, 9, 4], fill=P["wood_lt"], outline=P["outline"])
    d.ellipse([3, 4, 12, 15], fill=P["berry"], outline=P["outline"])
    d.point((5, 7), fill=P["white"])
    d.point((6, 6), fill=P["white"])


@sprite("shears")
def shears(d, r):
    d.line([(3, 2), (10, 10)], fill=P["metal_lt"], width=2)
    d.line([(12, 2), (5, 10)], fill=P["metal_lt"], width=2)
    d.ellipse([1, 10, 6, 15], outline=P["cloth"])
    d.ellipse([9, 10, 14, 15], outline=P["cloth"])


# Characters: one shape, a few shirt colours so several characters tell apart at a glance.
SHIRTS = {
    "character": "#3f7fd0",
    "character_1": "#d04848",
    "character_2": "#e0a030",
    "character_3": "#40a860",
    "character_4": "#a050c8",
    "character_5": "#30b0b8",
    "character_6": "#e070a0",
    "character_7": "#f0f0f0",
}


def character(d: ImageDraw.ImageDraw, shirt: str) -> None:
    d.rectangle([5, 0, 10, 2], fill=P["trunk_dk"])  # hair
    d.rectangle([5, 2, 10, 6], fill=P["skin"], outline=P["outline"])
    d.point((6, 4), fill=P["outline"])
    d.point((9, 4), fill=P["outline"])
    d.rectangle([4, 7, 11, 12], fill=shirt, outline=P["outline"])
    d.rectangle([2, 8, 3, 11], fill=P["skin"])
    d.rectangle([12, 8, 13, 11], fill=P["skin"])
    d.rectangle([5, 13, 6, 15], fill=P["trunk_dk"])
    d.rectangle([9, 13, 10, 15], fill=P["trunk_dk"])


for _name, _shirt in SHIRTS.items():
    SPRITES[_name] = lambda d, r, s=_shirt: character(d, s)


@sprite("character_down")
def character_down(d, r):
    d.rectangle([1, 8, 4, 12], fill=P["skin"], outline=P["outline"])
    d.rectangle([5, 8, 12, 12], fill="#3f7fd0", outline=P["outline"])
    d.rectangle([13, 9, 15, 11], fill=P["trunk_dk"])
    d.line([(2, 4), (4, 6)], fill=P["white"])
    d.line([(4, 4), (2, 6)], fill=P["white"])


@sprite("zzz")
def zzz(d, r):
    for ox, oy, s in [(2, 8, 4), (8, 2, 5)]:
        d.line([(ox, oy), (ox + s, oy)], fill=P["white"])
        d.line([(ox + s, oy), (ox, oy + s)], fill=P["white"])
        d.line([(ox, oy + s), (ox + s, oy + s)], fill=P["white"])


def build_atlas() -> tuple[Image.Image, dict]:
    names = list(SPRITES)
    rows = (len(names) + COLUMNS - 1) // COLUMNS
    atlas = Image.new("RGBA", (COLUMNS * TILE, rows * TILE), (0, 0, 0, 0))
    index: dict[str, list[int]] = {}
    drawn: dict[int, list[int]] = {}  # aliases share one cell
    cell = 0
    for name in names:
        fn = SPRITES[name]
        key = id(fn)
        if key in drawn:
            index[name] = drawn[key]
            continue
        tile = Image.new("RGBA", (TILE, TILE), (0, 0, 0, 0))
        fn(ImageDraw.Draw(tile), random.Random(name))  # seeded by name: stable output
        x, y = (cell % COLUMNS) * TILE, (cell // COLUMNS) * TILE
        atlas.paste(tile, (x, y))
        index[name] = drawn[key] = [x, y]
        cell += 1
    used_rows = (cell + COLUMNS - 1) // COLUMNS
    atlas = atlas.crop((0, 0, COLUMNS * TILE, used_rows * TILE))
    return atlas, {"tile": TILE, "sprites": index}


def main() -> int:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    atlas, index = build_atlas()
    atlas.save(OUT_DIR / "atlas.png", optimize=True)
    (OUT_DIR / "atlas.json").write_text(json.dumps(index, indent=1, sort_keys=True) + "\n")
    preview = atlas.resize((atlas.width * 3, atlas.height * 3), Image.NEAREST)
    preview.save(Path("/tmp/atlas_preview.png"))
    print(f"wrote {OUT_DIR / 'atlas.png'} ({len(index['sprites'])} names)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
