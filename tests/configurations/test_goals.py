"""The strategy is a loop over goals (app/agents/bots/goals/), asked in the order a parameter set
names in configurations.toml (`goals`); the first that applies acts. The order read from the
file is the order asked, on a small seeded world, and a bad goal list is refused with a stable
code and a sentence naming the goal.

Bad inputs tried: an unknown goal, a goal named twice, an empty list, a list of numbers."""

from __future__ import annotations

import shutil

import pytest
from asiworld.agents.bots.goals import GOALS
from asiworld.agents.bots.parameters import FILE, ParameterError, read_sets, shipped_sets
from asiworld.agents.bots.strategy import Strategy
from asiworld.engine import World, load_content
from asiworld.engine.content import CONTENT_DIR
from asiworld.pipeline import Pipeline

CONTENT = load_content()
PLANNER_ORDER = '''goals = ["program", "survive", "loot", "clear", "busy", "eat", "unstick", "sleep", "forage",
         "tools", "iron", "arms", "home", "cloth", "leather", "stove", "outfit",
         "supplies", "recover", "descend", "altar", "pastime"]'''


@pytest.fixture
def content_copy(tmp_path):
    for f in CONTENT_DIR.glob("*.toml"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


def with_set(folder, name: str, goals: str) -> None:
    """configurations.toml in `folder` with one more set, `name`, of these goals."""
    path = folder / FILE
    path.write_text(path.read_text() + f"\n[sets.{name}]\ngoals = {goals}\n")


def asked_on_a_fresh_character(agent: Strategy) -> tuple[list[str], dict | None]:
    """The goals its first decision asks, in order, on a small seeded world, and its answer."""
    world = World.create(seed=3, content=CONTENT, size=48)
    char = world.add_character("ada", label=agent.name)
    asked = []
    for goal in agent.goals:
        def logged(obs, items, goal=goal, ask=goal.next):
            asked.append(goal.name)
            return ask(obs, items)
        goal.next = logged
    answer = agent.decide(Pipeline(world).observe(char))
    return asked, answer


def test_the_shipped_order_is_every_goal_once_and_the_one_each_set_asks():
    text = (CONTENT_DIR / FILE).read_text()
    assert PLANNER_ORDER in text  # the planner's order, in the file's [defaults]
    for name, chosen in shipped_sets().items():
        agent = Strategy(seed=1, params=chosen)
        assert [g.name for g in agent.goals] == list(chosen.goals) == list(GOALS), name


def test_the_strategy_asks_the_goals_in_the_order_the_file_names(content_copy):
    # A fresh planner asks from the first goal on, until the tools (no workbench yet) answer.
    planner = Strategy(seed=1, params=read_sets(content_copy)["planner"])
    asked, answer = asked_on_a_fresh_character(planner)
    order = list(planner.p.goals)
    assert asked == order[:order.index("tools") + 1]
    assert answer is not None
    # The same character with the descent put first walks to the Outer Court's gate at once.
    with_set(content_copy, "deep_first", '["descend", "tools", "survive"]')
    deep = Strategy(seed=1, params=read_sets(content_copy)["deep_first"])
    asked, answer = asked_on_a_fresh_character(deep)
    assert asked == ["descend"]
    world = World.create(seed=3, content=CONTENT, size=48)
    assert answer == {"type": "move_to", "x": world.landmarks.gates[0][0],
                      "y": world.landmarks.gates[0][1]}


@pytest.mark.parametrize("goals, code, message", [
    ('["survive", "tools", "teleport"]', "unknown_goal", "names unknown goal 'teleport'; goals: "),
    ('["survive", "tools", "survive"]', "repeated_goal", "names goal 'survive' twice"),
    ("[]", "no_goals", "is empty: the strategy would have nothing to ask"),
    ("[1, 2]", "bad_goals", "must be a list of goal names, not [1, 2]"),
])
def test_a_bad_goal_list_is_refused_with_its_code_naming_the_goal(content_copy, goals, code,
                                                                   message):
    with_set(content_copy, "odd", goals)
    with pytest.raises(ParameterError) as caught:
        read_sets(content_copy)
    assert caught.value.code == code
    assert f"{FILE} [sets.odd] goals {message}" in str(caught.value)
