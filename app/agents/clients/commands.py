"""`asiworld agent ...` (an outside agent on a running server) and `asiworld mcp ...`."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from typing import Any

from asiworld import arguments as checked
from asiworld.agents.clients.mcp_server import serve_stdio
from asiworld.agents.clients.sdk import ApiError, Client, StudyEnded
from asiworld.engine import codes


def _client(args: argparse.Namespace, default_name: str, default_label: str):
    client = Client(args.server, token=args.token, character=args.character)
    if args.token is not None and args.character is not None:
        try:  # the seat is checked now, not at the first tool call
            client.observe("text")
        except ApiError as err:
            print(f"error: {err.code}: cannot take character {args.character}'s seat: "
                  f"{err.message}", file=sys.stderr)
            return None
        return client
    try:
        client.join(args.name or default_name, label=args.label or default_label)
    except ApiError as err:
        print(f"asiworld: could not join {args.server}: {err.message}", file=sys.stderr)
        return None
    return client


def _seat_refused(args: argparse.Namespace) -> bool:
    """--token without --character (or the other way) would silently join a new character."""
    if (args.token is None) == (args.character is None):
        return False
    checked.refuse(codes.BAD_ARGUMENT,
                   "--token and --character go together (the seat to take again)")
    return True


def agent(args: argparse.Namespace) -> int:
    if _seat_refused(args):
        return 2
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if bool(args.builtin) == bool(args.model_url or args.model):
        print(
            "asiworld agent: give either --builtin NAME or --model-url and --model", file=sys.stderr
        )
        return 2
    if args.builtin:
        return _builtin(args)
    if not (args.model_url and args.model):
        print("asiworld agent: --model-url and --model go together", file=sys.stderr)
        return 2
    return _llm(args)


def _builtin(args: argparse.Namespace) -> int:
    # `asiworld mcp` runs from this module too and answers its client first: the built-in
    # agents and the model harness (the engine, numpy) come when `agent` runs
    from asiworld.agents.bots.builtin import UnknownConfiguration, make_agent
    from asiworld.agents.clients.remote import RemoteSeat  # the same

    try:
        bot = make_agent(args.builtin)
    except UnknownConfiguration as err:
        print(f"asiworld agent: {err}", file=sys.stderr)
        return 2
    client = _client(args, args.builtin, args.builtin)
    if client is None:
        return 1
    print(f"playing character {client.character} as {args.builtin}; Ctrl-C stops", flush=True)
    seat = RemoteSeat(client, bot, think_seconds=0.5 if args.think is None else args.think)
    try:
        seat.run(args.turns)
    except KeyboardInterrupt:
        pass
    print(
        json.dumps({"decisions": seat.decisions, "refusals": seat.refusals, "errors": seat.errors})
    )
    _say_ended(client)
    return 0


def _say_ended(client: Any, stream: Any = None) -> None:
    """The sentence an agent ends with when its study reached its horizon."""
    if client.ended:
        where = f" at tick {client.ended_at}" if client.ended_at is not None else ""
        print(f"the study ended{where}", file=stream or sys.stdout, flush=True)


def _llm(args: argparse.Namespace) -> int:
    # `asiworld mcp` runs from this module too and answers its client first: the built-in
    # agents and the model harness (the engine, numpy) come when `agent` runs
    from asiworld.agents.clients.endpoint import Endpoint
    from asiworld.agents.clients.harness import Harness, HarnessConfig, ModelUnreachable  # same

    # Local servers (vLLM, llama.cpp, Ollama) accept any key; hosted ones need the real one.
    api_key = os.environ.get(args.api_key_env) or "not-needed"
    client = _client(args, "llm", args.model.replace("/", "-")[:32])
    if client is None:
        return 1
    llm = Endpoint(args.model_url, api_key, timeout=args.timeout)
    config = HarnessConfig(
        model=args.model,
        think_seconds=1.0 if args.think is None else args.think,
        request_timeout=args.timeout,
        approve_programs=args.approve_programs,
        give_up_after=args.give_up_after,
    )
    harness = Harness(client, llm, config)
    print(f"playing character {client.character} with {args.model}; Ctrl-C stops", flush=True)
    try:
        harness.run(args.turns)
    except (KeyboardInterrupt, StudyEnded):
        pass
    except ModelUnreachable as exc:
        print(json.dumps(harness.stats.to_dict()))
        print(f"error: {exc.code}: {exc.message}", file=sys.stderr)
        return 1
    print(json.dumps(harness.stats.to_dict()))
    _say_ended(client)
    return 0


def seat_arguments(client: Any) -> str:
    """The arguments that take this seat again. `--token=T`: a token may begin with "-"
    (token_urlsafe), which as `--token T` argparse reads as another option."""
    return f"--token={client.token} --character {client.character}"


def mcp(args: argparse.Namespace) -> int:
    import importlib.util

    if _seat_refused(args):
        return 2
    if importlib.util.find_spec("mcp") is None:  # the SDK itself is imported once joined
        return checked.refuse(codes.MISSING_DEPENDENCY,
                              "asiworld mcp needs `pip install mcp` (or asiworld[agents])")

    # stdout is the MCP channel: everything for people goes to stderr.
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    client = _client(args, "mcp", "mcp")
    if client is None:
        return 1
    print(f"asiworld mcp: character {client.character} on {args.server}; take this seat again "
          f"with {seat_arguments(client)}", file=sys.stderr)
    def ended() -> None:  # the study's horizon: the sentence, then exit 0 (see serve_stdio)
        _say_ended(client, sys.stderr)
        sys.stdout.flush()
        os._exit(0)

    try:
        serve_stdio(client, on_end=ended)
    except KeyboardInterrupt:
        pass
    # the client closed stdin first (before the watcher saw the end): the sentence all the same
    _say_ended(client, sys.stderr)
    return 0
