"""A bound on concurrent connections for `asiworld serve`.

Werkzeug's threaded server starts one thread per accepted connection and never says no: 400
half-open requests made 405 threads. Here a connection takes a slot before its thread starts
and gives it back when the thread ends; with every slot taken, a new connection is answered at
once with a short 503 (`too_many_connections`) and closed, without a thread. A WebSocket holds
its slot for its whole life, so the cap is also the most live players and spectators.

In eventlet mode the same cap is the size of eventlet.wsgi's green-thread pool (`max_size`):
there a connection past it waits in the listen backlog instead. Under gunicorn, `--threads`
(gthread) or `--worker-connections` bound it (docs/operations.md).
"""

from __future__ import annotations

import json
import socket
import threading
from typing import Any

from asiworld.engine import codes
from werkzeug.serving import ThreadedWSGIServer

_BODY = json.dumps(
    {
        "error": {
            "code": codes.TOO_MANY_CONNECTIONS,
            "message": "the server holds its most connections: retry in a moment",
        }
    }
).encode()
BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
    b"Retry-After: 1\r\nConnection: close\r\n"
    + f"Content-Length: {len(_BODY)}\r\n\r\n".encode()
    + _BODY
)


class BoundedWSGIServer(ThreadedWSGIServer):
    """Werkzeug's threaded server with at most `max_connections` connection threads."""

    def __init__(self, host: str, port: int, app: Any, max_connections: int, **kwargs: Any):
        super().__init__(host, port, app, **kwargs)
        self.max_connections = max_connections
        self._lock = threading.Lock()  # guards `open`: the slots in use
        self.open = 0  # connections holding a slot now
        self.refused = 0  # connections answered 503 without a thread

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._lock:
            full = self.open >= self.max_connections
            if full:
                self.refused += 1
            else:
                self.open += 1
        if full:
            self._turn_away(request)
            return
        try:
            super().process_request(request, client_address)  # starts the thread
        except BaseException:
            self._release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._release()

    def _release(self) -> None:
        # A counter, not a BoundedSemaphore: Ctrl-C landing in process_request just after the
        # thread started released the slot twice, and the semaphore's ValueError replaced the
        # KeyboardInterrupt (serve then printed a traceback instead of stopping cleanly).
        with self._lock:
            self.open = max(0, self.open - 1)

    def _turn_away(self, request: socket.socket) -> None:
        try:
            request.settimeout(0.5)  # the listening thread must never wait on one client
            request.sendall(BUSY)
        except OSError:
            pass
        self.shutdown_request(request)


def serve_bounded(app: Any, host: str, port: int, max_connections: int) -> None:
    """Serve `app` (the Flask app with Socket.IO) until Ctrl-C, threading mode."""
    server = BoundedWSGIServer(host, port, app, max_connections)
    server.serve_forever()
