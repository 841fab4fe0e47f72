"""/api/compare and /compare: two studies of one seed side by side (tests/replay_viewer/
two_studies.py records them). Bad inputs tried: a or b or both missing, an empty a, an unknown
id on either side, a malformed id, a replay of the live world without the spectator token; each
answers its code and changes nothing (the listing is the same after)."""

from __future__ import annotations

import json
import shutil

import pytest
from asiworld.evaluation.side_by_side import MEASURES, cell, side_by_side

from tests.replay_viewer.two_studies import record


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    return record(tmp_path_factory.mktemp("compare"))


@pytest.fixture
def client(apps, studies):
    return apps.create({"SEED": 7, "REPLAY_DIRS": [str(studies)]}).test_client()


def row(body, name):
    return next(r for r in body["rows"] if r["name"] == name)


def value(r, key):
    return next(c for c in r["cells"] if c["key"] == key)


def test_the_configurations_of_both_studies_are_matched_by_name(client):
    body = client.get("/api/compare?a=a&b=b").get_json()
    assert body["ok"] is True
    # a's rows in a's order (its ranking), then those b alone has
    assert sorted((r["name"], r["in"]) for r in body["rows"]) == [
        ("llm", "both"), ("planner", "a"), ("player", "both"), ("rusher", "b")]
    assert body["rows"][-1]["name"] == "rusher"
    assert body["notes"] == []  # one seed, one size, one length: nothing to warn about


def test_the_difference_is_b_minus_a_and_says_which_side_does_better(client, studies):
    body = client.get("/api/compare?a=a&b=b").get_json()
    results = {s: json.loads((studies / s / "results.json").read_text()) for s in "ab"}
    score = {s: next(r["score"] for r in results[s]["configurations"] if r["name"] == "player")
             for s in "ab"}
    assert score["a"] != score["b"]  # the built-in forager in a, the planner in b
    player = value(row(body, "player"), "score")
    assert (player["a"], player["b"]) == (score["a"], score["b"])
    assert player["diff"] == pytest.approx(score["b"] - score["a"])
    assert player["favours"] == ("b" if score["b"] > score["a"] else "a")
    # Fewer knockdowns is better: a difference there favours the side with fewer.
    downs = next(m for m in MEASURES if m.key == "downs")
    assert cell(downs, {"measures": {"downs": 1}}, {"measures": {"downs": 3}})["favours"] == "a"
    # A phase share is neither better nor worse: a difference with no side favoured.
    idle = value(row(body, "llm"), "phase.idle")
    assert idle["diff"] is not None and idle["favours"] is None


def test_a_configuration_in_one_study_only_has_its_values_and_no_difference(client):
    body = client.get("/api/compare?a=a&b=b").get_json()
    planner, rusher = value(row(body, "planner"), "score"), value(row(body, "rusher"), "score")
    assert planner["a"] is not None and planner["b"] is None and planner["diff"] is None
    assert rusher["a"] is None and rusher["b"] is not None and rusher["diff"] is None


def test_the_settings_that_differ_are_named_per_configuration(client):
    body = client.get("/api/compare?a=a&b=b").get_json()
    assert row(body, "llm")["settings_differ"] == [
        {"key": "model", "a": "fake-forager", "b": "fake-programmer"}]
    assert row(body, "player")["settings_differ"] == [
        {"key": "agent", "a": "forager", "b": "planner"}]
    # The model's turns and tokens come from each study's results.json (its costs).
    turns = value(row(body, "llm"), "model_turns")
    assert turns["a"] > 0 and turns["b"] > 0
    assert value(row(body, "player"), "model_turns")["a"] is None  # a built-in asks no model


def test_a_configuration_keeps_one_colour_on_both_sides(client):
    body = client.get("/api/compare?a=a&b=b").get_json()
    colour = {s: {c["label"]: c["colour"] for c in body[s]["characters"]} for s in "ab"}
    assert colour["a"]["llm"] == colour["b"]["llm"] == row(body, "llm")["colour"]
    assert colour["a"]["planner"] != colour["b"]["rusher"]


def test_a_different_seed_and_size_is_said_not_refused(client):
    resp = client.get("/api/compare?a=a&b=other")
    assert resp.status_code == 200
    body = resp.get_json()
    kinds = [n["kind"] for n in body["notes"]]
    assert kinds[:2] == ["seed", "size"] and "length" in kinds
    assert "seed 3" in body["notes"][0]["text"] and "seed 4" in body["notes"][0]["text"]
    assert "48×48" in body["notes"][1]["text"] and "64×64" in body["notes"][1]["text"]
    # A run with no results.json beside its replay is assessed from its recorded events.
    assert body["b"]["results_from"] == "events" and body["a"]["results_from"] == "results.json"
    assert [(r["name"], r["in"]) for r in body["rows"]][-1] == ("forager", "b")


