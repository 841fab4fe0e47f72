"""The replay viewer's HTTP side: list, chunks by index, seek, overview, point of view, fork.
Bad inputs tried: unknown and malformed ids, chunk indexes out of range, non-numeric and
out-of-range ticks, unknown characters, a fork without JSON, with a bad seed, a character that
does not exist, and without the admin token."""

from __future__ import annotations

from asiworld.replay import Replay
from asiworld.server import services

RID = "demo"


def code(resp) -> str:
    """The refusal's code: ours (`{"code"}`) or the server edge's (`{"error": {"code"}}`)."""
    body = resp.get_json()
    return body.get("code") or body["error"]["code"]


def test_the_list_shows_each_replay_with_its_provenance(client):
    body = client.get("/api/replays").get_json()
    (row,) = body["replays"]
    assert row["id"] == RID
    assert row["title"] == "Three for three minutes"
    assert row["seed"] == 3 and row["width"] == 128 and row["complete"] is True
    assert row["last_tick"] == 180
    assert sorted(c["name"] for c in row["configurations"]) == ["forager", "planner", "random"]
    page = client.get("/replays")
    assert page.status_code == 200 and b"Three for three minutes" in page.data


def test_meta_lists_the_frame_chunks_a_browser_loads_one_by_one(client):
    meta = client.get(f"/api/replays/{RID}").get_json()
    assert meta["frame_chunks"][0][0] == 0
    assert meta["frame_chunks"][-1][1] == 180
    assert [c["name"] for c in meta["characters"]] == ["forager", "planner", "random"]


def test_a_frame_chunk_holds_consecutive_ticks_with_their_events(client, replay_dir):
    chunk = client.get(f"/api/replays/{RID}/frames/1").get_json()
    ticks = [f["tick"] for f in chunk["frames"]]
    assert ticks == list(range(chunk["t0"], chunk["t1"] + 1))
    with Replay.open(replay_dir / "demo" / "replay.asirep") as replay:
        expected = list(replay.frames(chunk["t0"], chunk["t1"]))
    assert chunk["frames"] == expected  # patches undone, events put back


def test_frame_chunks_are_gzipped_for_browsers_that_accept_it(client):
    resp = client.get(f"/api/replays/{RID}/frames/0", headers={"Accept-Encoding": "gzip"})
    assert resp.headers.get("Content-Encoding") == "gzip"


def test_a_chunk_index_outside_the_replay_is_404_unknown_chunk(client):
    resp = client.get(f"/api/replays/{RID}/frames/999")
    assert resp.status_code == 404 and resp.get_json()["code"] == "unknown_chunk"


def test_unknown_or_malformed_replay_ids_are_404_unknown_replay(client):
    for rid in ("nope", "..", "a%20b", "x" * 200):
        resp = client.get(f"/api/replays/{rid}")
        assert resp.status_code == 404, rid
        assert resp.get_json()["code"] == "unknown_replay"
    assert client.get("/replay/nope").status_code == 404


def test_seeking_returns_a_keyframe_for_that_tick(client):
    frame = client.get(f"/api/replays/{RID}/state?tick=95").get_json()
    assert frame["tick"] == 95 and "keyframe" in frame


def test_seeking_with_a_bad_tick_is_refused_with_a_code(client):
    assert client.get(f"/api/replays/{RID}/state?tick=abc").get_json()["code"] == "bad_argument"
    resp = client.get(f"/api/replays/{RID}/state?tick=5000")
    assert resp.status_code == 404 and resp.get_json()["code"] == "tick_out_of_range"


def test_the_overview_has_phase_bands_for_every_character(client):
    body = client.get(f"/api/replays/{RID}/overview").get_json()
    assert set(body["phases"]) == {"55", "56", "57"} or len(body["phases"]) == 3
    for segments in body["phases"].values():
        assert segments[0][0] == 0 and segments[-1][1] == 180
    assert all(e["kind"] != "action" for e in body["events"])


def test_the_point_of_view_is_the_re_simulated_observation_and_matches_the_hash(client):
    chars = client.get(f"/api/replays/{RID}").get_json()["characters"]
    char = chars[0]["id"]
    body = client.get(f"/api/replays/{RID}/pov?tick=120&char={char}").get_json()
    assert body["ok"] and body["observation"]["self"]["id"] == char
    assert body["verified"] is True  # tick 120 has a recorded state hash
    assert "tiles" in body["observation"]["memory"] and "ticks" not in body["observation"]["memory"]


