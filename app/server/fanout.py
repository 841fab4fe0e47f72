"""The world process's side of the message queue: frames out to front ends, spectators in.

With `asiworld serve --message-queue redis://HOST:PORT/0` the world process keeps serving its
own clients as before and also publishes every tick's frame on the queue through a write-only
Flask-SocketIO (`SocketIO(message_queue=URL)`, no app, no listening thread). Each front end
(`asiworld serve --frontend`, app/server/frontend.py) is a full Socket.IO server on the same
queue: Flask-SocketIO delivers a frame emitted to the `spectators` room to the members of that
room on every front end.

A front end's client that asks to spectate needs a keyframe first and then every delta after it,
with nothing missed or doubled in between. The front end therefore does not build it: it
publishes the client's sid on SPECTATE_CHANNEL, and the world answers on its runner thread (the
thread that emits the frames) with the keyframe to that sid and then `enter_room` for it, both
through the queue. One thread publishing in order on one channel keeps the keyframe between the
frame of its tick and the next delta, as the single-process server does (live.add_spectator).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import Any

from asiworld.engine import codes

log = logging.getLogger(__name__)

CHANNEL = "asiworld"  # the Socket.IO channel on the queue (Flask-SocketIO's `channel`)
SPECTATE_CHANNEL = "asiworld-spectate"  # front ends -> world: {"sid": ...}
SPECTATORS = "spectators"
NAMESPACE = "/"
SCHEMES = ("redis://", "rediss://", "unix://")


class QueueUnavailable(Exception):
    """The message queue cannot be used (a bad URL, no redis package, no server there)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def check_queue(url: str) -> None:
    """Raise QueueUnavailable unless `url` names a Redis server that answers a PING now."""
    if not isinstance(url, str) or not url.startswith(SCHEMES):
        raise QueueUnavailable(
            codes.BAD_MESSAGE_QUEUE,
            f"--message-queue is a Redis URL such as redis://127.0.0.1:6379/0, not {url!r}",
        )
    try:
        import redis
    except ImportError:
        raise QueueUnavailable(
            codes.REDIS_UNAVAILABLE,
            "the message queue needs the redis package: pip install 'asiworld[scale]'",
        ) from None
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3)
        client.ping()
        client.close()
    except (redis.RedisError, ValueError, OSError) as exc:
        raise QueueUnavailable(
            codes.QUEUE_UNAVAILABLE, f"no Redis server answers at {url}: {exc}"
        ) from None


class Fanout:
    """Publishes the live world's frames on the queue and seats front ends' spectators."""

    def __init__(
        self,
        url: str,
        keyframe: Callable[[], dict],
        call: Callable[..., Any],
        async_mode: str = "threading",
    ) -> None:
        import redis
        from flask_socketio import SocketIO

        self.url = url
        self._keyframe = keyframe  # the runner's keyframe for the current tick
        self._call = call  # runs a function on the runner thread (WorldRunner.call)
        # Write-only (no app). The async mode is the server's: left to itself, Flask-SocketIO
        # picks eventlet whenever it is installed.
        self.emitter = SocketIO(message_queue=url, channel=CHANNEL, async_mode=async_mode)
        self.frames_published = 0
        self._redis = redis.Redis.from_url(url)
        self._pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        self._pubsub.subscribe(SPECTATE_CHANNEL)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._listen, name="fanout-spectate", daemon=True)
        self._thread.start()

    # --- runner thread ----------------------------------------------------------------------

    def frame(self, frame: dict) -> None:
        """This tick's frame to every front end's spectators (one publish, whatever their number)."""
        self.emitter.emit("frame", frame, to=SPECTATORS, namespace=NAMESPACE)
        self.frames_published += 1

    def keyframe_to_all(self, keyframe: dict) -> None:
        """A fork or resume: every front end's spectator starts again from the new world."""
        self.emitter.emit("frame", keyframe, to=SPECTATORS, namespace=NAMESPACE)

    def _seat_spectators(self, sids: list[str]) -> None:
        """One keyframe of this tick for every spectator asking, then the room."""
        keyframe = self._keyframe()
        for sid in sids:
            self.emitter.emit("frame", keyframe, to=sid, namespace=NAMESPACE)
            self.emitter.server.enter_room(sid, SPECTATORS, namespace=NAMESPACE)

    # --- the listening thread ---------------------------------------------------------------

    def _listen(self) -> None:
        # Every request waiting is seated in one call to the runner thread, which answers
        # between ticks: one call per request seated ten spectators a second at speed 10, and a
        # thousand arriving at front ends took minutes.
        while not self._stop.is_set():
            try:
                sids = self._requests(self._pubsub.get_message(timeout=0.5))
                while sids:
                    more = self._requests(self._pubsub.get_message(timeout=0.0))
                    if not more:
                        break
                    sids += more
            except Exception:  # the queue went away: say so, retry, never kill the world
                if self._stop.is_set():
                    return
                log.exception("the message queue stopped answering; retrying in 1 s")
                self._stop.wait(1.0)
                continue
            if sids:
                try:
                    self._call(lambda sids=sids: self._seat_spectators(sids))
                except Exception:
                    log.exception("could not seat %d front ends' spectators", len(sids))

    @staticmethod
    def _requests(message: dict | None) -> list[str]:
        """The spectator a front end's request names, as a list (none for anything else)."""
        if not message or message.get("type") != "message":
            return []
        try:
            sid = json.loads(message["data"])["sid"]
        except (ValueError, KeyError, TypeError):
            return []  # not ours: the channel is only for front ends' requests
        return [sid] if isinstance(sid, str) and sid else []

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2.0)
        try:
            self._pubsub.close()
            self._redis.close()
        except Exception:
            pass


def request_spectate(client: Any, sid: str) -> None:
    """A front end asks the world for `sid`'s keyframe and room (client: a redis.Redis)."""
    client.publish(SPECTATE_CHANNEL, json.dumps({"sid": sid}))
