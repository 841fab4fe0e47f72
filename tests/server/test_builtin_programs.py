"""On a live server, built-in agents hand over programs through the same host as outside agents:
the planner's Inner Temple program runs where every program runs, and its start and end enter
the world's event stream."""

from __future__ import annotations

from asiworld.server import services


def test_the_built_in_agents_and_the_agent_api_share_the_pipelines_program_host(apps):
    app = apps.create(
        {"SEED": 7, "WORLD_SIZE": 64, "TESTING": True, "PROGRAMS_IN_PROCESS": True,
         "AGENTS": ["planner", "forager"]}
    )  # fmt: skip
    svc = services(app)
    assert [s.config for s in svc.builtin.seats] == ["planner", "forager"]
    assert svc.runner.pipeline.drivers == [svc.builtin]
    assert app.extensions["asiworld_agents"].programs is svc.runner.pipeline.programs


def test_a_built_in_agents_program_runs_on_the_live_world_until_its_own_next_action(apps):
    app = apps.create(
        {"SEED": 7, "WORLD_SIZE": 64, "TESTING": True, "PROGRAMS_IN_PROCESS": True,
         "AGENTS": ["forager"]}
    )  # fmt: skip
    runner = services(app).runner
    driver = services(app).builtin
    char = driver.seats[0].char
    seen = []
    runner.pipeline.watch(lambda info: seen.extend(info.events))
    # what the planner does in the Inner Temple, here by hand: hand over a program
    hand_over = {"type": "program", "name": "pause", "source": "wait(3)\n"}
    reply = runner.call(lambda: driver.submit(runner.pipeline, char, hand_over))
    assert reply["ok"] is True
    runner.step(6)
    ours = [e for e in seen if e.get("char") == char and "program" in e["kind"]]
    assert [e["kind"] for e in ours] == ["program_started", "program_stopped"]
    # the forager keeps deciding for itself: its next direct action stops the program
    assert "direct" in ours[1]["outcome"]["error"]["code"]
