"""Dungeons over the wire: a player inside an instance receives that instance and nothing
else, spectators get instances as areas, following a character follows it in, and the play
page's content lists the merchant's prices and the tier names.

Setup stands characters on gates directly on the world (the runner has no thread here, so
`runner.call` runs inline), as the engine's own dungeon tests do; entering is a real `act`."""

from __future__ import annotations

import pytest
from asiworld.server import close_app, create_app, services, socketio

from tests.server.conftest import received

SURFACE = 0


@pytest.fixture(scope="module")
def engine_app():
    app = create_app({"SEED": 7, "TESTING": True})
    yield app
    close_app(app)  # one app for the module: the `apps` fixture closes a test's


@pytest.fixture
def runner(engine_app):
    return services(engine_app).runner


def stand_on_gate(runner, cid: int, tier: int) -> None:
    def move() -> None:
        world = runner.world
        x, y = world.landmarks.gates[tier - 1]
        world.move_entity(world.entities[cid], x, y, SURFACE)

    runner.call(move)


def join(engine_app, name: str):
    client = socketio.test_client(engine_app)
    reply = client.emit("join", {"name": name}, callback=True)
    assert reply["ok"], reply
    return client, reply


def enter_as_player(engine_app, runner, name: str, tier: int = 1):
    """A joined player standing on a gate enters with `act`; returns (client, char, instance)."""
    client, reply = join(engine_app, name)
    stand_on_gate(runner, reply["char"], tier)
    result = client.emit(
        "act", {"token": reply["token"], "action": {"type": "enter"}}, callback=True
    )
    assert result["ok"], result
    runner.step(1)
    instance = runner.call(lambda: runner.world.entities[reply["char"]].area)
    assert instance != SURFACE
    client.get_received()  # what came before entering is not under test
    return client, reply, instance


def ids_in_area(runner, area: int) -> set[int]:
    return runner.call(lambda: {eid for eid, e in runner.world.entities.items() if e.area == area})


def test_a_player_in_a_dungeon_receives_only_its_instance(engine_app, runner):
    stay = runner.add_character("stay-home", label="test")  # someone left on the surface
    client, reply, instance = enter_as_player(engine_app, runner, "delver")
    client.emit("observe", {"token": reply["token"], "full_memory": True})
    runner.step(4)
    observations = received(client, "observation")
    assert len(observations) >= 4
    assert not received(client, "frame"), "a player must never get spectator frames"
    size = runner.call(lambda: runner.world.areas[instance].terrain.shape)
    inside = ids_in_area(runner, instance)
    full = [o for o in observations if "tiles" in o.get("memory", {})]
    assert full, "the full-memory observation did not arrive"
    for obs in observations:
        assert obs["self"]["area"] == instance
        assert obs["self"]["area_kind"] == "dungeon"
        assert obs["view"]["area"] == instance
        assert {e["id"] for e in obs["entities"]} <= inside - {reply["char"]}
        assert stay not in {e["id"] for e in obs["entities"]}
        assert "keyframe" not in obs and "areas" not in obs
    for obs in full:  # its memory is the instance's map, not the surface's
        rows = obs["memory"]["tiles"]
        assert (len(rows), len(rows[0])) == size
    client.disconnect()


def test_two_players_in_the_same_tier_never_see_each_others_instance(engine_app, runner):
    first, one, area_one = enter_as_player(engine_app, runner, "first")
    second, two, area_two = enter_as_player(engine_app, runner, "second")
    assert area_one != area_two, "each entry is its own instance"
    runner.step(3)
    theirs = {1: ids_in_area(runner, area_two), 2: ids_in_area(runner, area_one)}
    for client, other_ids in ((first, theirs[1]), (second, theirs[2])):
        for obs in received(client, "observation"):
            assert not {e["id"] for e in obs["entities"]} & other_ids
    first.disconnect()
    second.disconnect()


def test_spectators_get_a_new_instance_as_an_area_and_entities_name_their_area(engine_app, runner):
    spectator = socketio.test_client(engine_app)
    spectator.emit("spectate", {})
    player, reply, instance = enter_as_player(engine_app, runner, "watched")
    frames = received(spectator, "frame")
    new_areas = {}
    entities = {}
    for frame in frames:
        new_areas.update((frame.get("deltas") or {}).get("areas") or {})
        entities.update((frame.get("deltas") or {}).get("entities") or {})
    area = new_areas[str(instance)]
    assert area["kind"] == "dungeon" and area["tier"] == 1
    assert area["w"] > 0 and area["h"] > 0 and area["tiles"]
    assert entities[str(reply["char"])]["area"] == instance
    bosses = [e for e in entities.values() if e.get("boss") and e["area"] == instance]
    assert len(bosses) == 1 and bosses[0]["kind"] == "gatekeeper"
    assert bosses[0]["max_health"] >= bosses[0]["health"] > 0

    # leaving through the entrance empties the instance; spectators are told it is gone
    result = player.emit(
        "act", {"token": reply["token"], "action": {"type": "leave"}}, callback=True
    )
    assert result["ok"], result
    runner.step(3)
    removed = [
        area_id
        for frame in received(spectator, "frame")
        for area_id in (frame.get("deltas") or {}).get("areas_removed") or []
    ]
    assert instance in removed
    player.disconnect()
    spectator.disconnect()


def test_following_a_character_follows_it_into_its_instance(engine_app, runner):
    player, reply, instance = enter_as_player(engine_app, runner, "followed")
    spectator = socketio.test_client(engine_app)
    spectator.emit("spectate", {})
    ack = spectator.emit("follow", {"char": reply["char"]}, callback=True)
    assert ack["ok"], ack
    runner.step(2)
    follows = received(spectator, "follow")
    assert follows
    size = runner.call(lambda: runner.world.areas[instance].terrain.shape)
    for obs in follows:
        assert obs["self"]["id"] == reply["char"]
        assert obs["self"]["area"] == instance
        rows = obs["memory"]["tiles"]
        assert (len(rows), len(rows[0])) == size
        assert "ticks" not in obs["memory"]
    player.disconnect()
    spectator.disconnect()


def test_content_lists_the_merchants_prices_tier_names_and_bosses(engine_app):
    body = engine_app.test_client().get("/api/content").get_json()
    assert body["merchant"]["sells"]["travel_outfit_design"] == 40
    assert body["merchant"]["max_count"] >= 1
    tiers = body["dungeons"]["tiers"]
    assert [tiers[t]["name"] for t in ("1", "2", "3")] == [
        "Outer Court",
        "Inner Temple",
        "Royal Tomb",
    ]
    assert tiers["2"]["requires"] == "outer_sigil" and tiers["3"]["dark"] is True
    assert body["dungeons"]["sanctum"]["boss"] == "shadow_king"
    creatures = body["creatures"]
    assert creatures["gatekeeper"]["boss"] and not creatures["guard"]["boss"]
    assert creatures["shadow_king"]["health"] > creatures["tomb_king"]["health"]
