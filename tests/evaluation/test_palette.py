"""One colour per configuration across every figure and the browser: one palette file, read by
the figures (asiworld.evaluation.palette) and handed to the evaluation page, whose JavaScript
picks the same colour for the same name (checked by running the page's own functions in node).
"""

from __future__ import annotations

import json
import shutil
import subprocess

from asiworld.evaluation import definitions
from asiworld.evaluation.figures import figure_colours
from asiworld.evaluation.measures import LEVELS
from asiworld.evaluation.palette import PALETTE_FILE, character_colours, colours, palette
from asiworld.evaluation.tables import pool
from asiworld.resources import PACKAGE_DIR

NAMES = ["planner", "rusher", "gpt-6-astra", "claude-opus-5", "glm-5.3", "kimi-k3", "zoë", "a", "b"]


def test_named_configurations_keep_their_colour_whoever_else_is_in_the_run():
    assert colours(["planner"])["planner"] == colours(NAMES)["planner"] == "#4e79a7"
    assert colours(["gpt-6-astra", "glm-5.3"])["gpt-6-astra"] == colours(NAMES)["gpt-6-astra"]


def test_every_configuration_of_a_run_gets_its_own_colour():
    picked = colours(NAMES)
    assert len(set(picked.values())) == len(NAMES)


def test_the_evaluation_page_is_handed_the_same_palette_file():
    assert definitions()["palette"]["configurations"] == palette()["configurations"]
    assert PALETTE_FILE.parent == PACKAGE_DIR / "static"


def run_page(last: str, call: str):
    """The page's colour functions (evaluation.js, from nameHash to the function `last`) run in
    node with the shipped palette; the JSON of `call` comes back."""
    node = shutil.which("node")
    assert node, "node is needed to run the page's colour functions"
    js = (PACKAGE_DIR / "static" / "evaluation.js").read_text(encoding="utf-8")
    start = js.index("function nameHash")
    end = js.index("\n}\n", js.index(f"function {last}")) + 3
    script = (f"const PALETTE = {json.dumps(palette())};\n{js[start:end]}\n"
              f"console.log(JSON.stringify({call}));")  # fmt: skip
    out = subprocess.run([node, "-e", script], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_the_page_picks_the_same_colours_as_the_figures():
    assert run_page("colours", f"colours({json.dumps(NAMES)})") == colours(NAMES)


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


def test_the_page_colours_its_rows_as_the_figures_do():
    page = run_page("characterColours", f"characterColours({json.dumps(ROWS)})")
    assert page == character_colours((r["name"], r["label"]) for r in ROWS)


def test_the_figures_colour_each_row_by_its_configuration():
    results = {"configurations": [
        {"name": r["name"], "label": r["label"], "dungeons": {}, "actions": {}} for r in ROWS
    ]}  # fmt: skip
    for row in results["configurations"]:
        row["dungeons"] = {str(lv): {"attempts": 0, "clears": 0, "clear_damage": 0} for lv in LEVELS}
    pooled = pool([results])
    assert figure_colours(pooled) == character_colours((r["name"], r["label"]) for r in ROWS)
