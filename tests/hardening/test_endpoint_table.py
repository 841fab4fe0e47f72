"""One endpoint table: the edge checks and the OpenAPI document both read server/endpoints.py, so
a route documented is a route checked, with the same bounds. Bad inputs tried: a name one longer
than a bound patched in the table (refused 422 bad_name, and the document shows the new bound)."""

from __future__ import annotations

import dataclasses
import re

from asiworld.server import endpoints
from asiworld.server.schemas import Obj, Str

NEW_MAX = 5


def flask_path(rule: str) -> str:
    return re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule)


def test_the_document_lists_exactly_the_documented_routes_and_each_is_served(app, http):
    served = {(r.endpoint, m.lower(), flask_path(r.rule)) for r in app.url_map.iter_rules()
              for m in r.methods}
    spec = http.get("/api/openapi.json").get_json()
    documented = {(p, m) for p, ops in spec["paths"].items() for m in ops}
    assert documented == {(r.path, r.method) for r in endpoints.documented()}
    for route in endpoints.ROUTES.values():
        assert (route.endpoint, route.method, route.path) in served, route.endpoint


def test_every_socket_event_has_a_payload_schema():
    for event in endpoints.describe_events():
        assert event["payload"].get("type") == "object" or "anyOf" in event["payload"], event


def test_a_bound_changed_in_the_table_is_checked_and_documented(monkeypatch, http):
    join = endpoints.ROUTES["agent_api.join"]
    name = dataclasses.replace(join.body.fields["name"], max_len=NEW_MAX,
                               pattern=rf"[A-Za-z0-9_\- ]{{1,{NEW_MAX}}}")
    body = Obj(fields={**join.body.fields, "name": name}, required=join.body.required)
    monkeypatch.setitem(endpoints.ROUTES, "agent_api.join", dataclasses.replace(join, body=body))

    refused = http.post("/api/agents/join", json={"name": "x" * (NEW_MAX + 1)})
    assert refused.status_code == 422 and refused.get_json()["code"] == "bad_name"
    assert http.post("/api/agents/join", json={"name": "x" * NEW_MAX}).status_code == 201
    spec = http.get("/api/openapi.json").get_json()
    schema = spec["paths"]["/api/agents/join"]["post"]["requestBody"]["content"]
    assert schema["application/json"]["schema"]["properties"]["name"]["maxLength"] == NEW_MAX
    assert isinstance(join.body.fields["name"], Str)
