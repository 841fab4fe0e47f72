"""More than one server process: one world publishes its frames on a real Redis server and two
`asiworld serve --frontend` processes hand them to their own Socket.IO spectators.

Everything here is started by the test (redis-server on a free port in tmp_path, the world, two
front ends) and stopped by it. Bad inputs tried: --frontend without --message-queue, a queue URL
that is not Redis's, a Redis URL where no server listens, --frontend with world options (--agents,
--seed), the player events a front end cannot serve (join, act, observe, follow), and a client
that asks to spectate again and again.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from asiworld.cli import main

from tests.hardening.serving import free_port, start_server, stop_server
from tests.socket_order import OrderedClient

FRAMES = 30  # collected on every client (three seconds at speed 10 on an idle machine)
WAIT = 120.0  # at most, for a loaded machine


@pytest.fixture
def redis_url(tmp_path: Path):
    # Imported here: a checkout whose venv predates the test extra's redis fails these tests
    # (pip install -e '.[test]') instead of stopping the whole suite at collection.
    import redis

    server = shutil.which("redis-server")
    assert server, "redis-server is not installed: `make install-redis` (apt-get redis-server)"
    port = free_port()
    proc = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(tmp_path),
         "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis.from_url(url, socket_connect_timeout=1).ping()
                break
            except redis.ConnectionError:
                assert time.monotonic() < deadline, "redis-server did not answer within 10 s"
                time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


class Watcher:
    """A Socket.IO spectator that keeps every frame it receives, in the order they arrive
    (tests/socket_order.py: the failure seen at load 8-15 was the test client's own threads
    reordering frames that came in order, not the fan-out)."""

    def __init__(self, port: int, keep: Callable[[dict], None] | None = None) -> None:
        self.frames: list[dict] = []
        self.client = OrderedClient(reconnection=False)
        self.client.on("frame", keep or self.frames.append)
        self.client.connect(f"http://127.0.0.1:{port}", transports=["websocket"], wait_timeout=10)

    def spectate(self) -> dict:
        return self.client.call("spectate", {}, timeout=10)

    def close(self) -> None:
        self.client.disconnect()


def in_order(frames: list[dict]) -> bool:
    """Every frame after the first is the next tick's delta, or a keyframe of a later tick: a
    spectator that fell behind (HIGH_WATER queued packets, on a loaded machine) is dropped to
    keyframes and seated again, as a browser is. Between keyframes no delta is missed or
    doubled: that is what a spectator needs to draw the world right."""
    return all(
        frame["tick"] > before["tick"] if "keyframe" in frame
        else frame["tick"] == before["tick"] + 1
        for before, frame in zip(frames, frames[1:], strict=False)
    )


def test_in_order_allows_a_resync_and_nothing_else():
    key, delta = (lambda t: {"tick": t, "keyframe": {}}), (lambda t: {"tick": t})
    assert in_order([key(5), delta(6), delta(7), key(12), delta(13)])
    assert not in_order([key(5), delta(6), delta(8)])  # a delta missed
    assert not in_order([key(5), delta(6), delta(6)])  # a delta doubled
    assert not in_order([key(5), delta(6), key(9), delta(9)])  # the keyframe's tick again


def test_a_watcher_keeps_frames_in_arrival_order_when_handling_one_is_slow() -> None:
    """The load seen in CI, made sure: the keyframe's handler is slow (as a thread that gets no
    CPU for a while), and the deltas behind it still come after it in the list."""
    port = free_port()
    world = start_server(port, "--ephemeral", "--no-record", "--agents", "forager")
    watcher = None
    try:
        def keep(frame: dict) -> None:
            if "keyframe" in frame:
                time.sleep(0.5)  # the handler is held up, not the test's wait
            watcher.frames.append(frame)

        watcher = Watcher(port, keep)
        assert watcher.spectate()["ok"] is True
        deadline = time.monotonic() + 30
        while len(watcher.frames) < 5 and time.monotonic() < deadline:
            time.sleep(0.05)
        watcher.close()
    finally:
        stop_server(world)
    assert len(watcher.frames) >= 5
    assert "keyframe" in watcher.frames[0] and in_order(watcher.frames)


def test_two_front_ends_hand_out_the_same_frames_as_the_world(redis_url: str) -> None:
    world_port, ports = free_port(), [free_port(), free_port()]
    world = start_server(
        world_port, "--ephemeral", "--no-record", "--agents", "forager,planner",
        "--message-queue", redis_url,
    )
    procs = [world]
    watchers: list[Watcher] = []
    try:
        # Started side by side: each start is mostly Python's imports.
        with ThreadPoolExecutor(len(ports)) as pool:
            procs += pool.map(
                lambda port: start_server(
                    port, "--ephemeral", "--frontend", "--message-queue", redis_url
                ),
                ports,
            )
        watchers = [Watcher(world_port), *(Watcher(port) for port in ports)]
        for watcher in watchers:
            assert watcher.spectate()["ok"] is True
        refused = watchers[1].client.call("join", {"name": "ada"}, timeout=10)
        assert refused["code"] == "frontend_only"
        # Each spectate costs the world a keyframe on the queue: a client looping on it is
        # refused after a burst (an extra spectator on the second front end, so the watcher's
        # own frames stay one keyframe and its deltas).
        flooder = Watcher(ports[1])
        answers = [flooder.spectate() for _ in range(8)]
        flooder.close()
        assert any(a.get("code") == "rate_limited" for a in answers)
        deadline = time.monotonic() + WAIT
        while min(len(w.frames) for w in watchers) < FRAMES and time.monotonic() < deadline:
            time.sleep(0.05)
        closers = [threading.Thread(target=w.close) for w in watchers]
        for closer in closers:
            closer.start()
        for closer in closers:
            closer.join(15)
    finally:
        stuck = []
        for proc in reversed(procs):  # every one stopped, even after one that would not
            try:
                stop_server(proc)
            except AssertionError as exc:
                stuck.append(str(exc))
        assert not stuck, "\n".join(stuck)

    for watcher in watchers:
        frames = watcher.frames
        assert len(frames) >= FRAMES, f"only {len(frames)} frames in {WAIT} s"
        assert "keyframe" in frames[0], "a spectator starts from a keyframe"
        assert in_order(frames), "every delta after a keyframe, none missed or doubled"
    # The deltas of each tick are the same on the world's own server and on both front ends.
    by_tick = [{f["tick"]: f for f in w.frames if "keyframe" not in f} for w in watchers]
    shared = set(by_tick[0]) & set(by_tick[1]) & set(by_tick[2])
    assert len(shared) >= 10
    for tick in shared:
        assert by_tick[0][tick] == by_tick[1][tick] == by_tick[2][tick]


def serve(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str]:
    """`asiworld serve ARGV` in this process: each of these is refused before anything starts."""
    code = main(["serve", "--ephemeral", "--port", str(free_port()), *argv])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["--frontend"], "bad_argument"),
        (["--frontend", "--message-queue", "http://127.0.0.1:6379"], "bad_message_queue"),
        (["--message-queue", "amqp://guest@127.0.0.1//"], "bad_message_queue"),
        (["--frontend", "--message-queue", "redis://127.0.0.1:1/0"], "queue_unavailable"),
        (["--message-queue", "redis://127.0.0.1:1/0"], "queue_unavailable"),
    ],
)
def test_a_bad_queue_is_refused_before_anything_starts(
    capsys: pytest.CaptureFixture, argv: list[str], code: str
) -> None:
    exit_code, err = serve(capsys, *argv)
    assert exit_code == 2
    assert err.startswith(f"error: {code}: ") and "Traceback" not in err


def test_a_front_end_refuses_the_world_s_options(capsys: pytest.CaptureFixture) -> None:
    exit_code, err = serve(
        capsys, "--frontend", "--message-queue", "redis://127.0.0.1:1/0", "--agents", "forager",
        "--seed", "3",
    )
    assert exit_code == 2
    assert err.startswith("error: bad_argument: --seed, --agents: a front end holds no world")


def test_spectators_asking_at_once_are_seated_together_with_one_keyframe(redis_url: str) -> None:
    # The world answers a front end's requests on its runner thread, between ticks: one call
    # per request seated ten spectators a second at speed 10. Requests that wait while the
    # runner is busy are seated in its next call, with one keyframe of that tick.
    import redis
    from asiworld.server.fanout import SPECTATE_CHANNEL, SPECTATORS, Fanout, request_spectate

    calls: list[int] = []
    busy = threading.Event()
    released = threading.Event()

    def call(fn):  # the runner: busy with the first request until the rest have arrived
        calls.append(1)
        if len(calls) == 1:
            busy.set()
            released.wait(10)
        return fn()

    keyframes = []
    fanout = Fanout(redis_url, keyframe=lambda: keyframes.append(1) or {"tick": 1}, call=call)
    seated: list[tuple[str, str]] = []

    class Emitter:  # what the world emits, kept instead of published
        class server:
            @staticmethod
            def enter_room(sid, room, namespace):
                seated.append((sid, room))

        @staticmethod
        def emit(event, data, to, namespace):
            assert event == "frame" and data == {"tick": 1}

    fanout.emitter = Emitter
    client = redis.Redis.from_url(redis_url)
    try:
        deadline = time.monotonic() + 10  # the listener has subscribed (a request before is lost)
        while client.pubsub_numsub(SPECTATE_CHANNEL)[0][1] < 1:
            assert time.monotonic() < deadline, "the world's listener never subscribed"
            time.sleep(0.01)
        request_spectate(client, "first")
        assert busy.wait(10)
        for i in range(24):
            request_spectate(client, f"s{i}")
        time.sleep(0.3)  # every request is on the listener's connection
        released.set()
        deadline = time.monotonic() + 10
        while len(seated) < 25 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        released.set()
        fanout.close()
        client.close()
    assert sorted(sid for sid, _ in seated) == sorted(["first", *(f"s{i}" for i in range(24))])
    assert {room for _, room in seated} == {SPECTATORS}
    assert len(calls) == 2 and len(keyframes) == 2  # not 25 of each


def _front_end(redis_url: str):
    from asiworld.server.frontend import create_frontend_app

    return create_frontend_app(redis_url).extensions["asiworld_frontend"]


def test_a_spectate_that_finds_every_queue_connection_busy_waits_for_one(redis_url, monkeypatch):
    # a thousand spectators asking at once took more connections than redis-py's pool gave,
    # and the requests that failed were lost without a word to their clients
    import redis
    from asiworld.server import frontend
    from asiworld.server.fanout import SPECTATE_CHANNEL

    monkeypatch.setattr(frontend, "QUEUE_CONNECTIONS", 2)
    front = _front_end(redis_url)
    listener = redis.Redis.from_url(redis_url).pubsub(ignore_subscribe_messages=True)
    listener.subscribe(SPECTATE_CHANNEL)
    pool = front.redis.connection_pool
    held = [pool.get_connection(), pool.get_connection()]  # every connection busy
    answer: list = []
    asking = threading.Thread(target=lambda: answer.append(front.ask_world("sid-1")))
    try:
        asking.start()
        asking.join(0.5)
        assert asking.is_alive() and not answer  # waiting, not refused
        pool.release(held.pop())
        asking.join(10)
        assert answer == [{"ok": True}]
        deadline = time.monotonic() + 5
        message = None
        while message is None and time.monotonic() < deadline:
            message = listener.get_message(timeout=0.5)
        assert message is not None and b"sid-1" in message["data"]  # the world was asked
    finally:
        for connection in held:
            pool.release(connection)
        listener.close()
        front.close()


def test_a_spectate_the_queue_cannot_take_is_answered_with_an_error(redis_url, monkeypatch):
    from asiworld.server import frontend

    monkeypatch.setattr(frontend, "QUEUE_CONNECTIONS", 1)
    monkeypatch.setattr(frontend, "QUEUE_WAIT", 0.2)
    front = _front_end(redis_url)
    pool = front.redis.connection_pool
    held = pool.get_connection()
    try:
        answer = front.ask_world("sid-1")
    finally:
        pool.release(held)
        front.close()
    assert answer["ok"] is False and answer["code"] == "queue_unavailable"
    assert "try again" in answer["message"] and "sid-1" not in front.spectators
