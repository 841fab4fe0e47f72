"""A recording endpoint for the harness tests: an HTTP proxy on loopback that keeps the exact
bytes of every request body it receives and hands the request on to a real endpoint (the
stand-in model, or a real model server), so a test can compare what a transcript rebuilds with
what the wire carried."""

from __future__ import annotations

import http.client
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class RecordingProxy:
    def __init__(self, upstream: str) -> None:
        target = urllib.parse.urlsplit(upstream)
        self.bodies: list[bytes] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._forward(b"")

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path.endswith("/chat/completions"):
                    with owner._lock:
                        owner.bodies.append(body)
                self._forward(body)

            def _forward(self, body: bytes) -> None:
                path = target.path.rstrip("/") + self.path[len(owner.prefix):]
                conn = http.client.HTTPConnection(target.hostname, target.port, timeout=600)
                try:
                    conn.request(self.command, path, body=body or None,
                                 headers={"Content-Type": "application/json"})
                    answer = conn.getresponse()
                    data = answer.read()
                    status = answer.status
                except OSError:
                    status, data = 502, b'{"error": {"message": "upstream gone"}}'
                finally:
                    conn.close()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass

        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.prefix = "/v1"
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{self.prefix}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> RecordingProxy:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
