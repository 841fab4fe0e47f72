"""A model endpoint that misbehaves on purpose, for the tests of the harness's endpoint and of a
study's seats: each POST is answered by `behaviour(handler)` (the request's body is
`handler.body`), GET answers an empty model list (a study's start-up check), and the ways a
server can hold a client for ever are here once."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Hostile:
    def __init__(self, behaviour: Any) -> None:
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            body = b""

            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                data = b'{"data": []}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                self.body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    behaviour(self)
                except OSError:  # the client hung up: that is what is tested
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def __enter__(self) -> Hostile:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def trickle(handler: Any, gap: float = 0.1) -> None:
    """Promises 100 kB and sends a byte every `gap` seconds: no read ever times out."""
    handler.send_response(200)
    handler.send_header("Content-Length", "100000")
    handler.end_headers()
    while True:
        handler.wfile.write(b" ")
        handler.wfile.flush()
        time.sleep(gap)


def endless_events(handler: Any, gap: float = 0.02) -> None:
    """A server-sent event stream that never ends."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    while True:
        chunk = b"data: {}\n\n"
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        handler.wfile.flush()
        time.sleep(gap)
