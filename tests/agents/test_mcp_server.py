"""The MCP server: its tool schemas are the action table's, its results are structured, its
errors short; the official client plays a few turns in-process and over stdio against
`asiworld mcp`, taking a seat joined before (the world is stepped between turns)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import mcp
from asiworld import protocol
from asiworld.agents.clients.mcp_server import build_server
from asiworld.agents.clients.sdk import Client
from asiworld.cli import main
from mcp.client.stdio import StdioServerParameters

ASIWORLD = str(Path(sys.executable).with_name("asiworld"))


def _payload(result) -> dict:
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def test_the_tool_schemas_are_the_action_tables_with_bounds_defaults_and_sentences(served, run_async):
    client = Client(served)
    client.join("mcp-schemas", label="mcp")

    async def listed() -> dict:
        async with mcp.Client(build_server(client)) as session:
            return {t.name: t for t in (await session.list_tools()).tools}

    tools = run_async(listed())
    for action in protocol.actions():
        assert tools[action["type"]].input_schema == protocol.parameters_schema(action)
        assert tools[action["type"]].output_schema["properties"]["ok"] == {"type": "boolean"}
    count = tools["craft"].input_schema["properties"]["count"]
    assert count["type"] == "integer" and count["default"] == 1  # not "integer or null"
    assert (count["minimum"], count["maximum"]) == (1, 50) and count["description"]
    assert tools["move"].input_schema["properties"]["dir"]["enum"] == ["n", "s", "e", "w"]
    assert tools["wait_for_event"].input_schema["properties"]["timeout_seconds"]["maximum"] == 60


def test_an_mcp_client_plays_a_few_turns_with_structured_results_and_short_errors(served, runner, run_async):
    client = Client(served)
    client.join("mcp-ada", label="mcp")

    async def play() -> dict:
        async with mcp.Client(build_server(client)) as session:
            seen = _payload(await session.call_tool("observe", {}))
            assert "mcp-ada at" in seen["text"]
            start = client.observe()["self"]
            for direction in ("s", "s", "e"):
                answer = _payload(await session.call_tool("move", {"dir": direction}))
                assert answer["ok"] and answer["code"] == "accepted", answer
                runner.step(2)
            # bad inputs tried: a word outside the enum, an unknown argument, an unknown tool
            for name, args, code in (("move", {"dir": "up"}, "bad_argument"),
                                     ("move", {"dir": "n", "speed": 2}, "bad_argument"),
                                     ("fly", {}, "unknown_tool")):
                refused = await session.call_tool(name, args)
                assert refused.is_error and refused.structured_content["code"] == code
                text = refused.content[0].text
                assert text.startswith(f"{code}: ") and "http" not in text and len(text) < 160
            eaten = _payload(await session.call_tool("eat", {"item": "berries"}))
            assert eaten["ok"] is False and eaten["code"] == "not_in_inventory"  # the game's no
            program = _payload(
                await session.call_tool(
                    "submit_program", {"name": "idle", "source": "def main():\n    wait(50)\n"}
                )
            )
            runner.step(2)
            status = _payload(await session.call_tool("program_status", {"id": program["id"]}))
            assert status["status"] == "waiting"
            stopped = _payload(await session.call_tool("cancel_program", {"id": program["id"]}))
            assert stopped["status"] == "stopped"
            return start

    start = run_async(play())
    me = client.observe()["self"]
    assert (me["x"], me["y"]) == (start["x"] + 1, start["y"] + 2)


def test_asiworld_mcp_over_stdio_takes_the_same_seat_and_serves_the_docs(served, runner, run_async):
    seat = Client(served)
    seat.join("mcp-stdio", label="mcp")
    command = StdioServerParameters(command=ASIWORLD, args=[
        "mcp", "--server", served, f"--token={seat.token}", "--character", str(seat.character)])

    async def session_over_stdio() -> None:
        async with mcp.Client(command) as session:
            # the harness's (observe, program tools, wait_for_event) and next_turn, report_tokens
            assert len((await session.list_tools()).tools) == len(protocol.actions()) + 7
            seen = _payload(await session.call_tool("observe", {}))
            assert "mcp-stdio at" in seen["text"]  # the seat joined before, not a new one
            moved = _payload(await session.call_tool("move", {"dir": "s"}))
            assert moved["ok"]
            program = _payload(await session.call_tool(
                "submit_program", {"name": "idle", "source": "def main():\n    wait(50)\n"}))
            assert program["ok"] and program["id"] >= 1
            uris = {str(r.uri) for r in (await session.list_resources()).resources}
            assert uris == {"asiworld://docs/rules", "asiworld://docs/programs",
                            "asiworld://actions"}
            page = (await session.read_resource("asiworld://docs/programs")).contents[0].text
            assert "def main" in page or "move(" in page
            table = json.loads((await session.read_resource("asiworld://actions")).contents[0]
                               .text)
            assert [a["title"] for a in table] == [a["type"] for a in protocol.actions()]
            prompt = await session.get_prompt("play")
            assert f"character {seat.character}" in prompt.messages[0].content.text

    before = runner.call(lambda: len(runner.world.characters()))
    run_async(session_over_stdio())
    assert runner.call(lambda: len(runner.world.characters())) == before  # nobody new joined
    # the program the stdio session submitted is this seat's own
    assert [p["name"] for p in seat.program_status(None)["programs"]] == ["idle"]


def test_a_token_without_its_character_is_refused_before_joining(served, capsys):
    # bad inputs tried: a token alone, a character alone, a token that is no seat's
    assert main(["mcp", "--server", served, "--token", "abc"]) == 2
    assert "--token and --character go together" in capsys.readouterr().err
    assert main(["mcp", "--server", served, "--character", "3"]) == 2
    capsys.readouterr()
    assert main(["mcp", "--server", served, "--token", "nope", "--character", "3"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "seat" in err and "Traceback" not in err
    # a token may begin with "-" (token_urlsafe): given as --token=T it is still a token
    assert main(["mcp", "--server", served, "--token=-nope", "--character", "3"]) == 1
    assert "seat" in capsys.readouterr().err


def test_the_seat_hint_gives_the_token_in_a_form_a_leading_dash_survives():
    """One token in 64 begins with "-": the printed arguments still parse as that token."""
    import types

    from asiworld.agents.clients.commands import seat_arguments
    from asiworld.cli import quick_parser

    hint = seat_arguments(types.SimpleNamespace(token="-Ab_c9", character=12))
    argv = ["mcp", "--server", "http://x", *hint.split()]
    args = quick_parser(argv).parse_args(argv)
    assert (args.token, args.character) == ("-Ab_c9", 12)

def test_what_asiworld_mcp_imports_before_its_first_answer_leaves_the_engine_out():
    """The client waits for `initialize`: the command's modules and the built server (the MCP
    SDK) are all it needs. The engine (numpy, tcod, the rules) and jsonschema come with the
    tools, at the first call that needs them."""
    import subprocess

    probe = ("import sys, types\n"
             "sys.argv[0] = '/usr/local/bin/asiworld'  # as the console script starts it\n"
             "from asiworld.cli import quick_parser\n"
             "quick_parser(['mcp'])\n"
             "from asiworld.agents.clients.mcp_server import build_server\n"
             "build_server(types.SimpleNamespace(character=3))\n"
             "print(' '.join(sorted(m for m in ('numpy', 'tcod', 'jsonschema', 'flask',"
             " 'asiworld.engine.world', 'asiworld.engine.errors', 'mcp') if m in sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, timeout=120)
    assert done.stdout.split() == ["asiworld.engine.errors", "mcp"]


def test_asiworld_mcp_imports_the_stdio_server_without_the_sdk_client_and_builds_on_first_use():
    """`asiworld mcp` imports the SDK's low-level server and stdio transport without the
    packages' __init__ (the SDK's client, MCPServer) and with pydantic's schema builds deferred
    to first use: the models still validate (a tool without a name is refused) and `mcp.Client`
    is still there for whoever asks (the package's __init__ runs then)."""
    import subprocess

    probe = ("import sys\n"
             "import pydantic\n"
             "from asiworld.agents.clients.mcp_sdk import import_stdio_server\n"
             "import_stdio_server()\n"
             "import mcp_types\n"
             "print(*[m for m in ('mcp.client', 'mcp.server.mcpserver') if m in sys.modules])\n"
             "print(mcp_types.Tool.__pydantic_complete__)\n"
             "print(mcp_types.Tool(name='observe', input_schema={'type': 'object'}).name)\n"
             "print(mcp_types.Tool.__pydantic_complete__)\n"
             "try:\n"
             "    mcp_types.Tool(input_schema={'type': 'object'})\n"
             "except pydantic.ValidationError as error:\n"
             "    print(*error.errors()[0]['loc'])\n"
             "import mcp\n"
             "print(mcp.Client.__name__, 'mcp.client' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, timeout=120)
    assert done.stdout.splitlines() == ["", "False", "observe", "True", "name", "Client True"]


def _told_the_study_ended(app, served: str, *, watcher_poll: float | None = None):
    """`asiworld mcp` in a process of its own on a new seat, through a tool call answered
    study_ended at tick 9; the process is yielded for the test to end. `watcher_poll`: the
    seconds between the server's own looks at whether its study ended (default its own)."""
    import contextlib
    import subprocess

    seat = Client(served)
    seat.join("mcp-end", label="mcp")
    argv = ["mcp", "--server", served, f"--token={seat.token}", "--character",
            str(seat.character)]
    command = [ASIWORLD, *argv] if watcher_poll is None else [
        sys.executable, "-c",
        "import sys; import asiworld.agents.clients.mcp_server as served; "
        f"served.ENDED_POLL_SECONDS = {watcher_poll}; "
        f"from asiworld.cli import main; sys.exit(main({argv!r}))"]

    @contextlib.contextmanager
    def conversation():
        # `with`: its pipes are closed when done (left open, they were reported in a later test)
        with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) as proc:
            try:
                def send(message: dict) -> None:
                    proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
                    proc.stdin.flush()

                send({"id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "test", "version": "0"}}})
                assert json.loads(proc.stdout.readline())["id"] == 1
                send({"method": "notifications/initialized"})
                send({"id": 3, "method": "tools/call",
                      "params": {"name": "next_turn", "arguments": {}}})
                answer = json.loads(proc.stdout.readline())["result"]["structuredContent"]
                assert answer["code"] == "no_turns"  # this world's clock takes no turns
                app.extensions["asiworld_agents"].end(9)
                send({"id": 2, "method": "tools/call",
                      "params": {"name": "observe", "arguments": {}}})
                answer = json.loads(proc.stdout.readline())["result"]["structuredContent"]
                assert answer == {"ok": False, "code": "study_ended",
                                  "message": "the study ended at tick 9"}
                yield proc
            finally:
                if proc.poll() is None:  # the process this test started
                    proc.kill()
                    proc.wait()

    return conversation()


def test_asiworld_mcp_exits_0_once_a_tool_call_is_told_the_study_ended(app, served):
    with _told_the_study_ended(app, served) as proc:
        # the client keeps stdin open: the server stops by itself
        assert proc.wait(timeout=30) == 0
        assert proc.stderr.read().splitlines()[-1] == "the study ended at tick 9"


def test_asiworld_mcp_says_the_study_ended_when_its_client_closes_stdin_first(app, served):
    """The other order: the client closes stdin before the server's own watcher looks (here it
    would look only after an hour). The sentence all the same, and exit 0."""
    with _told_the_study_ended(app, served, watcher_poll=3600) as proc:
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
        assert proc.stderr.read().splitlines()[-1] == "the study ended at tick 9"
