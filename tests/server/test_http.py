"""HTTP rules: health, the world summary, pages and admin controls."""

from __future__ import annotations


def test_healthz_reports_ok_and_the_tick(app):
    body = app.test_client().get("/healthz").get_json()
    assert body["ok"] is True and body["tick"] == 0


def test_world_summary_lists_characters_with_measures(app, client):
    client.emit("join", {"name": "ada"}, callback=True)
    body = app.test_client().get("/api/world").get_json()
    assert body["tick"] == 0 and body["day"] == 1 and body["phase"] == "day"
    (ada,) = body["characters"]
    assert ada["name"] == "ada" and ada["health"] == 100 and ada["hunger"] == 100


def test_pages_render_without_anything_from_the_internet(app):
    http = app.test_client()
    for path in ("/", "/live", "/play"):
        page = http.get(path)
        assert page.status_code == 200
        html = page.get_data(as_text=True)
        assert "http://" not in html and "https://" not in html
    assert http.get("/static/vendor/socket.io.esm.min.js").status_code == 200
    assert http.get("/static/sprites/atlas.png").status_code == 200


def test_admin_pause_step_resume_and_speed(app, runner):
    http = app.test_client()
    assert http.post("/admin/pause").get_json()["paused"] is True
    assert http.post("/admin/step?n=3").get_json()["tick"] == 3
    assert http.post("/admin/resume").get_json()["paused"] is False
    assert http.post("/admin/speed", json={"speed": 20}).get_json()["speed"] == 20


def test_admin_refuses_bad_numbers_and_changes_nothing(app, runner):
    http = app.test_client()
    for path in (
        "/admin/step?n=0",
        "/admin/step?n=abc",
        "/admin/speed?speed=-1",
        "/admin/speed?speed=fast",
    ):
        reply = http.post(path)
        assert reply.status_code == 400 and reply.get_json()["code"] == "bad_argument"
    assert runner.world.tick == 0 and runner.speed == 10.0


def test_admin_token_is_required_when_configured(apps):

    from tests.server.conftest import SMALL_WORLD

    app = apps.create({**SMALL_WORLD, "ADMIN_TOKEN": "s3cret"})
    http = app.test_client()
    assert http.post("/admin/pause").status_code == 403
    assert http.post("/admin/pause", headers={"X-Admin-Token": "wrong"}).status_code == 403
    assert http.post("/admin/pause", headers={"X-Admin-Token": "s3cret"}).status_code == 200


def test_a_request_the_stopped_clock_cannot_do_is_a_503_world_stopped_not_a_500(app, runner):
    """A study's world at its horizon (or a clock shutting down) does nothing more; what asks
    it gets the one error shape, and the world is unchanged."""
    http = app.test_client()
    runner.horizon = 2
    assert http.post("/admin/step?n=2").get_json()["tick"] == 2
    answer = http.post("/admin/step?n=1")
    assert answer.status_code == 503
    assert answer.get_json()["error"]["code"] == "world_stopped"
    assert "horizon" in answer.get_json()["error"]["message"]
    assert runner.world.tick == 2
