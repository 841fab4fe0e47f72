"""The LLM harness against a fake OpenAI-compatible server: scripted tool calls move the
character, a 500 and a timeout become recorded incidents, and the harness keeps playing."""

from __future__ import annotations

import pytest
from asiworld.agents.clients.endpoint import Endpoint
from asiworld.agents.clients.harness import Harness, HarnessConfig, memory_summary
from asiworld.agents.clients.sdk import Client

from tests.agents.fake_llm import FakeLLM, tool


@pytest.fixture
def world_events(runner):
    seen: list[dict] = []
    runner.pipeline.watch(lambda info: seen.extend(info.events))
    return seen


def make_harness(served, runner, script, **config):
    fake = FakeLLM(script)
    client = Client(served)
    client.join("llm-ada", label="fake-llm")
    llm = Endpoint(fake.url, "test")
    # 2 s for an answer the fake gives in milliseconds (a loaded CI machine took more than 0.4 s
    # once); a stall is 6 s, so it is a timeout whatever the load
    cfg = HarnessConfig(model="fake", request_timeout=2.0, backoff_base=0.0, **config)
    harness = Harness(client, llm, cfg, pause=lambda: runner.step(2), sleep=lambda s: None)
    return harness, fake, client


def test_the_character_moves_as_told_and_errors_become_incidents(served, runner, world_events):
    script = [
        tool("move", dir="n"),
        {"status": 500},
        tool("move", dir="n"),
        {"stall": 6.0},
        tool("move", dir="w"),
        tool("wait", ticks=3),
    ]
    harness, fake, client = make_harness(served, runner, script)
    start = client.observe()["self"]
    stats = harness.run(turns=4)
    runner.step(2)
    fake.close()
    me = client.observe()["self"]
    assert (me["x"], me["y"]) == (start["x"] - 1, start["y"] - 2)
    assert [i["cause"] for i in stats.incidents] == ["model_error", "model_timeout"]
    posted = [e for e in world_events if e["kind"] == "incident"]
    assert [(e["cause"], e["char"]) for e in posted] == [
        ("model_error", client.character),
        ("model_timeout", client.character),
    ]
    assert all(e["start"] <= e["end"] for e in posted)
    assert stats.turns == 4 and stats.calls == 6 and stats.failures == 2
    answered = fake.model.usage  # the four answers that arrived in time
    assert len(answered) == 4
    assert stats.prompt_tokens == sum(u["prompt_tokens"] for u in answered)
    assert stats.completion_tokens == sum(u["completion_tokens"] for u in answered)
    assert stats.tool_calls == 4


def test_every_request_is_bounded_and_carries_the_players_guide_and_the_tools(served, runner):
    script = [tool("move", dir="s"), tool("eat", item="berries"), {"text": "hm"}] * 3
    harness, fake, _ = make_harness(served, runner, script)
    harness.run(turns=9)
    fake.close()
    sizes = [len(str(r["messages"])) for r in fake.requests]
    assert all(len(r["messages"]) == 2 for r in fake.requests)
    assert max(sizes) < min(sizes) + 3000  # the context does not grow with the turns
    system = fake.requests[0]["messages"][0]["content"]
    assert "travel outfit" in system and "Shadow King" in system and "GameError" in system
    assert fake.requests[0]["tools"] == harness.tool_specs  # as offered, whatever the SDK does
    names = {t["function"]["name"] for t in fake.requests[0]["tools"]}
    assert {"move", "craft", "submit_program", "cancel_program", "wait_for_event"} <= names
    last = fake.requests[-1]["messages"][1]["content"]
    assert "not_in_inventory" in last  # a refusal is fed back to the model


def test_a_model_that_stays_down_is_given_up_for_the_turn_and_play_goes_on(served, runner):
    script = [{"status": 503}] * 3 + [tool("move", dir="e")]
    harness, fake, client = make_harness(served, runner, script, max_retries=2)
    start = client.observe()["self"]
    harness.run(turns=2)
    runner.step(2)
    fake.close()
    assert client.observe()["self"]["x"] == start["x"] + 1
    assert [i["cause"] for i in harness.stats.incidents] == ["model_error"]
    assert "gave up" in harness.stats.incidents[0]["detail"]


def test_approval_mode_waits_for_a_person_and_records_the_wait(served, runner, world_events):
    source = "def main():\n    move('n')\n"
    script = [tool("submit_program", name="a", source=source)] * 2
    harness, fake, client = make_harness(served, runner, script, approve_programs=True)
    answers = iter(["n", "y"])
    harness.approver = lambda prompt: next(answers)
    harness.run(turns=2)
    fake.close()
    programs = client.program_status()["programs"]
    assert len(programs) == 1  # the first one was not approved
    assert [i["cause"] for i in harness.stats.incidents] == ["approval_wait", "approval_wait"]
    assert any("not_approved" in line for line in harness.feedback)
    runner.step(1)
    assert [e["cause"] for e in world_events if e["kind"] == "incident"] == ["approval_wait"] * 2


def test_memory_summary_lists_the_latest_remembered_creatures():
    memory = {
        "seen_tiles": 40,
        "entities": [
            {"id": 4, "kind": "boar", "x": 1, "y": 2, "tick": 10},
            {"id": 5, "kind": "sheep", "x": 3, "y": 4, "tick": 30},
        ],
    }
    text = memory_summary(memory, limit=1)
    assert "40 tiles" in text and "sheep #5" in text and "boar" not in text
