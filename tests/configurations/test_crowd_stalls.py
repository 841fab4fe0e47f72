"""What stopped configurations of the nine-character cohort for good (docs/configurations.md,
"Why several stopped"): a character walled in by rock (on a small real world), one of its
stations it has no way to, walks to unseen points that lie inside rock, and a walk taken that
goes nowhere. A sensible player clears a way out, sets the station up again, walks to ground it
remembers, and gives the walk up; the strategy now does each."""

from __future__ import annotations

from asiworld.agents.bots.driver import AgentDriver
from asiworld.agents.bots.parameters import params
from asiworld.agents.bots.skills import MapNotes
from asiworld.agents.bots.strategy import SAME_WALK, Strategy
from asiworld.engine import World, inventory, load_content
from asiworld.pipeline import Pipeline

CONTENT = load_content()


def planner_in(world: World) -> tuple[int, Strategy, Pipeline]:
    char = world.add_character("ada", label="planner")
    agent = Strategy(seed=1, think_ticks=3, params=params("planner"))
    pipeline = Pipeline(world)
    pipeline.add_driver(AgentDriver()).add(char, agent)
    return char, agent, pipeline


def test_a_character_walled_in_by_rock_mines_its_way_out():
    # Wanting wood, it walked to one tree after another and every walk was refused: it stood
    # there for the rest of the run. Now it mines the rock beside it, pickaxe in hand.
    world = World.create(seed=3, content=CONTENT, size=48)
    char, agent, pipeline = planner_in(world)
    ch = world.entities[char]
    inventory.add(ch, "wooden_pickaxe", 1, CONTENT)
    start = (ch.x, ch.y)
    area = world.areas[0]
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        world.set_tile(area, ch.x + dx, ch.y + dy, "rock")
        area.amount[ch.y + dy, ch.x + dx] = 6
    pipeline.run_until(900)
    assert (ch.x, ch.y) != start, "it is still where the rock walled it in"
    assert inventory.totals(ch).get("stone", 0) > 0 or any(
        world.tile_name(area, start[0] + dx, start[1] + dy) != "rock"
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))


def test_a_station_it_has_no_way_to_is_set_up_again():
    world = World.create(seed=3, content=CONTENT, size=48)
    char, agent, pipeline = planner_in(world)
    agent.me.sites["workbench"] = (1, 1)  # a corner it cannot stand beside
    walks = [agent.moves.to_site({}, "workbench") for _ in range(3)]
    assert all(w["type"] == "move_to" for w in walks)
    for _ in range(3):
        agent.me.site_walk = "workbench"
        agent.feedback({"ok": False, "code": "no_path"})
    assert agent.moves.to_site({}, "workbench")["type"] == "wait"
    assert "workbench" not in agent.me.sites  # the plan places a new one


def test_after_unseen_points_with_no_way_to_them_it_walks_to_ground_it_remembers():
    notes = MapNotes()
    for y in range(40):
        for x in range(40):
            notes.tiles[(x, y)] = "#" if x >= 30 else "."
    import random

    rng = random.Random(1)
    for _ in range(20):
        p = notes.open_frontier(rng, 10, 10)
        assert p is not None and notes.tiles[p] == "."
        assert 6 <= abs(p[0] - 10) + abs(p[1] - 10) <= 40
    assert MapNotes().open_frontier(rng, 0, 0) is None


def test_a_walk_answered_again_and_again_from_one_place_is_given_up():
    agent = Strategy(seed=1, params=params("planner"))
    walk = {"type": "move_to", "x": 5, "y": 6}
    agent._decide = lambda obs: dict(walk)
    obs = {"self": {"x": 4, "y": 6, "area": 0}}
    for _ in range(SAME_WALK + 1):  # the first time, then again and again
        agent.decide(obs)
    assert (5, 6) in agent.me.avoid
