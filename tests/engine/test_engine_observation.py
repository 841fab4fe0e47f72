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
