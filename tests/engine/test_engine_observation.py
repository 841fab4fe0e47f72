"""Observations: own status and pack, the view, events since the last look, memory; a text form."""

from __future__ import annotations


def test_an_observation_carries_the_characters_own_state_and_clears_its_events(arena):
    ada = arena.hero(items={"wood": 3})
    arena.tile(21, 20, "tree")
    arena.act(ada, {"type": "gather", "x": 21, "y": 20}, ticks=6)
    obs = arena.world.observe(ada.id)
    assert obs["self"]["inventory"] == [{"item": "wood", "count": 4}]
    assert any(e["kind"] == "gathered" for e in obs["events"])
    assert arena.world.observe(ada.id)["events"] == []


def test_an_ongoing_action_shows_as_running(arena):
    ada = arena.hero()
    arena.tile(21, 20, "tree")
    arena.act(ada, {"type": "gather", "x": 21, "y": 20}, ticks=2)
    action = arena.world.observe(ada.id)["self"]["action"]
    assert action["type"] == "gather" and action["status"] == "running"


def test_memory_keeps_tiles_seen_before(arena):
    ada = arena.hero()
    arena.act(ada, {"type": "move_to", "x": 28, "y": 20}, ticks=12)
    obs = arena.world.observe(ada.id, full_memory=True)
    rows = obs["memory"]["tiles"]
    assert rows[20][14] != " "  # seen on the way, now out of view
    assert obs["memory"]["seen_tiles"] > 17 * 17


def test_entities_out_of_view_are_remembered_where_they_were_last_seen(arena):
    ada = arena.hero()
    boar = arena.creature("boar", (23, 20))
    boar.next_move = 10**9
    arena.run(1)
    arena.world.move_entity(boar, 40, 40)
    arena.run(1)
    remembered = arena.world.observe(ada.id)["memory"]["entities"]
    assert {"id": boar.id, "x": 23, "y": 20} == {k: remembered[0][k] for k in ("id", "x", "y")}


def test_the_text_form_has_stats_a_map_and_a_legend(arena):
    ada = arena.hero(items={"berries": 2})
    text = arena.world.observe_text(ada.id)
    assert "health 100" in text and "berries x2" in text and "legend:" in text and "@" in text


def test_the_text_names_the_characters_in_view():
    from asiworld.engine import World

    world = World.create(seed=7)
    ada = world.add_character("ada", label="me")
    bob = world.add_character("bob", label="rival")
    world.step()
    line = next(ln for ln in world.observe_text(ada).splitlines() if ln.startswith("in view: "))
    assert f"character #{bob} at " in line and "(bob)" in line
    assert "ada" not in line  # not oneself


def test_structures_floors_and_loot_are_listed_exactly_where_the_view_sees_whether_few_or_many(
        arena):
    # Few things are tested against the view's rows, many against a set of its cells: either
    # way a thing is listed when its tile shows in the view, in the area's own order.
    from asiworld.engine.model import SURFACE, LootBag, Structure

    ada = arena.hero(at=(20, 20))
    for y in range(14, 27):
        arena.tile(23, y, "rock")  # a wall: what is behind it is in the window but not seen
    area = arena.world.areas[SURFACE]
    for spot in ((21, 18), (25, 21), (17, 22)):
        arena.creature("boar", spot).next_move = 10**9  # one behind the wall

    def listed_where_seen(spots):
        for x, y in spots:
            area.structures[(x, y)] = Structure("workbench", owner=ada.id)
            area.floor[(x + 1, y)] = ada.id
            area.loot[(x, y + 1)] = LootBag({"wood": 1}, expires=10**6, owner=ada.id)
        area.version += 1
        arena.run(1)
        obs = arena.world.observe(ada.id)
        view = obs["view"]

        def shown(x, y):
            i, j = y - view["y0"], x - view["x0"]
            return 0 <= i < view["h"] and 0 <= j < view["w"] and view["tiles"][i][j] != " "

        assert [(s["x"], s["y"]) for s in obs["structures"]] == \
            [xy for xy in area.structures if shown(*xy)]
        assert [(f["x"], f["y"]) for f in obs["floors"]] == [xy for xy in area.floor if shown(*xy)]
        assert [(b["x"], b["y"]) for b in obs["loot"]] == [xy for xy in area.loot if shown(*xy)]
        assert [e["id"] for e in obs["entities"]] == \
            sorted(eid for xy, eid in area.occupant.items() if shown(*xy) and eid != ada.id)
        return obs

    few = listed_where_seen([(21, 21), (25, 20), (18, 19), (40, 40)])
    assert 0 < len(few["structures"]) < 4  # behind the wall and far away: not listed
    assert len(few["entities"]) == 2
    h, w = few["view"]["h"], few["view"]["w"]
    many = listed_where_seen([(x, y) for x in range(10, 31, 2) for y in range(10, 31, 2)
                              if (x, y) != (20, 20)])
    assert 3 * len(area.structures) > h * w  # enough for the set of cells
    assert len(many["structures"]) > len(few["structures"])


