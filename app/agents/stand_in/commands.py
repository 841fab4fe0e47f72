"""`asiworld fake-model`: the stand-in model served as an OpenAI-compatible endpoint (its flags are
asiworld.agents.stand_in.command_line's)."""

from __future__ import annotations

import argparse

from asiworld import arguments as checked
from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer, Fault
from asiworld.engine import codes


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
