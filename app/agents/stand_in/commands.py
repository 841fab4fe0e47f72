"""`asiworld fake-model`: the stand-in model served as an OpenAI-compatible endpoint."""

from __future__ import annotations

import argparse

from asiworld import arguments as checked
from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer, Fault
from asiworld.engine import codes


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
    f.set_defaults(func=fake_model)


def fake_model(args: argparse.Namespace) -> int:
    try:
        faults = [Fault.parse(spec) for spec in args.fail]
    except ValueError as err:
        return checked.refuse(codes.BAD_FAULT, str(err))
    if args.stall < 0:
        return checked.refuse(codes.BAD_ARGUMENT, "--stall is seconds >= 0")
    try:
        server = FakeModelServer(FakeModel(faults, stall=args.stall), args.host, args.port)
    except OSError as err:
        return checked.refuse(codes.PORT_UNAVAILABLE, f"cannot listen on {args.host}:{args.port}: "
                              f"{err.strerror or err}")
    print(f"fake model on {server.url} (models: fake-forager, fake-explorer, fake-programmer); "
          "Ctrl-C stops", flush=True)
    try:
        server.thread.join()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0
