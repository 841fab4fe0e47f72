"""One colour per configuration across every figure and the browser: one palette file, read by
the figures (asiworld.evaluation.palette), and the evaluation page is handed each row's colour by
the server instead of repeating the rule in JavaScript (it did, with its own name hash).
"""

from __future__ import annotations

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


def test_the_evaluation_page_is_served_each_rows_colour_as_the_figures_draw_it():
    from asiworld.server import create_app, services

    app = create_app({"SEED": 3, "WORLD_SIZE": 48, "TESTING": True,
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
