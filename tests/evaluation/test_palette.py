"""One colour per configuration across every figure and the browser: one palette file, read by
the figures (asiworld.evaluation.palette), and the evaluation page is handed each row's colour by
the server instead of repeating the rule in JavaScript (it did, with its own name hash).
"""

from __future__ import annotations

import math
from itertools import combinations

from asiworld.agents.bots.builtin import COHORT
from asiworld.evaluation import definitions
from asiworld.evaluation.figures import figure_colours
from asiworld.evaluation.measures import LEVELS
from asiworld.evaluation.palette import PALETTE_FILE, character_colours, colours, palette
from asiworld.evaluation.tables import pool
from asiworld.resources import PACKAGE_DIR

NAMES = ["planner", "rusher", "gpt-6-astra", "claude-opus-5", "glm-5.3", "kimi-k3", "zoë", "a", "b"]


def test_named_configurations_keep_their_colour_whoever_else_is_in_the_run():
    assert colours(["planner"])["planner"] == colours(NAMES)["planner"] == "#0072b2"
    # an unnamed one keeps the colour its name picks while no one else holds it
    alone = colours(["gpt-6-astra"])["gpt-6-astra"]
    assert colours(["gpt-6-astra", "glm-5.3", "planner", "rusher"])["gpt-6-astra"] == alone


def test_every_configuration_of_a_run_gets_its_own_colour():
    picked = colours(NAMES)
    assert len(set(picked.values())) == len(NAMES)


def test_the_evaluation_page_is_handed_the_same_palette_file():
    assert definitions()["palette"]["configurations"] == palette()["configurations"]
    assert PALETTE_FILE.parent == PACKAGE_DIR / "static"


ROWS = [
    {"name": "planner-1", "label": "planner"},
    {"name": "planner-2", "label": "planner"},
    {"name": "rusher-3", "label": "rusher"},
    {"name": "ada", "label": "human"},
    {"name": "glm-5.3", "label": ""},
]


def test_a_character_is_drawn_in_its_configurations_colour():
    picked = character_colours((r["name"], r["label"]) for r in ROWS)
    assert picked["planner-1"] == picked["planner-2"] == palette()["configurations"]["planner"]
    assert picked["rusher-3"] == palette()["configurations"]["rusher"]
    assert picked["glm-5.3"] == colours(["planner", "rusher", "human", "glm-5.3"])["glm-5.3"]


def test_the_evaluation_page_is_served_each_rows_colour_as_the_figures_draw_it(apps):
    from asiworld.server import services

    app = apps.create({"SEED": 3, "WORLD_SIZE": 48, "TESTING": True,
                       "AGENTS": ["planner", "planner", "forager"]})
    services(app).runner.step(3)
    rows = app.test_client().get("/api/evaluation").get_json()["configurations"]
    expected = character_colours((r["name"], r.get("label")) for r in rows)
    assert len(rows) == 3 and {r["name"]: r["colour"] for r in rows} == expected
    planners = {r["colour"] for r in rows if r.get("label") == "planner"}
    assert planners == {palette()["configurations"]["planner"]}  # both planners, one colour


def test_the_page_no_longer_repeats_the_rule():
    js = (PACKAGE_DIR / "static" / "evaluation.js").read_text(encoding="utf-8")
    assert "nameHash" not in js and "r.colour" in js


def test_the_figures_colour_each_row_by_its_configuration():
    results = {"configurations": [
        {"name": r["name"], "label": r["label"], "dungeons": {}, "actions": {}} for r in ROWS
    ]}  # fmt: skip
    for row in results["configurations"]:
        row["dungeons"] = {str(lv): {"attempts": 0, "clears": 0, "clear_damage": 0} for lv in LEVELS}
    pooled = pool([results])
    assert figure_colours(pooled) == character_colours((r["name"], r["label"]) for r in ROWS)


# Colour science for the checks below, computed here so the test owns its yardstick: sRGB to
# CIELAB (D65), CIEDE2000 (Sharma, Wu & Dalal 2005), and deuteranopia as Machado, Oliveira &
# Fernandes (2009) simulate it at full severity (a matrix on linear RGB).
DEUTERANOPIA = ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                (-0.011820, 0.042940, 0.968881))  # fmt: skip
TO_XYZ = ((0.4124564, 0.3575761, 0.1804375), (0.2126729, 0.7151522, 0.0721750),
          (0.0193339, 0.1191920, 0.9503041))  # fmt: skip


