"""schemathesis against the agent API's OpenAPI spec (/api/openapi.json): generated requests for
every documented operation, with a real agent's token, never get a 5xx, and a refused request
changes nothing. Skipped (with the reason) when schemathesis is not installed."""

from __future__ import annotations

import pytest

schemathesis = pytest.importorskip(
    "schemathesis", reason="schemathesis is not installed (pip install schemathesis)"
)
pytest.importorskip("asiworld.engine.frames")

from asiworld.server import create_app, services  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402

from tests.hardening.conftest import ADMIN  # noqa: E402

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
if "agent_api.openapi_spec" not in {rule.endpoint for rule in APP.url_map.iter_rules()}:
    pytest.skip("the server has no /api/openapi.json", allow_module_level=True)

JOINED = APP.test_client().post("/api/agents/join", json={"name": "fuzz"}).get_json()
schema = schemathesis.openapi.from_wsgi("/api/openapi.json", APP)


@schema.parametrize()
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
def test_documented_operations_never_5xx_and_refusals_change_nothing(case):
    world = services(APP).runner.world
    before = (world.state_hash(), len(world.characters()))
    cid = (case.path_parameters or {}).get("cid")
    if type(cid) is int and cid % 2:
        case.path_parameters["cid"] = JOINED["character"]  # half the calls reach the handler
    response = case.call(headers={"Authorization": f"Bearer {JOINED['token']}"})
    case.validate_response(response, checks=[not_a_server_error])
    if response.status_code >= 400:
        assert (world.state_hash(), len(world.characters())) == before