def test_the_point_of_view_of_an_unknown_character_is_404(client):
    resp = client.get(f"/api/replays/{RID}/pov?tick=120&char=4242")
    assert resp.status_code == 404 and resp.get_json()["code"] == "unknown_character"
    assert client.get(f"/api/replays/{RID}/pov?tick=1&char=x").status_code == 400


def test_a_fork_with_bad_input_is_refused_and_changes_nothing(client, app):
    runner = services(app).runner
    before = runner.world.state_hash()
    url = f"/api/replays/{RID}/fork"
    assert code(client.post(url, data="tick=5")) in ("bad_json", "bad_argument")
    assert code(client.post(url, json={"tick": "soon"})) == "bad_argument"
    assert code(client.post(url, json={"tick": 60, "seed": -1})) == "bad_argument"
    assert code(client.post(url, json={"tick": 60, "seed": "maybe"})) == "bad_argument"
    assert code(client.post(url, json={"tick": 60, "char": 4242})) == "unknown_character"
    assert client.post(url, json={"tick": 9999}).status_code == 404
    assert client.post("/api/replays/nope/fork", json={"tick": 1}).status_code == 404
    assert runner.world.state_hash() == before


def test_a_fork_makes_the_live_world_the_replays_world_and_seats_the_player(client, app):
    chars = client.get(f"/api/replays/{RID}").get_json()["characters"]
    char = chars[1]["id"]
    body = client.post(f"/api/replays/{RID}/fork", json={"tick": 120, "char": char}).get_json()
    assert body["ok"] and body["tick"] == 120 and body["redirect"] == "/play"
    svc = services(app)
    assert svc.runner.world.tick == 120
    assert svc.live.seats[body["token"]].char == char
    recorded = client.get(f"/api/replays/{RID}/pov?tick=120&char={char}").get_json()
    assert recorded["verified"] is True
    with Replay.open(app.config["REPLAY_DIRS"][0] + "/demo/replay.asirep") as replay:
        assert svc.runner.world.state_hash() == replay.hashes()[120]  # same seed: same state
    svc.runner.step(2)  # the forked world goes on ticking
    assert svc.runner.world.tick == 122


def test_a_fork_with_a_new_seed_keeps_the_state_but_changes_the_randomness(client, app):
    body = client.post(f"/api/replays/{RID}/fork", json={"tick": 60, "seed": 12345}).get_json()
    assert body["ok"] and body["seed"] == 12345 and body["token"] is None
    world = services(app).runner.world
    assert world.tick == 60
    with Replay.open(app.config["REPLAY_DIRS"][0] + "/demo/replay.asirep") as replay:
        assert world.state_hash() != replay.hashes()[60]  # the random generator differs
        kf = replay.frame_at(60)["keyframe"]["entities"]
    chars = {str(c.id): (c.x, c.y, c.health) for c in world.characters()}
    assert chars == {k: (e["x"], e["y"], e["health"]) for k, e in kf.items() if k in chars}


def test_a_fork_needs_the_admin_token_when_one_is_configured(apps, replay_dir):
    app = apps.create({"ADMIN_TOKEN": "s3cret", "REPLAY_DIRS": [str(replay_dir)]})
    client = app.test_client()
    url = f"/api/replays/{RID}/fork"
    resp = client.post(url, json={"tick": 60})
    assert resp.status_code == 403 and code(resp) == "not_admin"
    ok = client.post(url, json={"tick": 60}, headers={"X-Admin-Token": "s3cret"})
    assert ok.get_json()["ok"] is True


def test_a_fork_on_a_saving_server_becomes_the_saved_world_and_is_resumed(
    apps, replay_dir, tmp_path
):
    from asiworld.server.settings import ServerSettings

    data = tmp_path / "data"
    app, store = apps.build(
        ServerSettings(data_dir=data, replays=(replay_dir,), seed=5, agents=("forager",))
    )
    client = app.test_client()
    chars = client.get(f"/api/replays/{RID}").get_json()["characters"]
    body = client.post(f"/api/replays/{RID}/fork", json={"tick": 120, "char": chars[0]["id"]})
    assert body.get_json()["ok"] is True
    runner = services(app).runner
    runner.step(5)
    live_hash, live_tick = runner.world.state_hash(), runner.world.tick
    assert live_tick == 125
    store.close()

    again, store2 = apps.build(ServerSettings(data_dir=data, replays=(replay_dir,)))
    world = services(again).runner.world
    assert (world.tick, world.state_hash()) == (live_tick, live_hash)
    assert again.config["SEED"] == world.seed  # the fork's seed is the saved one now
    store2.close()
