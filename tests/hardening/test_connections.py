"""A bound on connections (issue 16, weakness 7): Werkzeug's threaded server started a thread
for every connection, so 400 half-open requests made 405 threads. `asiworld serve` now serves
through BoundedWSGIServer: past `--max-connections` a connection is answered 503
`too_many_connections` at once, without a thread, and a freed slot is taken again.

Bad inputs tried: connections that send half a request line and wait, one more than the cap,
and `--max-connections` abc, 0, -1 and 2.5."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest
from asiworld.cli import main
from asiworld.server.connections import BoundedWSGIServer

from tests.hardening.conftest import CONFIG

CAP = 4


@pytest.fixture
def server(apps):
    app = apps.create(dict(CONFIG))
    srv = BoundedWSGIServer("127.0.0.1", 0, app, CAP)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    thread.join(5)


def half_open(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(b"GET /healthz HT")  # and never the rest
    return sock


def request(port: int) -> tuple[int, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def wait_for(condition, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def test_connections_past_the_cap_get_a_503_without_a_thread(server):
    port = server.server_address[1]
    assert request(port)[0] == 200
    assert wait_for(lambda: server.open == 0)  # its thread has ended
    threads_before = threading.active_count()
    held = [half_open(port) for _ in range(CAP)]
    assert wait_for(lambda: server.open == CAP)
    for _ in range(3 * CAP):
        status, body = request(port)
        assert status == 503
        assert json.loads(body)["error"]["code"] == "too_many_connections"
    assert server.refused == 3 * CAP
    assert threading.active_count() <= threads_before + CAP
    held.pop().close()  # a freed slot is taken again
    assert wait_for(lambda: server.open == CAP - 1)
    assert request(port)[0] == 200
    for sock in held:
        sock.close()
    assert wait_for(lambda: server.open == 0)


@pytest.mark.parametrize("bad", ["abc", "0", "-1", "2.5"])
def test_serve_refuses_a_bad_connection_cap_before_starting(bad, capsys, tmp_path):
    code = main(["serve", "--max-connections", bad, "--data-dir", str(tmp_path / "data")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: bad_max_connections: --max-connections is a whole number")
    assert not (tmp_path / "data").exists()
