"""GET /api/replays/<id>/why on the demo study's replay: the rusher's Tier 2 stall with its
moments, the boss fights on the timeline, and an unknown replay answered as every replay route
answers one."""

from __future__ import annotations

import pytest

from tests.replay_viewer.demo_study import shared_demo


@pytest.fixture(scope="module")
def demo_client(tmp_path_factory):
    from asiworld.server import close_app, create_app

    folder = tmp_path_factory.mktemp("why-api")
    shared_demo(tmp_path_factory, folder / "demo")
    app = create_app({"SEED": 7, "SPEED": 10, "REPLAY_DIRS": [str(folder)]})
    yield app.test_client()
    close_app(app)  # one app for the module: the `apps` fixture closes a test's


def test_the_why_answer_names_the_rushers_tier_2_stall_at_its_first_entry(demo_client):
    body = demo_client.get("/api/replays/demo/why").get_json()
    assert len(body["characters"]) == 9
    rusher = next(c for c in body["characters"] if c["name"] == "rusher")
    stall = next(f for f in rusher["findings"] if f["kind"] == "repeated_entries")
    assert stall["tier"] == 2 and stall["count"] >= body["rules"]["repeated_entries"]
    overview = demo_client.get("/api/replays/demo/overview").get_json()
    entries = [m["tick"] for m in overview["markers"]
               if m["kind"] == "dungeon_entry" and m["char"] == rusher["char"]
               and m["label"] == "entered tier 2"]
    assert stall["tick"] == entries[0] and stall["ticks"] == entries
    tier2 = next(t for t in rusher["tiers"] if t["tier"] == 2)
    assert tier2["entries"] == len(entries) and tier2["clears"] == 0
    assert len(tier2["knockdowns"]) == tier2["entries"]


def test_the_timeline_marks_each_boss_fight_from_start_to_end(demo_client):
    overview = demo_client.get("/api/replays/demo/overview").get_json()
    starts = [m for m in overview["markers"] if m["kind"] == "boss_fight"]
    ends = [m for m in overview["markers"] if m["kind"] == "boss_fight_end"]
    defeats = [m for m in overview["markers"] if m["kind"] == "boss_defeat"]
    assert starts and len(starts) == len(ends)
    for d in defeats:  # each defeat closes a fight that started before it
        assert any(s["char"] == d["char"] and s["tick"] < d["tick"] for s in starts)
        assert any(e["char"] == d["char"] and e["tick"] == d["tick"] for e in ends)


@pytest.mark.parametrize("rid", ["no-such-replay", "bad%20id!", "..", "a" * 81])
def test_an_unknown_replay_is_the_usual_404(demo_client, rid):
    why = demo_client.get(f"/api/replays/{rid}/why")
    transcript = demo_client.get(f"/api/replays/{rid}/transcript")
    assert why.status_code == transcript.status_code == 404
    assert why.get_json()["error"]["code"] == transcript.get_json()["error"]["code"]
    assert why.get_json()["error"]["message"]
