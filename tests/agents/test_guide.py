"""The player's guide (asiworld.agents.clients.guide): a model player's system prompt, written from the
content. These tests read the real content files, the tool table and the program API, so a
recipe, a station, a stage or a tool the guide forgets to name fails here."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest
from asiworld.agents.clients import guide
from asiworld.agents.clients.tools import tool_specs
from asiworld.engine import World, load_content
from asiworld.engine.errors import CodedError
from asiworld.evaluation.achievements import STAGE_NAMES
from asiworld.programs.manager import ProgramManager

REPO = Path(__file__).resolve().parents[2]
CLOCK = "lockstep: each model call costs 3 ticks"
LIMIT = 12_000  # characters of the default prompt with programs on
DEVELOPER_HEADINGS = ("Where programs run", "For layers that host programs", "The author tool",
                      "Measured")


def prompt(**given) -> str:
    settings = {"horizon_minutes": None, "clock": CLOCK, "programs": True} | given
    return guide.system_prompt(**settings)


def named(text: str, name: str) -> bool:
    """`name` appears as a word of its own (iron_ingot is not named by iron_ingots_x)."""
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text) is not None


@pytest.fixture(scope="module")
def content():
    return load_content()


# --- what the prompt names ----------------------------------------------------------------------

def test_the_prompt_names_both_tasks():
    text = prompt()
    assert "travel outfit" in text
    assert "Shadow King" in text


def test_the_prompt_names_every_station_and_what_it_is_placed_from(content):
    text = prompt()
    stations = {name: s["cost"] for name, s in content.structures.items() if s.get("station")}
    assert stations  # the content has stations to name
    for name, cost in stations.items():
        heading = next((line for line in text.splitlines() if line.startswith(f"**{name}**")),
                       None)
        assert heading is not None, f"no line for the station {name}"
        for item, n in cost.items():
            assert f"{n} {item}" in heading, (name, item, heading)


def test_the_prompt_has_a_line_for_every_recipe_with_its_inputs_and_station(content):
    lines = prompt().splitlines()
    for recipe in content.recipes.values():
        line = next((ln for ln in lines
                     if re.match(rf"- {re.escape(recipe.id)}( → {recipe.output})?: ", ln)), None)
        assert line is not None, f"no line for the recipe {recipe.id}"
        for item, n in recipe.inputs.items():
            assert f"{n} {item}" in line, (recipe.id, line)
        # the recipe's line stands under its station's heading
        above = lines[: lines.index(line)]
        station = next(ln for ln in reversed(above) if ln.startswith("**"))
        assert station.startswith(f"**{recipe.station}**"), (recipe.id, station)


def path_back(content, item: str, seen: set[str]) -> None:
    """Every item `item` is made from, down to raw materials: the inputs, the kept item and the
    station of every recipe that makes it, and the tools its gathering needs."""
    if item in seen:
        return
    seen.add(item)
    for recipe in content.recipes_by_output.get(item, []):
        needed = [*recipe.inputs, *content.structures[recipe.station]["cost"]]
        if recipe.requires:
            needed.append(recipe.requires)
        for other in needed:
            path_back(content, other, seen)
    for source in content.sources.values():
        if source["item"] == item:
            for tool in source.get("needs", []):
                path_back(content, tool, seen)
    for creature in content.creatures.values():
        shear = creature.get("shear")
        if shear and shear["item"] == item:
            path_back(content, shear["tool"], seen)


def where_it_comes_from(content, item: str) -> list[str]:
    """The tiles and creatures a raw material is gathered from or dropped by."""
    found = [tile for tile, s in content.sources.items() if s["item"] == item]
    for kind, creature in content.creatures.items():
        shear = creature.get("shear")
        if item in creature.get("drops", {}) or (shear and shear["item"] == item):
            found.append(kind)
    return found


def test_every_item_on_the_travel_outfits_recipe_path_is_named(content):
    text = prompt()
    path: set[str] = set()
    path_back(content, "travel_outfit", path)
    # the walk reaches far enough to mean something: intermediates, raw materials and tools
    assert {"cloth", "leather", "iron_ingot", "hide", "fibre", "iron_ore", "coal",
            "stone_pickaxe", "travel_outfit_design"} <= path
    for item in sorted(path):
        assert named(text, item), f"{item} is on the outfit's path but not in the prompt"
        if item not in content.recipes_by_output and item in content.items:
            sources = where_it_comes_from(content, item)
            if sources:  # raw materials: where to get them is named too
                assert any(named(text, s) for s in sources), (item, sources)


def test_every_step_to_the_shadow_king_is_named(content):
    text = prompt()
    dungeons, merchant = content.raw["dungeons"], content.raw["merchant"]
    for tier in dungeons["tiers"].values():
        for name in (tier["name"], tier["sigil"], tier["boss"]):
            assert named(text, name), name
    sanctum = dungeons["sanctum"]
    assert sanctum["name"] in text and named(text, sanctum["boss"])
    assert " → ".join(sanctum["offering"]) in text  # the sigils in the order they are won
    for step in ("altar", "`offer`", "`enter`", "merchant"):
        assert step in text, step
    design = content.recipes["travel_outfit"].requires
    assert f"{design} {merchant['sells'][design]}" in text  # the design and its price


def test_the_prompt_gives_the_composite_score_and_all_eight_stages_in_order(content):
    text = prompt()
    assert "composite score" in text.lower()
    for component in content.score.components:
        assert f"{component.weight:g}·{component.key.capitalize()}" in text, component.key
    assert len(STAGE_NAMES) == 8
    places = [text.index(f"| {i} {name} |") for i, name in enumerate(STAGE_NAMES, start=1)]
    assert places == sorted(places)


def test_the_stage_rules_carry_the_achievement_thresholds(content):
    text = prompt()
    t = content.achievements
    assert f"at least {t.home_area} floor tiles" in text
    assert f"at most {t.steady_damage} damage" in text
    assert f"{t.streak_days} days in a row" in text


def test_the_horizon_and_the_clock_are_the_ones_given(content):
    realtime = "realtime: 7 ticks per second, the world does not wait"
    text = prompt(horizon_minutes=123, clock=realtime)
    assert "123 minutes" in text
    assert realtime in text
    default = prompt()
    assert f"{content.time.horizon_minutes} minutes" in default and CLOCK in default


def test_the_prompt_is_written_from_the_content(monkeypatch):
    changed = load_content()
    changed.raw["merchant"]["sells"]["travel_outfit_design"] = 4321
    changed.time.horizon_minutes = 777
    monkeypatch.setattr(guide, "_content", lambda: changed)
    text = prompt()
    assert "travel_outfit_design 4321" in text
    assert "777 minutes" in text


def test_the_guide_types_no_numbers_of_its_own():
    """Every number in the prompt's prose comes from content or a table: the guide's own string
    constants hold no digit, apart from code (the example program, a result, regular
    expressions, an encoding)."""
    source = Path(guide.__file__).read_text(encoding="utf-8")
    tree = ast.parse(source)
    skipped: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                isinstance(body[0].value, ast.Constant):
            skipped.add(id(body[0].value))  # docstrings
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "EXAMPLE"
                                                for t in node.targets):
            skipped.add(id(node.value))
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "compile":
            skipped.update(id(arg) for arg in node.args)
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            skipped.update(id(part) for part in ast.walk(node.format_spec))
    code = ('"count": 1', "x += 1", "d[k] + 1", "utf-8")
    typed = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                id(node) not in skipped:
            text = node.value
            for snippet in code:
                text = text.replace(snippet, "")
            if re.search(r"(?<![\w])\d", text):
                typed.append((node.lineno, node.value))
    assert typed == []


# --- what the prompt leaves out -----------------------------------------------------------------

def test_the_prompt_holds_no_developer_section():
    for programs in (True, False):
        text = prompt(programs=programs)
        for heading in DEVELOPER_HEADINGS:
            assert heading not in text, heading
        assert "zygote" not in text.lower()
        assert "µs" not in text and "microsecond" not in text


def test_the_default_prompt_fits_its_size_and_is_shorter_without_programs():
    longest_clock = "lockstep: each model call costs 600 ticks + one per 50 completion tokens"
    with_programs = prompt(clock=longest_clock, horizon_minutes=100_000)
    assert len(with_programs) <= LIMIT, len(with_programs)
    assert len(prompt(programs=False)) < len(prompt())


def test_without_programs_no_program_tool_or_section_appears():
    text = prompt(programs=False)
    for tool in guide.PROGRAM_TOOLS:
        assert tool not in text, tool
    assert "## Programs" not in text and "GameError" not in text
    assert "\n\n\n" not in text  # the section's place leaves no gap
    with_them = prompt(programs=True)
    assert all(tool in with_them for tool in guide.PROGRAM_TOOLS)
    assert "## Programs" in with_them


def test_the_guide_and_the_harness_agree_on_the_program_tools():
    from asiworld.agents.clients.harness import PROGRAM_TOOLS

    assert guide.PROGRAM_TOOLS == set(PROGRAM_TOOLS)
    assert guide.PROGRAM_TOOLS <= {spec["name"] for spec in tool_specs()}


# --- tools, programs and the observation --------------------------------------------------------

def test_every_offered_tool_is_named_once_with_its_arguments():
    text = guide.tools(programs=True)
    for spec in tool_specs():
        calls = re.findall(rf"`{spec['name']}\(([^`]*)\)`", text)
        assert len(calls) == 1, spec["name"]
        for argument in spec["parameters"].get("properties", {}):
            assert argument in calls[0], (spec["name"], argument)


def test_every_program_reading_helper_is_described_and_no_other():
    _, reading = guide._api_calls()
    assert set(reading) == set(guide.READING)


def test_the_programs_section_gives_the_budget_of_the_program_host():
    from asiworld.programs.limits import DEFAULT_BUDGET

    text = guide.programs()
    assert f"{DEFAULT_BUDGET.steps_per_tick:,} steps a tick" in text
    assert f"{DEFAULT_BUDGET.steps_total:,} in all" in text


def test_the_example_program_runs_and_gathers_wood():
    world = World.create(seed=3, size=48)
    ada = world.add_character("ada")
    programs = ProgramManager(world, in_process=True)
    try:
        assert programs.submit(ada, "wood", guide.EXAMPLE) == {"ok": True, "id": 1}
        for _ in range(3000):
            programs.before_step()
            programs.after_step(world.step())
            if programs.status(ada, 1)["status"] == "finished":
                break
        assert programs.status(ada, 1)["status"] == "finished"
        assert programs.outcome(ada, 1)["value"]["wood"] >= 10
    finally:
        programs.close()


def test_the_observation_section_says_how_coordinates_run():
    text = guide.observation()
    assert "x grows east, y grows south" in text
    assert "(x0 + c, y0 + r)" in text


# --- rendering a template -----------------------------------------------------------------------

def test_an_unknown_placeholder_is_refused_with_its_line():
    template = "# Mine\n\n{{tasks}}\n{{weather}}\n"
    with pytest.raises(CodedError) as refused:
        guide.render(template, horizon_minutes=None, clock=CLOCK, programs=True,
                     where="study.toml")
    assert refused.value.code == "unknown_placeholder"
    assert refused.value.message.startswith("study.toml line 4: unknown placeholder {{weather}}")
    assert "placeholders: " + ", ".join(guide.PLACEHOLDERS) in refused.value.message


def test_literal_braces_survive_rendering():
    template = 'Answer like {"a": 1} or {"a": {"b": 2}}.\n{{instructions}}\n'
    text = guide.render(template, horizon_minutes=None, clock=CLOCK, programs=True)
    assert text == 'Answer like {"a": 1} or {"a": {"b": 2}}.\n'


def test_instructions_are_included_and_nothing_stands_for_none():
    said = "Always say hello before you trade."
    assert said in prompt(instructions=said)
    assert "## Further instructions" in prompt(instructions=said)
    assert "## Further instructions" not in prompt()


def test_the_default_template_uses_every_placeholder_once():
    template = guide.default_template()
    found = guide.PLACEHOLDER.findall(template)
    assert sorted(found) == sorted(guide.PLACEHOLDERS)


def test_the_wheel_carries_the_prompt_template():
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = data["tool"]["setuptools"]["package-data"]["asiworld"]
    folder = guide.TEMPLATE.parent.relative_to(Path(guide.__file__).parents[2]).as_posix()
    assert f"{folder}/*.md" in patterns


def test_the_shipped_page_is_the_default_prompt_of_a_live_world():
    """docs/player-guide.md is what `asiworld agent` and `asiworld mcp` tell a model; it is
    written from the content (`python -m asiworld.agents.clients.guide docs/player-guide.md`), so a
    change of content that is not written into it fails here."""
    from asiworld.agents.clients.harness import system_prompt
    from asiworld.resources import shipped

    page = (shipped("docs") / guide.PAGE_NAME).read_text(encoding="utf-8")
    assert page == guide.page() == system_prompt()