def test_the_events_give_the_numbers_results_json_holds(client, studies):
    from asiworld.evaluation.report import evaluate
    from asiworld.replay import Replay

    replay = Replay.open(studies / "a" / "replay.asirep")
    try:
        assessed = evaluate(replay.events(), replay.characters(), {"seed": replay.header.seed})
    finally:
        replay.close()
    written = json.loads((studies / "a" / "results.json").read_text())
    # Every measure but the model's costs (which the study's results.json adds) is the same.
    events = {m.key for m in MEASURES if m.group != "model"}

    def cells(rows):
        return [[c for c in r["cells"] if c["key"] in events] for r in rows]

    assert cells(side_by_side(assessed, written)) == cells(side_by_side(written, written))


@pytest.mark.parametrize("query, missing", [
    ("?a=a", ["b"]), ("?b=b", ["a"]), ("", ["a", "b"]), ("?a=&b=b", ["a"])])
def test_a_missing_side_is_a_400_naming_it(client, query, missing):
    before = client.get("/api/replays").get_json()
    resp = client.get("/api/compare" + query)
    assert resp.status_code == 400
    body = resp.get_json()
    assert body["code"] == "bad_argument" and body["error"]["missing"] == missing
    assert "/compare?a=ID&b=ID" in body["message"]
    page = client.get("/compare" + query, headers={"Accept": "text/html"})
    assert page.status_code == 400 and page.mimetype == "text/html"
    assert b"bad_argument" in page.data and b"compare needs two replays" in page.data
    assert client.get("/api/replays").get_json() == before


@pytest.mark.parametrize("query, side", [("?a=nope&b=b", "a"), ("?a=a&b=nope", "b"),
                                         ("?a=a&b=..%2Fetc", "b")])
def test_an_unknown_replay_is_a_404_saying_which_side(client, query, side):
    resp = client.get("/api/compare" + query)
    assert resp.status_code == 404
    body = resp.get_json()
    assert body["code"] == "unknown_replay" and body["message"].startswith(f"{side}: ")
    # The page answers as the viewer does for an unknown replay: the list, with the refusal.
    page = client.get("/compare" + query, headers={"Accept": "text/html"})
    assert page.status_code == 404 and page.mimetype == "text/html"
    assert b"unknown_replay" in page.data and b'class="replay-cards"' in page.data


def test_the_page_names_both_replays(client):
    page = client.get("/compare?a=a&b=b")
    assert page.status_code == 200
    assert b'data-a="a"' in page.data and b'data-b="b"' in page.data
    assert b"js/compare.js" in page.data


def test_a_replay_of_the_live_world_needs_the_spectator_token(apps, studies, tmp_path):
    # A replay in the live world's recording folder is the live world's: the viewer's rule.
    live = tmp_path / "live"
    live.mkdir()
    shutil.copy(studies / "a" / "replay.asirep", live / "replay.asirep")
    app = apps.create({"SEED": 7, "REPLAY_DIRS": [str(studies)], "RECORD_DIR": str(live),
                       "SPECTATOR_TOKEN": "seen"})
    client = app.test_client()
    resp = client.get("/api/compare?a=live&b=b")
    assert resp.status_code == 403 and resp.get_json()["code"] == "not_spectator"
    assert resp.get_json()["message"].startswith("a: ")
    ok = client.get("/api/compare?a=live&b=b", headers={"X-Spectator-Token": "seen"})
    assert ok.status_code == 200 and ok.get_json()["a"]["id"] == "live"


def test_two_names_of_one_configuration_are_paired_by_match(client):
    body = client.get("/api/compare?a=a&b=b&match=planner:rusher").get_json()
    assert [(r["name"], r["in"]) for r in body["rows"] if r["name"] in ("planner", "rusher")] == [
        ("planner", "both")]
    paired = row(body, "planner")
    assert paired["names"] == {"a": "planner", "b": "rusher"}
    assert paired["settings_differ"] == [{"key": "agent", "a": "planner", "b": "rusher"}]
    score = value(paired, "score")
    assert score["diff"] == pytest.approx(score["b"] - score["a"])
    assert paired["char"]["b"] == next(c["id"] for c in body["b"]["characters"]
                                       if c["name"] == "rusher")


@pytest.mark.parametrize("match, says", [
    ("planner", "match is A:B"), ("planner:", "match is A:B"),
    ("planner:nobody", "must be a configuration of a"), ("rusher:planner", "must be"),
    ("llm:llm", "in both already"), ("llm:rusher", "in both already")])
def test_a_bad_match_is_a_400_saying_why(client, match, says):
    resp = client.get(f"/api/compare?a=a&b=b&match={match}")
    assert resp.status_code == 400
    assert resp.get_json()["code"] == "bad_argument" and says in resp.get_json()["message"]
    page = client.get(f"/compare?a=a&b=b&match={match}")
    assert page.status_code == 400 and b"bad_argument" in page.data
    twice = client.get("/api/compare?a=a&b=b&match=planner:rusher&match=planner:rusher")
    assert twice.status_code == 400 and "paired once" in twice.get_json()["message"]
