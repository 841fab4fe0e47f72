"""`asiworld agent` and `asiworld mcp` as the command line reads them; each names the function
in asiworld.agents.clients.commands that runs it (imported by asiworld.cli when it runs). `mcp`
parses with this module alone (asiworld.cli.quick_parser)."""

from __future__ import annotations

import argparse

from asiworld import arguments as checked


def _seat_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", required=True, type=checked.http_url, help="base URL of a running `asiworld serve`")
    p.add_argument("--name", default=None, help="character name (1-24 letters, digits, - _)")
    p.add_argument("--label", default=None, help="configuration label shown in evaluations")
    p.add_argument("--token", default=None, help="reuse a seat: its token (with --character)")
    p.add_argument("--character", type=int, default=None, help="the seat's character id")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "agent",
        help="play a character on a running server (built-in configuration or an LLM)",
        description="Join a running server through the agent API and play one character, "
        "either with a built-in configuration (--builtin) or with a language model behind an "
        "OpenAI-compatible chat endpoint (--model-url, --model).",
    )
    _seat_arguments(p)
    p.add_argument("--builtin", default=None, help="a built-in configuration, e.g. forager")
    p.add_argument("--model-url", default=None, type=checked.http_url, help="OpenAI-compatible base URL, e.g. .../v1")
    p.add_argument("--model", default=None, help="model name at that endpoint")
    p.add_argument(
        "--api-key-env", default="OPENAI_API_KEY", help="environment variable with the API key"
    )
    p.add_argument("--approve-programs", action="store_true", help="ask on stdin per program")
    p.add_argument("--think", type=checked.seconds, default=None, help="seconds between turns")
    p.add_argument("--turns", type=checked.positive_int, default=None, help="stop after N turns (default: never)")
    p.add_argument("--timeout", type=checked.positive_number, default=60.0, help="model request timeout (s)")
    p.add_argument(
        "--give-up-after",
        type=checked.seconds,
        default=300.0,
        metavar="SECONDS",
        help="stop with an error (exit 1) once the model has failed every request for this long "
        "(default 300; 0 gives up at the first outage)",
    )
    p.set_defaults(func="asiworld.agents.clients.commands:agent")

    m = subparsers.add_parser(
        "mcp",
        help="serve the agent tools over MCP (stdio) for MCP-capable coding agents",
        description="Join a running server and expose observe/act/program tools over MCP stdio.",
    )
    _seat_arguments(m)
    m.set_defaults(func="asiworld.agents.clients.commands:mcp")
