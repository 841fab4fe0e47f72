"""Every answer a model gives is one of six classes, each handled without a crash and counted:
a tool call acts; with `text_actions` a command or JSON action in plain text acts too and is
recorded as read from text; text without an action and an empty answer act on nothing and the
next prompt says so; a malformed answer and a failed request are retried. Also: the settings a
configuration chooses (tool_choice, a JSON action format, kept turns) are sent as chosen, and
kept turns carry the assistant's content as "" beside tool calls (llama.cpp refuses null)."""

from __future__ import annotations

import json

import pytest
from asiworld.agents.clients.endpoint import Endpoint
from asiworld.agents.clients.harness import Harness, HarnessConfig
from asiworld.agents.clients.sdk import Client
from asiworld.agents.clients.transcript import Transcript, read_transcript

from tests.agents.fake_llm import FakeLLM, tool


def play(served, runner, tmp_path, script, turns, **config):
    fake = FakeLLM(script)
    client = Client(served)
    client.join("ada", label="replies")
    cfg = HarnessConfig(model="fake", request_timeout=2.0, backoff_base=0.0, max_retries=1,
                        **config)
    transcript = Transcript(tmp_path / "transcripts" / "ada.jsonl")
    harness = Harness(client, Endpoint(fake.url, "test"), cfg, pause=lambda: runner.step(2),
                      sleep=lambda s: None, transcript=transcript)
    start = client.observe()["self"]
    harness.run(turns=turns)
    runner.step(2)
    fake.close()
    transcript.close()
    return harness, fake, client, start, read_transcript(transcript.path)


def test_each_class_of_answer_is_handled_and_counted(served, runner, tmp_path):
    script = [
        tool("move", dir="n"),  # tool_call
        {"text": "move west"},  # text_action (a command)
        {"text": '{"tool": "move", "arguments": {"dir": "n"}}'},  # text_action (JSON)
        {"text": "I think I should look around first."},  # text
        {"text": ""},  # empty
        {"status": 500}, tool("wait", ticks=2),  # failed, then a tool call
    ]
    harness, fake, client, start, lines = play(served, runner, tmp_path, script, turns=6,
                                               text_actions="parse")
    me = client.observe()["self"]
    assert (me["x"], me["y"]) == (start["x"] - 1, start["y"] - 2)
    assert harness.stats.replies == {"tool_call": 2, "text_action": 2, "text": 1, "empty": 1,
                                     "malformed": 0, "failed": 1}
    assert harness.stats.tool_calls == 4  # two tool calls and two actions read from text
    assert [line["reply"] for line in lines] == [
        "tool_call", "text_action", "text_action", "text", "empty", "failed", "tool_call"]
    read = [line["text_action"] for line in lines if line["text_action"]]
    assert read == [{"tool": "move", "arguments": {"dir": "w"}, "read": "command"},
                    {"tool": "move", "arguments": {"dir": "n"}, "read": "json"}]
    # the next prompts tell the model what became of its answers
    prompts = [r["messages"][-1]["content"] for r in fake.requests]
    assert "[read from your text]" in prompts[2]
    assert "you said (no tool call): I think I should look around first." in prompts[4]
    assert "your last answer was empty" in prompts[5]


def test_without_text_actions_text_acts_on_nothing(served, runner, tmp_path):
    harness, _, client, start, lines = play(served, runner, tmp_path, [{"text": "move north"}],
                                            turns=1)
    me = client.observe()["self"]
    assert (me["x"], me["y"]) == (start["x"], start["y"])
    assert [line["reply"] for line in lines] == ["text"]
    assert harness.stats.tool_calls == 0


def test_a_malformed_answer_is_retried_and_counted_as_malformed(served, runner, tmp_path):
    script = [tool("teleport", x=1, y=1), tool("move", dir="s")]
    harness, _, client, start, lines = play(served, runner, tmp_path, script, turns=1)
    assert [line["reply"] for line in lines] == ["malformed", "tool_call"]
    assert lines[0]["error"]["cause"] == "model_malformed"
    assert client.observe()["self"]["y"] == start["y"] + 1


