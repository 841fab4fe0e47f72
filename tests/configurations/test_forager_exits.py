"""The forager never walls itself in with its own stations. On seed 3 it stood between the loom
it placed to the west and the workbench to the east, with flax to the north and a tree to the
south: for the rest of the run every walk it asked for was refused (`no_path`), about 1,150
refusals in an hour. A player keeps a way out when building, and takes a station down to get
out if it is boxed in anyway."""

from __future__ import annotations

from collections import Counter

from asiworld.agents.bots.driver import AgentDriver
from asiworld.agents.bots.forager import Forager
from asiworld.agents.bots.skills import MapNotes, free_neighbour
from asiworld.engine import World, inventory, load_content
from asiworld.headless.run import Run, RunConfig
from asiworld.pipeline import Pipeline

CONTENT = load_content()
ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))


def observation_at(x: int, y: int, structures: list[tuple[int, int]]) -> dict:
    return {"self": {"x": x, "y": y}, "entities": [], "loot": [], "floors": [],
            "structures": [{"x": sx, "y": sy, "kind": "workbench"} for sx, sy in structures]}


def block_of(tile: str) -> MapNotes:
    """Notes of the 3 x 3 tiles round (10, 10), all `tile`; what lies beyond is unseen."""
    notes = MapNotes()
    notes.tiles.update({(10 + dx, 10 + dy): tile for dx in (-1, 0, 1) for dy in (-1, 0, 1)})
    return notes


def test_a_station_is_never_placed_on_the_last_way_out():
    # grass all round (10, 10), but for trees north and south and a workbench to the east
    notes = block_of(".")
    notes.tiles[(10, 9)] = notes.tiles[(10, 11)] = "T"
    obs = observation_at(10, 10, structures=[(11, 10)])
    spot = free_neighbour(obs, notes, avoid=set())
    assert spot is not None and spot != (9, 10)  # west is the only way out left


def test_with_no_spot_that_keeps_a_way_out_nothing_is_placed():
    notes = block_of("T")
    notes.tiles[(10, 10)] = notes.tiles[(9, 10)] = "."
    assert free_neighbour(observation_at(10, 10, structures=[]), notes, avoid=set()) is None


def test_the_forager_on_seed_3_keeps_walking_after_it_builds():
    refusals: Counter = Counter()
    feedback = Forager.feedback

    def counted(self, result):
        refusals[result.get("code")] += not result["ok"]
        return feedback(self, result)

    Forager.feedback = counted
    try:
        results = Run(RunConfig(seed=3, minutes=60, agents=["forager"], stagger_ticks=0,
                                think_ticks=3, record=False)).run()
    finally:
        Forager.feedback = feedback
    (row,) = results["configurations"]
    assert refusals["no_path"] < 100, refusals
    assert row["measures"]["crafts"] >= 2  # the sword, and cloth for its bed


def test_a_forager_boxed_in_by_its_own_station_takes_it_down():
    world = World.create(seed=3, content=CONTENT, size=48)
    char = world.add_character("fern", label="forager")
    ch = world.entities[char]
    area = world.areas[0]
    x, y = ch.x, ch.y
    for dx, dy in ORTHOGONAL[1:]:
        world.set_tile(area, x + dx, y + dy, "tree")
        area.amount[y + dy, x + dx] = 5  # wood in each, as in a grown tree
    world.set_tile(area, x + 1, y, "grass")
    agent = Forager(seed=1, think_ticks=3)
    pipeline = Pipeline(world)
    pipeline.add_driver(AgentDriver()).add(char, agent)
    inventory.add(ch, "wood", 4, CONTENT)  # a workbench is placed straight from wood
    assert pipeline.submit(char, {"type": "place", "item": "workbench", "x": x + 1, "y": y})["ok"]
    agent.sites["workbench"] = (x + 1, y)
    pipeline.run_until(world.tick + 300)
    assert (ch.x, ch.y) != (x, y), "it still stands where its workbench boxed it in"
