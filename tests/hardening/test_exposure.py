"""What a caller can learn or leave behind (issue 16, weakness 7): the admin token was also
taken from the query string (where it lands in access logs), and a program id answered
403 `not_your_program` for another character's program but 404 for an unused id, so anyone
could map which ids exist.

Bad inputs tried: the right admin token as `?token=`, in `?admin_token=` and in both the query
and a wrong header; another character's program id on the reader's own status and cancel
routes, next to an id never used."""

from __future__ import annotations

from tests.hardening.conftest import ADMIN, agent, bearer


def test_the_admin_token_in_the_query_string_is_not_accepted(http, runner):
    for url in (f"/admin/pause?token={ADMIN}", f"/admin/pause?admin_token={ADMIN}"):
        reply = http.post(url)
        assert reply.status_code == 403, url
        assert reply.get_json()["error"]["code"] == "not_admin"
    reply = http.post(f"/admin/pause?token={ADMIN}", headers={"X-Admin-Token": "wrong"})
    assert reply.status_code == 403
    assert not runner.paused
    assert http.post("/admin/pause", headers={"X-Admin-Token": ADMIN}).status_code == 200
    assert runner.paused


def test_another_characters_program_answers_like_an_unused_id(http, runner):
    ada, ada_token = agent(http, "ada")
    bob, bob_token = agent(http, "bob")
    reply = http.post(
        f"/api/agents/{ada}/programs",
        json={"name": "idle", "source": "while True:\n    wait(5)"},
        headers=bearer(ada_token),
    )
    pid = reply.get_json()["id"]
    unused = pid + 1000
    before = runner.world.state_hash()
    for method in ("get", "delete"):
        theirs = getattr(http, method)(f"/api/agents/{bob}/programs/{pid}", headers=bearer(bob_token))
        never = getattr(http, method)(
            f"/api/agents/{bob}/programs/{unused}", headers=bearer(bob_token)
        )
        assert theirs.status_code == never.status_code == 404
        said = theirs.get_json()["error"]
        assert said["code"] == never.get_json()["error"]["code"] == "unknown_program"
        assert said["message"].replace(str(pid), "N") == (
            never.get_json()["error"]["message"].replace(str(unused), "N")
        )
        assert set(theirs.headers.keys()) == set(never.headers.keys())
    assert runner.world.state_hash() == before
    status = http.get(f"/api/agents/{ada}/programs/{pid}", headers=bearer(ada_token)).get_json()
    assert status["status"] in ("running", "waiting")
