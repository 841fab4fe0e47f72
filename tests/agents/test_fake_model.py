"""The stand-in model: it reads the observation the harness sends, chooses as a small built-in
configuration would (the same answer for the same prompt), and injects each fault for the
stretch of a character's calls it is told."""

from __future__ import annotations

import json
import urllib.request

import pytest
from asiworld.agents.clients.tools import openai_tools
from asiworld.agents.stand_in.fake_model import (
    FAULTS,
    FakeModel,
    FakeModelServer,
    Fault,
    choose,
    read_prompt,
)
from asiworld.cli import main
from asiworld.engine import World

TOOLS = openai_tools()


def prompt_for(world: World, cid: int, feedback: str = "(nothing yet)") -> list[dict]:
    """What the harness sends (Harness.context) for this character."""
    text = world.observe_text(cid)
    user = f"## Now\n{text}\n\n## Memory\nyou have seen 0 tiles\n\n" \
           f"## Your recent tool calls and their results\n{feedback}\n\nWhat do you do?"
    return [{"role": "system", "content": "rules"}, {"role": "user", "content": user}]


def body(messages: list[dict], model: str = "fake-forager", tools=TOOLS) -> dict:
    return {"model": model, "messages": messages, "tools": tools}


def tool_call(reply) -> tuple[str, dict]:
    data = json.loads(reply.body)
    fn = data["choices"][0]["message"]["tool_calls"][0]["function"]
    return fn["name"], json.loads(fn["arguments"])


@pytest.fixture
def world():
    w = World.create(seed=3, size=64)
    return w


def test_it_reads_what_the_observation_says(world):
    cid = world.add_character("ada", label="t")
    world.step()
    seen = read_prompt(prompt_for(world, cid))
    obs = world.observe(cid, consume=False)
    assert (seen.name, seen.x, seen.y, seen.tick) == ("ada", obs["self"]["x"], obs["self"]["y"], 1)
    assert seen.hunger == obs["self"]["hunger"] and not seen.doing
    view = obs["view"]
    tree = next(((view["x0"] + c, view["y0"] + r) for r, row in enumerate(view["tiles"])
                 for c, ch in enumerate(row) if ch == "T"), None)
    if tree is not None:
        assert seen.tiles[tree] == "T"
    assert seen.tiles[(seen.x, seen.y)] == "@"


def test_the_same_prompt_gets_the_same_answer(world):
    cid = world.add_character("ada", label="t")
    world.step()
    model = FakeModel()
    first = model.answer(body(prompt_for(world, cid)))
    again = model.answer(body(prompt_for(world, cid)))
    assert first.status == 200 and first.body == again.body
    name, _ = tool_call(first)
    assert name in {t["function"]["name"] for t in TOOLS}


def test_the_forager_eats_when_hungry_gathers_next_to_a_bush_and_waits_while_busy(world):
    cid = world.add_character("ada", label="t")
    world.step()
    seen = read_prompt(prompt_for(world, cid))
    names = {"move", "gather", "eat", "wait_for_event", "move_to", "submit_program"}
    seen.hunger, seen.inventory = 40, {"berries": 2}
    assert choose(seen, "fake-forager", names) == ("eat", {"item": "berries"})
    seen.hunger, seen.inventory = 90, {}
    seen.tiles = {(seen.x + 1, seen.y): "b", (seen.x, seen.y): "@"}
    assert choose(seen, "fake-forager", names) == ("gather", {"x": seen.x + 1, "y": seen.y})
    seen.tiles = {(seen.x + 4, seen.y): "b"}
    assert choose(seen, "fake-forager", names) == ("move_to", {"x": seen.x + 4, "y": seen.y})
    seen.doing = True
    assert choose(seen, "fake-forager", names)[0] == "wait_for_event"


def test_the_programmer_hands_over_a_program_only_when_offered_the_tool(world):
    cid = world.add_character("ada", label="t")
    world.step()
    seen = read_prompt(prompt_for(world, cid))
    name, args = choose(seen, "fake-programmer", {"submit_program", "move_to", "gather"})
    assert name == "submit_program" and "def main" in args["source"]
    assert choose(seen, "fake-programmer", {"move_to", "gather"})[0] != "submit_program"
    seen.program_running = True
    assert choose(seen, "fake-programmer", {"submit_program"})[0] == "wait_for_event"


def test_a_refused_move_is_not_repeated(world):
    cid = world.add_character("ada", label="t")
    world.step()
    seen = read_prompt(prompt_for(world, cid))
    seen.tiles = {(seen.x + 4, seen.y): "b"}
    target = {"x": seen.x + 4, "y": seen.y}
    shown = json.dumps(target, separators=(",", ":"))
    seen.feedback = [f'move_to({shown}) -> {{"ok":false,"code":"no_path"}}']
    assert choose(seen, "fake-forager", {"move_to"}) != ("move_to", target)


def test_each_fault_covers_its_stretch_of_each_characters_calls(world):
    ada = world.add_character("ada", label="t")
    bo = world.add_character("bo", label="t")
    world.step()
    model = FakeModel([Fault.parse("5xx:2-3"), Fault.parse("empty_choices:5")], stall=0)
    statuses = [model.answer(body(prompt_for(world, ada))).status for _ in range(4)]
    assert statuses == [200, 503, 503, 200]
    fifth = json.loads(model.answer(body(prompt_for(world, ada))).body)
    assert fifth["choices"] == []
    assert model.answer(body(prompt_for(world, bo))).status == 200  # bo's first call
    stats = model.stats()
    assert stats["by_character"]["ada"] == {
        "requests": 5, "answered": 2, "faults": {"5xx": 2, "empty_choices": 1}}
    assert stats["by_character"]["bo"]["answered"] == 1 and stats["requests"] == 6