def linear(hex_colour: str) -> list[float]:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return [channel(int(hex_colour[i : i + 2], 16) / 255) for i in (1, 3, 5)]


def seen_by_deuteranope(rgb: list[float]) -> list[float]:
    return [min(1.0, max(0.0, sum(m * c for m, c in zip(row, rgb, strict=True))))
            for row in DEUTERANOPIA]  # fmt: skip


def lab(rgb: list[float]) -> tuple[float, float, float]:
    white = [sum(row) for row in TO_XYZ]
    xyz = [sum(m * c for m, c in zip(row, rgb, strict=True)) / w
           for row, w in zip(TO_XYZ, white, strict=True)]  # fmt: skip
    f = [t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29 for t in xyz]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def ciede2000(lab1: tuple[float, float, float], lab2: tuple[float, float, float]) -> float:
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean**7 / (c_mean**7 + 25**7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1, h2 = math.degrees(math.atan2(b1, a1)) % 360, math.degrees(math.atan2(b2, a2)) % 360
    dh = 0.0 if c1 * c2 == 0 else (h2 - h1 + 180) % 360 - 180
    d_hue = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    l_mean, c_mean = (l1 + l2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        h_mean = h1 + h2
    elif abs(h1 - h2) <= 180:
        h_mean = (h1 + h2) / 2
    else:
        h_mean = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_mean - 30)) + 0.24 * math.cos(math.radians(2 * h_mean))
         + 0.32 * math.cos(math.radians(3 * h_mean + 6))
         - 0.20 * math.cos(math.radians(4 * h_mean - 63)))  # fmt: skip
    rotation = -math.sin(math.radians(60 * math.exp(-(((h_mean - 275) / 25) ** 2)))) * 2 * math.sqrt(
        c_mean**7 / (c_mean**7 + 25**7))
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    s_c, s_h = 1 + 0.045 * c_mean, 1 + 0.015 * c_mean * t
    terms = ((l2 - l1) / s_l, (c2 - c1) / s_c, d_hue / s_h)
    return math.sqrt(sum(x * x for x in terms) + rotation * terms[1] * terms[2])


def test_ciede2000_agrees_with_the_published_test_data():
    # Sharma, Wu & Dalal (2005), Table 1, pairs 1 and 7
    assert round(ciede2000((50, 2.6772, -79.7751), (50, 0, -82.7485)), 4) == 2.0425
    assert round(ciede2000((50, 0, 0), (50, -1, 2)), 4) == 2.3669


def twelve_configurations() -> list[str]:
    return [*COHORT, "planner", "forager", "random"]


def closest_pair(hexes: list[str], vision) -> tuple[float, tuple[str, str]]:
    return min((ciede2000(lab(vision(linear(a))), lab(vision(linear(b)))), (a, b))
               for a, b in combinations(hexes, 2))


def test_twelve_configurations_get_twelve_colours_far_apart_for_every_reader():
    picked = colours(twelve_configurations())
    hexes = list(picked.values())
    assert len(set(hexes)) == 12
    assert sorted(hexes) == sorted(palette()["cycle"])
    normal, pair = closest_pair(hexes, lambda rgb: rgb)
    assert normal >= 12, pair  # CIEDE2000: ~2 is a just-noticeable difference
    deuteranope, pair = closest_pair(hexes, seen_by_deuteranope)
    assert deuteranope >= 8, pair


def test_any_twelve_names_are_told_apart():
    named = list(palette()["configurations"])  # 14 names on 12 colours: twins meet here
    assert len(set(colours(named[:12]).values())) == 12
    assert len(set(colours(named[2:]).values())) == 12
    assert len(set(colours([f"model-{i}" for i in range(12)]).values())) == 12


def test_planner_and_steady_are_no_longer_two_blues():
    picked = colours(["planner", "steady"])
    planner, steady = (linear(picked[n]) for n in ("planner", "steady"))
    assert ciede2000(lab(planner), lab(steady)) >= 30
    assert ciede2000(lab(seen_by_deuteranope(planner)), lab(seen_by_deuteranope(steady))) >= 30


def test_the_twin_listed_later_gives_way():
    fixed = palette()["configurations"]
    assert fixed["steady"] == fixed["builder"]  # 14 names on 12 colours
    picked = colours(["builder", "steady"])
    assert picked["builder"] == fixed["builder"] and picked["steady"] != fixed["steady"]
    assert colours(["steady", "planner"])["steady"] == fixed["steady"]
