from __future__ import annotations

import pytest
from asiworld.server import services, socketio

# A small seeded real world: 48 tiles is the smallest the engine makes.
SMALL_WORLD = {"SEED": 3, "WORLD_SIZE": 48}


@pytest.fixture
def app(apps):
    # No runner thread: tests advance the world themselves with runner.step(n).
    return apps.create({**SMALL_WORLD, "TESTING": True})


@pytest.fixture
def runner(app):
    return services(app).runner


@pytest.fixture
def client(app):
    c = socketio.test_client(app)
    yield c
    if c.is_connected():
        c.disconnect()


def received(client, name: str) -> list:
    return [m["args"][0] for m in client.get_received() if m["name"] == name]