@pytest.mark.parametrize("kind", FAULTS)
def test_every_fault_kind_looks_as_named(world, kind):
    cid = world.add_character("ada", label="t")
    world.step()
    reply = FakeModel([Fault(kind, 1, 1)], stall=0.25).answer(body(prompt_for(world, cid)))
    assert reply.fault == kind
    if kind == "5xx":
        assert reply.status >= 500
        return
    assert reply.status == 200
    if kind == "non_json":
        with pytest.raises(ValueError):
            json.loads(reply.body)
        return
    data = json.loads(reply.body)
    if kind == "empty_choices":
        assert data["choices"] == []
    elif kind == "timeout":
        assert reply.stall == 0.25
    elif kind == "truncated":
        args = data["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
        with pytest.raises(ValueError):
            json.loads(args)
    else:
        assert tool_call(reply)[0] == "teleport"


def test_bad_fault_specs_are_refused():
    for spec in ("boom:1", "5xx", "5xx:0", "5xx:3-1", "5xx:a-b"):
        with pytest.raises(ValueError):
            Fault.parse(spec)
    assert Fault.parse("timeout:4") == Fault("timeout", 4, 4)


def test_the_command_refuses_a_bad_fault_with_a_code(capsys):
    assert main(["fake-model", "--fail", "boom:1"]) == 2
    assert capsys.readouterr().err.startswith("error: bad_fault: ")


def test_over_http_it_answers_chat_completions_and_counts(world):
    cid = world.add_character("ada", label="t")
    world.step()
    with FakeModelServer(FakeModel([Fault("5xx", 1, 1)])) as server:
        def post(payload: dict) -> int:
            req = urllib.request.Request(
                server.url + "/chat/completions", data=json.dumps(payload).encode(),
                headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=5) as reply:
                    return reply.status
            except urllib.error.HTTPError as err:
                return err.code

        assert [post(body(prompt_for(world, cid))) for _ in range(2)] == [503, 200]
        with urllib.request.urlopen(server.url + "/stats", timeout=5) as reply:
            stats = json.loads(reply.read())
    assert stats["by_character"]["ada"] == {"requests": 2, "answered": 1, "faults": {"5xx": 1}}


def test_a_request_the_model_fails_on_is_answered_500_saying_what_raised_and_kept(world):
    """A bug of the stand-in is an answer (a 500 naming the exception, a transient error the
    harness retries and its transcript shows), never a connection dropped without one; the
    connection stays open for the next request, and the traceback is kept."""
    import http.client

    class Broken(FakeModel):
        def answer(self, body):
            if body.get("model") == "broken":
                raise ValueError("boom")
            return super().answer(body)

    cid = world.add_character("ada", label="t")
    world.step()
    with FakeModelServer(Broken()) as server:
        client = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        try:
            answers = []
            for model in ("broken", "fake-forager"):  # on one kept-alive connection
                client.request("POST", "/v1/chat/completions",
                               json.dumps({**body(prompt_for(world, cid)), "model": model}),
                               {"Content-Type": "application/json"})
                reply = client.getresponse()
                answers.append((reply.status, json.loads(reply.read())))
        finally:
            client.close()
    assert answers[0] == (500, {"error": {"type": "server_error",
                                          "message": "the fake model failed: ValueError: boom"}})
    assert answers[1][0] == 200
    assert len(server.failures) == 1 and "ValueError: boom" in server.failures[0]


def test_its_connections_send_without_waiting_for_acks():
    # An answer is two writes (headers, body); with Nagle's algorithm the body waited for the
    # client's delayed ACK of the headers, 40 ms on every call of a study.
    import http.client
    import socket

    with FakeModelServer(FakeModel()) as server:
        client = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        try:
            client.request("GET", "/v1/models")  # kept alive: the server holds the connection
            assert client.getresponse().read()
            (connection,) = server._connections
            assert connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
        finally:
            client.close()


def test_the_harness_endpoint_sends_what_the_official_sdk_sends():
    # The harness encodes its requests itself (asiworld.agents.clients.request) so a transcript can
    # rebuild their bytes; a server reads the same JSON as from the official openai client.
    import openai
    from asiworld.agents.clients import request
    from asiworld.agents.clients.endpoint import Endpoint

    messages = [{"role": "user", "content": "## Now\n"}]
    settings = {"model": "fake-forager", "max_tokens": 64, "temperature": 0.0, "user": "seed3/ada"}
    with FakeModelServer(FakeModel()) as server:
        sdk = openai.OpenAI(base_url=server.url, api_key="test", max_retries=0)
        sdk.chat.completions.create(
            model="fake-forager", messages=[{"role": "system", "content": "rules"}, *messages],
            tools=TOOLS, max_tokens=64, temperature=0.0, user="seed3/ada")
        reply = Endpoint(server.url, "test").complete(
            request.encode(request.body("rules", TOOLS, messages, settings)))
        plain, ours = server.requests
    assert ours == plain and ours["messages"][0] == {"role": "system", "content": "rules"}
    assert reply.tool_calls and reply.usage.prompt_tokens > 0
