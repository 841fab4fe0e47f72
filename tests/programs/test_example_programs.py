"""The built-in programs in app/agents/bots/programs: they compile, and steady_clear shows that the
curriculum's Steadiness stage can be reached by keeping the enemies' beat on the world clock.

Bad inputs tried: a tier that does not exist for the author's set-up (0, 4, "2"), the command
line's --start-in-tier out of its choices, and a program name the library does not have."""

from __future__ import annotations

import pytest
from asiworld.agents.bots import program_library
from asiworld.cli import main as cli_main
from asiworld.engine import World, load_content
from asiworld.evaluation.achievements import AchievementRecord
from asiworld.pipeline import Pipeline
from asiworld.programs.compiler import CompiledProgram, compile_program
from asiworld.programs.kit import start_in_tier
from asiworld.programs.manager import ProgramManager

from tests.programs.helpers import run_ticks

CONTENT = load_content()


def cleared_with(seed: int, tier: int) -> tuple[dict, AchievementRecord]:
    world = World.create(seed=seed, content=CONTENT, size=64)
    char = world.add_character("ada")
    start_in_tier(Pipeline(world), char, tier)
    manager = ProgramManager(world, in_process=True)
    pid = manager.submit(char, "steady", program_library.source("steady_clear"))["id"]
    record = AchievementRecord()
    for _ in range(30):  # at most 3,000 ticks
        for event in run_ticks(manager, world, 100):
            if event.get("char") == char:
                record.feed(event)
        if manager.status(char, pid)["status"] not in ("running", "waiting"):
            break
    status = manager.status(char, pid)
    assert status["status"] == "finished", status
    return status["outcome"]["value"], record


@pytest.mark.parametrize("name", program_library.names())
def test_every_built_in_program_compiles(name):
    assert isinstance(compile_program(program_library.source(name)), CompiledProgram)


def test_asking_for_a_program_the_library_does_not_have_names_the_ones_it_has():
    with pytest.raises(KeyError, match="steady_clear"):
        program_library.source("no_such_program")


@pytest.mark.parametrize("seed", [4, 12])
def test_steady_clear_clears_the_inner_temple_steadily_enough_for_stage_six(seed):
    outcome, record = cleared_with(seed, tier=2)
    assert outcome["tier"] == 2 and outcome["cleared"] is True
    assert outcome["damage"] <= 30 and outcome["supplies"] == 0
    steadiness = record.stages[5]
    assert steadiness.name == "Steadiness" and steadiness.met
    assert record.stages[4].met  # Inner Temple: a solo Tier 2 completion, left alive


def test_the_author_set_up_enters_the_dark_tier_with_a_lit_torch():
    world = World.create(seed=7, content=CONTENT, size=64)
    char = world.add_character("ada")
    start_in_tier(Pipeline(world), char, 3)
    me = world.observe(char)["self"]
    assert me["area"] != 0 and me["area_kind"] != "surface"
    assert me["equipment"]["light"] == "torch" and me["light_ticks"] > 0
    assert me["equipment"]["weapon"] == "iron_sword" and me["equipment"]["armor"] == "iron_armor"


@pytest.mark.parametrize("tier", [0, 4, "2"])
def test_the_author_set_up_refuses_a_tier_that_does_not_exist(tier):
    world = World.create(seed=7, content=CONTENT, size=64)
    char = world.add_character("ada")
    before = world.state_hash()
    with pytest.raises(ValueError, match="there is no tier"):
        start_in_tier(Pipeline(world), char, tier)
    assert world.state_hash() == before


def test_program_run_refuses_a_tier_outside_its_choices(capsys):
    # cli.main returns argparse's exit code (2) instead of letting SystemExit through
    code = cli_main(
        ["program", "run", str(program_library.FOLDER / "steady_clear.py"), "--start-in-tier", "4"]
    )
    assert code == 2
    assert "--start-in-tier" in capsys.readouterr().err
