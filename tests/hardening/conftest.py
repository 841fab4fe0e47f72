"""Hardening fixtures: a small real world (size 64), no runner thread (tests step it), with an
admin token and a spectator token configured so every check is live."""

from __future__ import annotations

import pytest
from asiworld.server import services, socketio

ADMIN = "admin-secret"
SPECTATOR = "spectator-secret"
CONFIG = {
    "SEED": 7,
    "WORLD_SIZE": 64,
    "TESTING": True,
    "PROGRAMS_IN_PROCESS": True,
    "ADMIN_TOKEN": ADMIN,
    "SPECTATOR_TOKEN": SPECTATOR,
}


@pytest.fixture
def app(apps):
    return apps.create(dict(CONFIG))


@pytest.fixture
def runner(app):
    return services(app).runner


@pytest.fixture
def http(app):
    return app.test_client()


@pytest.fixture
def sock(app):
    clients = []

    def connect(namespace: str = "/", auth: dict | None = None):
        client = socketio.test_client(app, namespace=namespace, auth=auth)
        clients.append(client)
        return client

    yield connect
    for client in clients:
        if client.is_connected():
            client.disconnect()


def agent(http, name: str = "ada") -> tuple[int, str]:
    reply = http.post("/api/agents/join", json={"name": name, "label": "tester"})
    assert reply.status_code == 201, reply.get_json()
    body = reply.get_json()
    return body["character"], body["token"]


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}
