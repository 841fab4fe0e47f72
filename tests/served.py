"""A server app on a free loopback port, served by werkzeug in a thread of this process, and
closed (asiworld.server.close_app) when done: the browser tests' servers, and the tests that
call a served world over HTTP. Servers in a process of their own: tests/hardening/serving.py."""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def served(config: dict, before_start: Callable[[Any], Any] | None = None,
           clock: bool = True) -> Iterator[dict]:
    """An app of `config` served in a thread (threading async mode). `before_start(runner)` may
    step the world first; with `clock` its world clock runs, else the world stands still (a
    replay viewer's server). Yields {"url", "app", "runner"}."""
    from asiworld.server import close_app, create_app, services
    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no per-request lines
    app = create_app(config)
    runner = services(app).runner
    if before_start is not None:
        before_start(runner)
    server = make_server("127.0.0.1", free_port(), app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    if clock:
        runner.start()
    try:
        yield {"url": f"http://127.0.0.1:{server.server_port}", "app": app, "runner": runner}
    finally:
        server.shutdown()
        close_app(app)  # the clock, the program host, the replay files its pages opened
