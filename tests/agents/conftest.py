"""Agent-API fixtures: a small real world (size 64) with no runner thread, so each test steps
the world itself (runner.step) and nothing is timed."""

from __future__ import annotations

import pytest
from asiworld.server import services

CONFIG = {"SEED": 7, "WORLD_SIZE": 64, "TESTING": True, "PROGRAMS_IN_PROCESS": True}


@pytest.fixture
def app(apps):
    return apps.create(dict(CONFIG))


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


@pytest.fixture
def served(app):
    """The app over real HTTP on a free loopback port (for the SDK, harness and MCP server).
    The runner thread runs paused: every request's world access happens on that one thread
    (in-process programs are greenlets bound to it), and tests step the world between turns."""
    import threading

    from werkzeug.serving import make_server

    runner = services(app).runner
    runner.start()
    runner.pause()
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    runner.stop()
