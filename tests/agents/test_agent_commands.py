"""`asiworld agent`: a built-in configuration and an LLM play remotely through the SDK; bad
option combinations are refused with exit code 2."""

from __future__ import annotations

import json

from asiworld.cli import main

from tests.agents.fake_llm import FakeLLM, tool


def test_a_builtin_configuration_plays_remotely_through_the_sdk(served, runner, capsys):
    assert (
        main(["agent", "--server", served, "--builtin", "forager", "--turns", "4", "--think", "0"])
        == 0
    )
    stats = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert stats["decisions"] == 4 and stats["errors"] == 0
    labels = [c.label for c in runner.world.characters()]
    assert "forager" in labels


def test_the_llm_harness_command_plays_with_a_fake_model(served, runner, capsys):
    fake = FakeLLM([tool("move", dir="n"), tool("say", text="hello")])
    code = main(
        [
            "agent",
            "--server",
            served,
            "--model-url",
            fake.url,
            "--model",
            "fake",
            "--turns",
            "2",
            "--think",
            "0",
            "--name",
            "llm",
        ]
    )
    fake.close()
    assert code == 0
    stats = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert stats["calls"] == 2 and stats["tool_calls"] == 2 and stats["incidents"] == []


def test_agent_needs_exactly_one_of_builtin_or_model(served, capsys):
    assert main(["agent", "--server", served]) == 2
    assert main(["agent", "--server", served, "--builtin", "forager", "--model", "x"]) == 2
    assert main(["agent", "--server", served, "--model", "x"]) == 2
    assert main(["agent", "--server", served, "--builtin", "nobody"]) == 2
