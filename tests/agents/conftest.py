"""Agent-API fixtures: a small real world (size 64) with no runner thread, so each test steps
the world itself (runner.step) and nothing is timed."""

from __future__ import annotations

import pytest

from app.server import create_app, services

pytest.importorskip("app.engine.frames")

CONFIG = {"SEED": 7, "WORLD_SIZE": 64, "TESTING": True, "PROGRAMS_IN_PROCESS": True}


@pytest.fixture
def app():
    return create_app(dict(CONFIG))


@pytest.fixture
def runner(app):
    return services(app).runner


@pytest.fixture
def http(app):
    return app.test_client()


def join(http, name: str = "ada", label: str = "tester") -> tuple[int, dict]:
    reply = http.post("/api/agents/join", json={"name": name, "label": label})
    assert reply.status_code == 201, reply.get_json()
    body = reply.get_json()
    return body["character"], {"Authorization": f"Bearer {body['token']}"}
