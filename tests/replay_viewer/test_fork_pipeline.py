"""A fork replaces the world in the server's pipeline: the observers see ticks in the same order
before and after it, the same built-in agents' driver plays the fork's built-in characters (one
seeding rule), and a forked planner hands over programs to the same program host as before (it
used to get `programs_unavailable`)."""

from __future__ import annotations

from asiworld.server import services
from asiworld.server.settings import ServerSettings

RID = "demo"


def test_the_observer_order_and_the_drivers_are_the_same_before_and_after_a_fork(
    apps, replay_dir, tmp_path
):
    app, store = apps.build(
        ServerSettings(data_dir=tmp_path / "data", replays=(replay_dir,), seed=5,
                       agents=("forager",))
    )  # fmt: skip
    svc = services(app)
    pipeline = svc.runner.pipeline
    before = pipeline.observers()
    assert before == ["assessment", "agents", "live", "store"]
    drivers, host = list(pipeline.drivers), pipeline.programs
    body = app.test_client().post(f"/api/replays/{RID}/fork", json={"tick": 120}).get_json()
    assert body["ok"] is True
    assert svc.runner.pipeline is pipeline and pipeline.world.tick == 120
    assert pipeline.observers() == before
    assert pipeline.drivers == drivers == [svc.builtin] and pipeline.programs is host
    assert app.extensions["asiworld_agents"].programs is host
    store.close()


def test_a_forked_planner_hosts_a_program(apps, replay_dir):
    app = apps.create(
        {"SEED": 7, "SPEED": 10, "REPLAY_DIRS": [str(replay_dir)], "PROGRAMS_IN_PROCESS": True,
         "AGENTS": ["planner"]}
    )  # fmt: skip
    svc = services(app)
    body = app.test_client().post(f"/api/replays/{RID}/fork", json={"tick": 120}).get_json()
    assert body["ok"] is True
    world = svc.runner.world
    planners = [s for s in svc.builtin.seats if s.config == "planner"]
    assert len(planners) == 1 and world.entities[planners[0].char].label == "planner"
    # the replay's three built-in characters, seeded by their order: forager, planner, random
    assert [(s.config, s.seed) for s in svc.builtin.seats] == [
        ("forager", 3000),
        ("planner", 3001),
        ("random", 3002),
    ]
    seen: list[dict] = []
    svc.runner.pipeline.watch(lambda tick: seen.extend(tick.events))
    char = planners[0].char
    hand_over = {"type": "program", "name": "pause", "source": "wait(50)\n"}
    reply = svc.runner.call(lambda: svc.builtin.submit(svc.runner.pipeline, char, hand_over))
    assert reply["ok"] is True, reply  # not programs_unavailable
    svc.runner.step(2)
    assert any(e["kind"] == "program_started" and e["char"] == char for e in seen)


def test_the_evaluation_after_a_fork_assesses_the_forked_world_not_the_old_one(apps, replay_dir):
    """/evaluation follows the world being played: after a fork it lists the fork's characters,
    with what the replay recorded of them up to the fork, not the live world that was replaced."""
    from asiworld.evaluation import LiveAssessment
    from asiworld.replay.reader import Replay

    app = apps.create({"SEED": 7, "SPEED": 10, "REPLAY_DIRS": [str(replay_dir)],
                       "PROGRAMS_IN_PROCESS": True, "AGENTS": ["builder", "builder"]})  # fmt: skip
    svc = services(app)
    svc.runner.step(30)
    client = app.test_client()
    before = client.get("/api/evaluation").get_json()
    assert [c["name"] for c in before["configurations"]] == ["builder-1", "builder-2"]

    assert client.post(f"/api/replays/{RID}/fork", json={"tick": 120}).get_json()["ok"]
    after = client.get("/api/evaluation").get_json()
    with Replay.open(replay_dir / RID / "replay.asirep") as replay:
        expected = LiveAssessment(replay.characters())
        expected.feed(replay.events(end=120))
    expected = expected.results()
    assert sorted(c["name"] for c in after["configurations"]) == sorted(
        c["name"] for c in expected["configurations"]
    )
    measures = {c["name"]: c["measures"] for c in after["configurations"]}
    for row in expected["configurations"]:
        assert measures[row["name"]] == row["measures"], row["name"]