def test_the_chosen_settings_are_sent_as_chosen(served, runner, tmp_path):
    _, fake, _, _, lines = play(served, runner, tmp_path, [tool("wait")] * 2, turns=2,
                                tool_choice="required", text_actions="json", temperature=0.3,
                                max_tokens=77)
    sent = fake.requests[0]
    assert sent["tool_choice"] == "required" and sent["max_tokens"] == 77
    assert sent["temperature"] == 0.3
    schema = sent["response_format"]["json_schema"]["schema"]
    named = {choice["properties"]["tool"]["const"] for choice in schema["anyOf"]}
    assert named == {t["function"]["name"] for t in sent["tools"]}
    assert lines[0]["request"]["settings"]["tool_choice"] == "required"


def test_kept_turns_are_sent_as_chat_messages_with_content_never_null(served, runner, tmp_path):
    script = [tool("move", dir="n"), tool("move", dir="e"), tool("wait")]
    _, fake, _, _, _ = play(served, runner, tmp_path, script, turns=3, history_turns=1)
    first, second, third = (r["messages"] for r in fake.requests)
    assert [m["role"] for m in first] == ["system", "user"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "tool", "user"]
    assert [m["role"] for m in third] == ["system", "user", "assistant", "tool", "user"]
    answer = second[2]
    assert answer["content"] == "" and answer["tool_calls"][0]["function"]["name"] == "move"
    assert second[3]["tool_call_id"] == answer["tool_calls"][0]["id"]
    assert json.loads(answer["tool_calls"][0]["function"]["arguments"]) == {"dir": "n"}
    assert third[2]["tool_calls"][0]["function"]["arguments"] == '{"dir": "e"}'  # only the last


def test_the_json_observation_is_the_agent_apis_observation(served, runner, tmp_path):
    _, fake, client, _, _ = play(served, runner, tmp_path, [tool("wait")], turns=1,
                                 observation="json")
    user = fake.requests[0]["messages"][-1]["content"]
    now = user.split("## Now\n", 1)[1].split("\n\n## Memory", 1)[0]
    seen = json.loads(now)
    assert seen["self"]["name"] == "ada" and "tick" in seen and "memory" not in seen


def test_the_clock_line_says_how_long_until_night_and_the_horizon(served, runner, tmp_path):
    _, fake, _, _, _ = play(served, runner, tmp_path, [tool("wait")], turns=1,
                            horizon_tick=3600)
    user = fake.requests[0]["messages"][-1]["content"]
    clock = user.split("## Clock\n", 1)[1].split("\n", 1)[0]
    assert "daytime: night falls in 20 minutes" in clock or "night falls in 19" in clock
    assert "the study ends at tick 3600 (minute 60)" in clock


def test_compact_tool_schemas_keep_every_tool_and_argument_without_their_prose(
        served, runner, tmp_path):
    _, fake, _, _, lines = play(served, runner, tmp_path, [tool("wait")], turns=1,
                                tool_schemas="compact")
    from asiworld.agents.clients.tools import openai_tools

    full = {t["function"]["name"]: t["function"] for t in openai_tools()}
    sent = {t["function"]["name"]: t["function"] for t in fake.requests[0]["tools"]}
    assert sent.keys() == full.keys()
    for name, spec in sent.items():
        params, whole = spec["parameters"], full[name]["parameters"]
        assert params.get("required") == whole.get("required")
        assert params.get("properties", {}).keys() == whole.get("properties", {}).keys()
        assert all("description" not in p for p in params.get("properties", {}).values())
        assert not spec["description"].startswith("Action (")
    assert len(json.dumps(fake.requests[0]["tools"])) < 0.7 * len(json.dumps(openai_tools()))


@pytest.mark.parametrize("messages", [[], [{"role": "user", "content": "caf\u00e9 \u2603"}],
                                      [{"role": "user", "content": "a"},
                                       {"role": "assistant", "content": "", "tool_calls": []},
                                       {"role": "tool", "tool_call_id": "x", "content": "{}"}]])
def test_the_seats_encoder_gives_the_bytes_of_the_whole_body(messages):
    from asiworld.agents.clients import request

    settings = {"model": "m", "tool_choice": "auto", "max_tokens": 9, "user": "seed1/a"}
    tools = [{"type": "function", "function": {"name": "wait", "parameters": {}}}]
    for listed in (tools, None):
        encoder = request.Encoder("rules \u00e9", listed, settings)
        whole = request.encode(request.body("rules \u00e9", listed, messages, settings))
        assert encoder.encode(messages) == whole
