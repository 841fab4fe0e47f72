"""The flags of `asiworld fake-model`; its function (asiworld.agents.stand_in.commands) is
imported by asiworld.cli when the command runs."""

from __future__ import annotations

import argparse

from asiworld import arguments as checked


def register(subparsers: argparse._SubParsersAction) -> None:
    f = subparsers.add_parser(
        "fake-model",
        help="a deterministic stand-in model: an OpenAI-compatible chat endpoint for demos",
        description="Serve an OpenAI-compatible chat-completions endpoint that plays through "
        "tool calls by reading the observation in the prompt (fake-forager, fake-explorer, "
        "fake-programmer), the same answer for the same prompt. Faults for a stretch of each "
        "character's calls: --fail KIND:A-B with KIND one of 5xx, timeout, non_json, "
        "empty_choices, truncated, unknown_tool. GET /v1/stats counts the calls.",
    )
    f.add_argument("--port", type=checked.port, default=8765)
    f.add_argument("--host", default="127.0.0.1")
    f.add_argument("--fail", action="append", default=[], metavar="KIND:A-B",
                   help="inject a fault for calls A..B of each character (repeatable)")
    f.add_argument("--stall", type=float, default=5.0,
                   help="seconds a `timeout` fault waits before answering (default 5)")
    f.set_defaults(func="asiworld.agents.stand_in.commands:fake_model")
