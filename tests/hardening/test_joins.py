"""Joins are bounded (issue 16, weakness 5): the join rate limit was keyed on the Authorization
header, which a join does not need (150 joins with a random header each: 150 accepted), and a
world took any number of permanent characters. Now joins are limited per client address
(REST and Socket.IO share the bucket), a world has a character cap (`--max-characters`) and a
closed world a join token (`--join-token`). Every refusal has its code and sentence and changes
nothing.

Bad inputs tried: 150 joins with a random `Authorization` header each, joins over fresh
Socket.IO connections, a join past the cap on both paths, a missing, wrong, empty and non-text
`join_token`, and `--max-characters` abc, 0, -3, 1.5 and an empty string."""

from __future__ import annotations

import secrets

import pytest
from asiworld.cli import main
from asiworld.server import services, socketio

from tests.hardening.conftest import CONFIG

OPEN = {"act": (1e9, 1e9), "program": (1e9, 1e9), "other": (1e9, 1e9)}


def make_app(apps, **config):
    return apps.create({**CONFIG, "RATE_LIMITS": {**OPEN, "join": (0.001, 5)}, **config})


def _state(app) -> tuple:
    world = services(app).runner.world
    return world.state_hash(), len(world.characters())


def rest_join(http, name: str = "ada", address: str = "127.0.0.1", **body):
    return http.post(
        "/api/agents/join",
        json={"name": name, **body},
        headers={"Authorization": f"Bearer {secrets.token_hex(8)}"},
        environ_base={"REMOTE_ADDR": address},
    )


def socket_join(app, name: str = "ada", address: str = "127.0.0.1", **body) -> dict:
    client = socketio.test_client(app)
    # A real server's environ has the peer's address; the test client's leaves it out.
    socketio.server.environ[client.eio_sid]["REMOTE_ADDR"] = address
    try:
        return client.emit("join", {"name": name, **body}, callback=True)
    finally:
        client.disconnect()


def test_random_authorization_headers_do_not_lift_the_join_limit_of_an_address(apps):
    app = make_app(apps)
    http = app.test_client()
    before = len(services(app).runner.world.characters())
    codes = [rest_join(http, f"j{i}").status_code for i in range(150)]
    assert codes.count(201) == 5 and codes.count(429) == 145
    assert len(services(app).runner.world.characters()) == before + 5
    refused = rest_join(http, "late")
    assert refused.get_json()["error"]["code"] == "rate_limited"
    assert refused.headers["Retry-After"]


def test_socket_joins_over_fresh_connections_share_the_address_bucket_with_rest(apps):
    app = make_app(apps)
    http = app.test_client()
    assert [rest_join(http, f"r{i}").status_code for i in range(3)] == [201] * 3
    replies = [socket_join(app, f"s{i}") for i in range(4)]
    assert [r["ok"] for r in replies] == [True, True, False, False]
    assert replies[-1]["code"] == "rate_limited" and replies[-1]["message"]


def test_another_address_has_its_own_join_bucket(apps):
    app = make_app(apps)
    http = app.test_client()
    for _ in range(5):
        assert rest_join(http).status_code == 201
    assert rest_join(http).status_code == 429
    assert rest_join(http, address="10.0.0.9").status_code == 201


def test_a_full_world_refuses_joins_on_both_paths_and_changes_nothing(apps):
    app = make_app(apps, RATE_LIMITS={**OPEN, "join": (1e9, 1e9)})
    held = len(services(app).runner.world.characters())
    app.config["MAX_CHARACTERS"] = held + 2
    http = app.test_client()
    assert rest_join(http, "one").status_code == 201
    assert socket_join(app, "two")["ok"] is True
    before = _state(app)
    refused = rest_join(http, "three")
    assert refused.status_code == 409
    error = refused.get_json()["error"]
    assert error["code"] == "world_full" and f"{held + 2} of {held + 2}" in error["message"]
    reply = socket_join(app, "four")
    assert reply["ok"] is False and reply["code"] == "world_full"
    assert _state(app) == before


def test_the_cap_holds_under_concurrent_joins(apps):
    from concurrent.futures import ThreadPoolExecutor

    app = make_app(apps, RATE_LIMITS={**OPEN, "join": (1e9, 1e9)})
    held = len(services(app).runner.world.characters())
    app.config["MAX_CHARACTERS"] = held + 3
    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(lambda i: rest_join(app.test_client(), f"c{i}").status_code, range(16)))
    assert codes.count(201) == 3 and codes.count(409) == 13
    assert len(services(app).runner.world.characters()) == held + 3


@pytest.mark.parametrize("given", [None, "wrong", "Wrong-token-but-close"])
def test_a_closed_world_refuses_joins_without_its_token(apps, given):
    app = make_app(apps, JOIN_TOKEN="Wrong-token-but-closed")
    http = app.test_client()
    before = _state(app)
    body = {} if given is None else {"join_token": given}
    refused = rest_join(http, **body)
    assert refused.status_code == 403
    assert refused.get_json()["error"]["code"] == "join_closed"
    reply = socket_join(app, **body)
    assert reply["ok"] is False and reply["code"] == "join_closed"
    assert _state(app) == before


@pytest.mark.parametrize("given", ["", 5, ["t"], "no spaces allowed"])
def test_a_malformed_join_token_is_refused_as_malformed(apps, given):
    app = make_app(apps, JOIN_TOKEN="sesame")
    before = _state(app)
    refused = rest_join(app.test_client(), join_token=given)
    assert refused.status_code == 422
    assert refused.get_json()["error"]["code"] == "bad_join_token"
    assert socket_join(app, join_token=given)["code"] == "bad_join_token"
    assert _state(app) == before


def test_the_join_token_opens_a_closed_world_on_both_paths(apps):
    app = make_app(apps, JOIN_TOKEN="sesame")
    http = app.test_client()
    assert rest_join(http, join_token="sesame").status_code == 201
    assert socket_join(app, "bea", join_token="sesame")["ok"] is True


def test_an_open_world_ignores_a_join_token(apps):
    app = make_app(apps)
    assert rest_join(app.test_client(), join_token="anything").status_code == 201


@pytest.mark.parametrize("bad", ["abc", "0", "-3", "1.5", ""])
def test_serve_refuses_a_bad_character_cap_before_starting(bad, capsys, tmp_path):
    code = main(["serve", "--max-characters", bad, "--data-dir", str(tmp_path / "data")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: bad_max_characters: --max-characters is a whole number")
    assert "Traceback" not in err
    assert not (tmp_path / "data").exists()
