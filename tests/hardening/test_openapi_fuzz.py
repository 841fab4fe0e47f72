"""schemathesis against the agent API's OpenAPI spec (/api/openapi.json): generated requests for
every documented operation, with a real agent's token, never get a 5xx, and a refused request
changes nothing. schemathesis is in the test extra: without it the module fails to import."""

from __future__ import annotations

import pytest
import schemathesis
from asiworld.server import close_app, create_app, services
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

from tests.hardening.conftest import ADMIN

APP = create_app(
    {
        "SEED": 7,
        "WORLD_SIZE": 64,
        "TESTING": True,
        "PROGRAMS_IN_PROCESS": True,
        "ADMIN_TOKEN": ADMIN,
        "RATE_LIMITS": {kind: (1e9, 1e9) for kind in ("act", "join", "program", "other")},
    }
)
JOINED = APP.test_client().post("/api/agents/join", json={"name": "fuzz"}).get_json()
schema = schemathesis.openapi.from_wsgi("/api/openapi.json", APP)


# One test per operation, named by its label. schemathesis's own @schema.parametrize() gives
# all its items one node id, and pytest-xdist (the suite's two workers) keeps one item per node
# id: eight of the nine operations went unfuzzed.
OPERATIONS = {op.label: op for op in (result.ok() for result in schema.get_all_operations())}


@pytest.fixture(scope="module", autouse=True)
def closed_after():
    """The module's one app (schemathesis reads its spec at import), closed after its tests."""
    yield
    close_app(APP)


@pytest.mark.parametrize("label", sorted(OPERATIONS))
def test_documented_operations_never_5xx_and_refusals_change_nothing(label):
    @given(case=OPERATIONS[label].as_strategy())
    @settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
    def refused_changes_nothing(case):
        check(case)

    refused_changes_nothing()


def test_every_documented_operation_is_fuzzed():
    assert len(OPERATIONS) >= 9 and "POST /api/agents/join" in OPERATIONS


def check(case) -> None:
    world = services(APP).runner.world
    before = (world.state_hash(), len(world.characters()))
    cid = (case.path_parameters or {}).get("cid")
    if type(cid) is int and cid % 2:
        case.path_parameters["cid"] = JOINED["character"]  # half the calls reach the handler
    response = case.call(headers={"Authorization": f"Bearer {JOINED['token']}"})
    case.validate_response(response, checks=[not_a_server_error])
    if response.status_code >= 400:
        assert (world.state_hash(), len(world.characters())) == before
