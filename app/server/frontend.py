"""`asiworld serve --frontend`: a process that serves the spectate page and its Socket.IO clients
for a world that runs in another process (`asiworld serve --message-queue URL`).

It holds no world. Its Socket.IO server sits on the same Redis queue as the world process's
write-only emitter (app/server/fanout.py), so the world's frames reach this process's spectators
through Flask-SocketIO's message queue. A `spectate` (or `resync`) is handed to the world on the
queue, which sends the keyframe and puts the client in the frame room; everything else a player
does (join, act, observe, follow) needs the world and is refused here with `frontend_only`.

A spectator that stops reading is treated as on the world's own server (app/server/live.py):
past HIGH_WATER queued packets it leaves the frame room, and once drained it asks for a keyframe
again. Here a small thread checks the backlogs every PACE_SECONDS, since no tick runs here.
"""

from __future__ import annotations

import threading
from typing import Any

from asiworld.engine import codes
from asiworld.engine.content import load_content
from asiworld.engine.errors import CodedError
from asiworld.server import APP_DIR
from asiworld.server.api import content_summary
from asiworld.server.errors import error_body
from asiworld.server.extensions import FRONTEND
from asiworld.server.fanout import CHANNEL, NAMESPACE, SPECTATORS, request_spectate
from asiworld.server.live import HIGH_WATER, LOW_WATER
from asiworld.server.nesting import BoundedJSON
from asiworld.server.validation import Invalid, RateLimiter
from flask import Blueprint, Flask, jsonify, redirect, render_template, request
from flask_socketio import SocketIO, emit

PACE_SECONDS = 0.1
REFUSED = ("join", "act", "observe", "follow")
# Each spectate makes the world send a whole keyframe through the queue: one a second per client
# (a burst of 5 for reconnects and resyncs) keeps a client that loops on it from flooding it.
SPECTATE_RATE = (1.0, 5.0)
# Connections to the queue shared by the handler threads, and how long one waits for a free
# one: a thousand spectators asking at once overran redis-py's default pool (100, then an
# error), and the requests that failed were lost without a word to their clients.
QUEUE_CONNECTIONS = 16
QUEUE_WAIT = 10.0


class FrontEnd:
    """The front end's Socket.IO server, its queue connection and its spectators."""

    def __init__(self, url: str, app: Flask) -> None:
        import redis

        self.url = url
        self.socketio = SocketIO(
            app,
            async_mode="threading",
            message_queue=url,
            channel=CHANNEL,
            max_http_buffer_size=64 * 1024,
            ping_interval=10,
            json=BoundedJSON,
        )
        self.server = self.socketio.server
        self.redis = redis.Redis(connection_pool=redis.BlockingConnectionPool.from_url(
            url, max_connections=QUEUE_CONNECTIONS, timeout=QUEUE_WAIT))
        self.spectators: dict[str, bool] = {}  # sid -> stale (dropped from the room)
        self.dropped_to_keyframe = 0
        self.limits = RateLimiter({"spectate": SPECTATE_RATE})
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._register()
        self._pacer = threading.Thread(target=self._pace, name="frontend-pace", daemon=True)
        self._pacer.start()

    def _register(self) -> None:
        sio = self.socketio

        @sio.on("connect")
        def on_connect(auth: Any = None) -> None:
            emit("hello", {"server": "asiworld", "frontend": True})

        @sio.on("disconnect")
        def on_disconnect(*_: Any) -> None:
            with self._lock:
                self.spectators.pop(request.sid, None)
            self.limits.forget(request.sid)

        @sio.on("spectate")
        def on_spectate(data: Any = None) -> dict:
            body = self.ask_world(request.sid)
            if not body["ok"]:
                emit("error", body)
            return body

        sio.on("resync")(on_spectate)

        for event in REFUSED:
            sio.on(event)(lambda data=None, event=event: self._refuse(event))

    def ask_world(self, sid: str) -> dict:
        """Ask the world, over the queue, to seat `sid` (a keyframe, then the frame room); the
        answer for the client."""
        import redis

        try:
            self.limits.check(sid, "spectate")
        except Invalid as exc:
            return error_body(exc, event="spectate")
        try:
            request_spectate(self.redis, sid)
        except redis.RedisError as exc:
            return error_body(CodedError(codes.QUEUE_UNAVAILABLE, "the world's message queue did "
                                         f"not take the request ({exc}); try again"),
                              event="spectate")
        with self._lock:
            self.spectators[sid] = False
        return {"ok": True}

    def _refuse(self, event: str) -> dict:
        body = {
            "ok": False,
            "code": codes.FRONTEND_ONLY,
            "message": "this front end relays the world's frames to spectators; "
            f"{event} needs the world's own server",
            "event": event,
        }
        body["error"] = {"code": body["code"], "message": body["message"]}
        emit("error", body)
        return body

    def backlog(self, sid: str) -> int:
        """Packets waiting in this client's Engine.IO send queue."""
        try:
            eio_sid = self.server.manager.eio_sid_from_sid(sid, NAMESPACE)
            sock = self.server.eio.sockets.get(eio_sid)
        except (AttributeError, KeyError):
            return 0
        return 0 if sock is None else sock.queue.qsize()

    def pace_once(self) -> None:
        with self._lock:
            spectators = list(self.spectators.items())
        for sid, stale in spectators:
            queued = self.backlog(sid)
            if not stale and queued > HIGH_WATER:
                with self._lock:
                    if sid in self.spectators:
                        self.spectators[sid] = True
                self.dropped_to_keyframe += 1
                self.server.leave_room(sid, SPECTATORS, namespace=NAMESPACE)
            elif stale and queued <= LOW_WATER:
                with self._lock:
                    if sid in self.spectators:
                        self.spectators[sid] = False
                request_spectate(self.redis, sid)

    def _pace(self) -> None:
        while not self._stop.wait(PACE_SECONDS):
            try:
                self.pace_once()
            except Exception:  # a client that left mid-check: the next round sees it gone
                pass

    def close(self) -> None:
        self._stop.set()


def create_frontend_app(url: str) -> Flask:
    """The front end's Flask app: the spectate page, its static files and /api/content."""
    app = Flask(
        __name__,
        static_folder=str(APP_DIR / "static"),
        template_folder=str(APP_DIR / "templates"),
    )
    summary = content_summary(load_content())
    # Named "pages" like the world's blueprint: the shared templates link to pages.home etc.
    pages = Blueprint("pages", __name__)

    @pages.get("/")
    def home() -> Any:
        return redirect("/live")

    @pages.get("/live")
    def live() -> str:
        return render_template("live.html", replays_url=None)

    @pages.get("/play", endpoint="play")
    @pages.get("/evaluation", endpoint="evaluation")
    def world_only() -> Any:
        message = f"{request.path} needs the world's own server; this front end only spectates"
        return jsonify({"error": {"code": codes.FRONTEND_ONLY, "message": message}}), 404

    app.register_blueprint(pages)

    @app.get("/api/content")
    def content() -> Any:
        return jsonify(summary)

    @app.get("/healthz")
    def healthz() -> Any:
        front: FrontEnd = app.extensions[FRONTEND]
        with front._lock:
            spectators = len(front.spectators)
        return jsonify({"ok": True, "frontend": True, "spectators": spectators})

    app.extensions[FRONTEND] = FrontEnd(url, app)
    return app
