"""A player's name on /play is unique and never a built-in agent's (issue 21: a player could
join as `planner-1`, and three times under one name). A refusal is a clear sentence with a
stable code and adds no character. Inputs tried: a built-in agent's name with and without its
number and in other case, a name in use, the same name with other case and spaces."""

from __future__ import annotations

import pytest
from asiworld.server import services, socketio

from tests.server.conftest import SMALL_WORLD


@pytest.fixture
def app(apps):
    return apps.create({**SMALL_WORLD, "TESTING": True, "AGENTS": ["planner"]})


def join(app, name: str) -> dict:
    client = socketio.test_client(app)
    try:
        return client.emit("join", {"name": name}, callback=True)
    finally:
        client.disconnect()


def names(app) -> list[str]:
    return sorted(c.name for c in services(app).runner.world.characters())


@pytest.mark.parametrize("name", ["planner-1", "planner", "Planner-7", "forager 2", "random"])
def test_a_built_in_agents_name_is_refused(app, name):
    before = names(app)
    reply = join(app, name)
    assert reply["ok"] is False and reply["code"] == "name_reserved"
    assert reply["message"].startswith(f"{name} is a name of the built-in ")
    assert "choose another name" in reply["message"]
    assert names(app) == before


@pytest.mark.parametrize("again", ["ada", "ADA", " ada ", "Ada"])
def test_a_name_in_use_is_refused(app, again):
    assert join(app, "ada")["ok"] is True
    before = names(app)
    reply = join(app, again)
    assert reply["ok"] is False and reply["code"] == "name_taken"
    assert "already called" in reply["message"] and "choose another name" in reply["message"]
    assert names(app) == before


def test_other_names_join(app):
    assert join(app, "ada")["ok"] and join(app, "planner2")["ok"] and join(app, "ada lovelace")["ok"]
    assert names(app) == ["ada", "ada lovelace", "planner-1", "planner2"]