def test_the_view_observed_again_shows_a_tile_changed_since_and_is_the_callers_to_keep(arena):
    # An observation in the same view reuses its rows; a tile changed in it (the area's version
    # moves) shows at once, and what a caller does to a returned observation stays there.
    ada = arena.hero(at=(20, 20))
    first = arena.world.observe(ada.id)
    view = first["view"]
    i, j = 20 - view["y0"], 22 - view["x0"]
    assert first["view"]["tiles"][i][j] == "."
    first["view"]["tiles"].clear()
    first["view"]["legend"].clear()
    again = arena.world.observe(ada.id)
    assert again["view"]["tiles"][i][j] == "." and len(again["view"]["tiles"]) == view["h"]
    assert again["view"]["legend"]["."] == "grass"
    arena.world.set_tile(arena.world.areas[ada.area], 22, 20, "tree")
    assert arena.world.observe(ada.id)["view"]["tiles"][i][j] == "T"


def test_an_observation_between_steps_remembers_the_bodies_in_view_as_a_walk_would(arena):
    # Observed between steps with nothing moved, the bodies in view get the tick written into
    # their entries (what a walk over the bodies would write); a body moved since is walked to.
    ada = arena.hero(at=(20, 20))
    boar = arena.creature("boar", (23, 20))
    boar.next_move = 10**9
    arena.run(3)
    world = arena.world
    memory = world.memory[ada.id].entities
    assert memory[boar.id]["tick"] == world.tick - 1  # the tick's own update, before the tick
    obs = world.observe(ada.id)
    assert [e["id"] for e in obs["entities"]] == [boar.id]
    assert memory[boar.id]["tick"] == world.tick
    world.move_entity(boar, 24, 21)  # moved between steps: still in view, somewhere else
    obs = world.observe(ada.id)
    assert (obs["entities"][0]["x"], obs["entities"][0]["y"]) == (24, 21)
    assert (memory[boar.id]["x"], memory[boar.id]["y"]) == (24, 21)
    world.move_entity(boar, 45, 45)  # out of view: remembered where it was last seen
    obs = world.observe(ada.id)
    assert obs["entities"] == []
    assert (obs["memory"]["entities"][0]["x"], obs["memory"]["entities"][0]["y"]) == (24, 21)


def test_tiles_seen_count_those_seen_from_elsewhere_when_back_in_the_same_view(arena):
    ada = arena.hero(at=(20, 20))
    before = arena.world.observe(ada.id)["memory"]["seen_tiles"]
    arena.act(ada, {"type": "move_to", "x": 28, "y": 20}, ticks=12)
    arena.act(ada, {"type": "move_to", "x": 20, "y": 20}, ticks=12)
    assert (ada.x, ada.y) == (20, 20)
    assert arena.world.observe(ada.id)["memory"]["seen_tiles"] > before
