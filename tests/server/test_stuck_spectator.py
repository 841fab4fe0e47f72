"""A spectator that never reads never delays the tick: over a real WebSocket on loopback, its
frames pile up in its own send queue, it is dropped from the frame room past HIGH_WATER, and
the world and a second spectator carry on frame after frame meanwhile.

The server runs in this process (the runner thread and Werkzeug's threaded server, as `asiworld
serve` runs them) with small socket buffers, so a client that stops reading fills them within a
few frames instead of after megabytes.
"""

from __future__ import annotations

import socket
import threading
import time

import pytest
import socketio as socketio_client
from asiworld.server import services
from asiworld.server.live import HIGH_WATER
from werkzeug.serving import make_server
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Request, TextMessage

from tests.hardening.serving import free_port

SPEED = 20.0
BUFFER = 4096  # bytes: the kernel's socket buffers on both ends


@pytest.fixture
def live_server(apps):
    app = apps.create({"SEED": 3, "WORLD_SIZE": 48, "SPEED": SPEED, "AGENTS": ["forager"] * 3})
    port = free_port()
    server = make_server("127.0.0.1", port, app, threaded=True)
    server.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, BUFFER)  # accepted ones inherit it
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    runner = services(app).runner
    runner.start()
    try:
        yield app, port
    finally:
        runner.stop()
        server.shutdown()
        thread.join(10)


def stuck_spectator(port: int, keyframes: int = 5) -> socket.socket:
    """A WebSocket client that spectates, asks for `keyframes` keyframes, and then never
    reads."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, BUFFER)
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    ws = WSConnection(ConnectionType.CLIENT)
    sock.sendall(ws.send(Request(host="127.0.0.1", target="/socket.io/?EIO=4&transport=websocket")))
    accepted = opened = False
    while not (accepted and opened):
        ws.receive_data(sock.recv(65536))
        for event in ws.events():
            accepted |= isinstance(event, AcceptConnection)
            opened |= isinstance(event, TextMessage) and event.data.startswith("0")
    for text in ["40", '42["spectate",{}]', *['42["resync",{}]'] * keyframes]:
        sock.sendall(ws.send(TextMessage(data=text)))
    return sock  # from here on nothing is read


def test_a_spectator_that_never_reads_is_dropped_and_the_world_goes_on(live_server) -> None:
    app, port = live_server
    live, runner = services(app).live, services(app).runner
    watcher = socketio_client.Client(reconnection=False)
    ticks: list[int] = []
    watcher.on("frame", lambda frame: ticks.append(frame["tick"]))
    watcher.connect(f"http://127.0.0.1:{port}", transports=["websocket"], wait_timeout=10)
    watcher.call("spectate", {}, timeout=10)
    stuck = stuck_spectator(port)
    try:
        start_tick = runner.world.tick
        deadline = time.monotonic() + 20
        while live.dropped_to_keyframe == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert live.dropped_to_keyframe >= 1, "the stuck spectator was never dropped"
        stuck_sid = next(sid for sid in live.spectators if sid != watcher.get_sid())
        time.sleep(1.0)  # dropped: nothing more is queued for it
        assert live._backlog(stuck_sid) <= HIGH_WATER + 2
        assert live.spectators[stuck_sid].stale
        assert runner.world.tick - start_tick >= 20, "the world stopped while a client was stuck"
    finally:
        stuck.close()
        watcher.disconnect()
    # The other spectator had every frame, in order, all along.
    assert len(ticks) >= 20
    assert ticks[1:] == list(range(ticks[1], ticks[1] + len(ticks) - 1))
