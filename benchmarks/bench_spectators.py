"""Does the live server hold its tick rate with many spectators connected? (loopback only)

Starts `asiworld serve` as a separate process at --speed with --agents built-in characters,
connects N raw Socket.IO spectators over WebSocket from this process (a minimal Engine.IO v4
client on simple-websocket), and measures: ticks advanced against wall time, each frame's lag
(when it arrived against when its tick was due on the world's clock, the clock's start fitted
to the earliest arrival), and the server's resident memory. Target: within 5 % of the speed.

With --frontends N it starts a redis-server on a free port in a temporary folder, the world
with --message-queue, and N `asiworld serve --frontend` processes, and spreads the spectators
over the front ends (none on the world's own server): the set-up of docs/operations.md, *More
than one server process*.

Bounded: at most 1,000 spectators, 8 front ends and 120 seconds; it raises its own open-file
limit to the hard limit and refuses a count that would not fit; it only talks to 127.0.0.1, and
it stops everything it started.

    python benchmarks/bench_spectators.py [--spectators 50] [--agents 9] [--seconds 20]
    python benchmarks/bench_spectators.py --spectators 1000 --agents 50 --seconds 30
    python benchmarks/bench_spectators.py --spectators 200 --frontends 2 --seconds 20
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import resource
import selectors
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
MAX_SPECTATORS = 1000
MAX_FRONTENDS = 8
MAX_SECONDS = 120.0
TICK = re.compile(rb'"tick":\s*(\d+)')
CONFIGURATIONS = ("forager", "random")


class Spectator:
    """One spectator's connection and what it received (driven by an Audience)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.frames = self.keyframes = self.bytes = 0
        self.arrivals: list[tuple[int, float]] = []  # (tick, arrival time) while measuring
        self.measuring = False
        self.error: str | None = None
        self.sock: socket.socket | None = None
        self.buffer = bytearray()
        self.upgraded = self.opened = self.connected = False
        self.other: bytes | None = None  # the last message that was none of the above
        self.message: list[bytes] = []  # the fragments of a message not yet whole

    def connect(self) -> None:
        sock = socket.create_connection((HOST, self.port), timeout=10)
        sock.sendall(
            f"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: {HOST}:{self.port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode())
        sock.setblocking(False)
        self.sock = sock

    def send(self, text: str, opcode: int = 0x1) -> None:
        # a client's frames are masked; a zero key leaves the payload as it is
        data = text.encode()
        n = len(data)
        head = bytes([0x80 | opcode]) + (bytes([0x80 | n]) if n < 126 else
                                          bytes([0x80 | 126]) + n.to_bytes(2, "big"))
        assert self.sock is not None and n < 65536
        self.sock.setblocking(True)  # a few bytes: never more than a moment
        self.sock.sendall(head + b"\0\0\0\0" + data)
        self.sock.setblocking(False)

    def received(self, data: bytes) -> None:
        buf = self.buffer
        buf += data
        if not self.upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if not buf.startswith(b"HTTP/1.1 101"):
                raise ConnectionError(bytes(buf[:end]).decode(errors="replace"))
            del buf[:end + 4]
            self.upgraded = True
        at = 0
        while len(buf) - at >= 2:
            b0, b1 = buf[at], buf[at + 1]
            n, i = b1 & 0x7F, at + 2
            if n == 126:
                if len(buf) - at < 4:
                    break
                n, i = int.from_bytes(buf[at + 2:at + 4], "big"), at + 4
            elif n == 127:
                if len(buf) - at < 10:
                    break
                n, i = int.from_bytes(buf[at + 2:at + 10], "big"), at + 10
            if len(buf) < i + n:
                break
            payload, at = bytes(buf[i:i + n]), i + n
            opcode = b0 & 0x0F
            if opcode == 0x9:  # a WebSocket ping
                self.send(payload.decode(), 0xA)
            elif opcode == 0x8:
                raise ConnectionError("closed by the server")
            elif opcode in (0x0, 0x1):
                self.message.append(payload)
                if b0 & 0x80:
                    self.on_message(b"".join(self.message))
                    self.message = []
        del buf[:at]

    def on_message(self, msg: bytes) -> None:
        if not self.opened:  # "0{...}": the Engine.IO open packet
            self.opened = True
            self.send("40")
        elif msg.startswith(b"40"):  # connected to the namespace: now spectate, as a browser
            self.connected = True  # (socket.io-client holds emits until then)
            self.send('42["spectate",{}]')
        elif msg == b"2":
            self.send("3")
        elif msg.startswith(b'42["frame"'):
            now = time.monotonic()
            self.frames += 1
            self.bytes += len(msg)
            if b'"keyframe"' in msg[:200]:
                self.keyframes += 1
            found = TICK.search(msg[:60])
            if self.measuring and found:
                self.arrivals.append((int(found.group(1)), now))
        else:
            self.other = msg[:200]


class Audience(threading.Thread):
    """Every spectator on one thread, over a selector: a thread (and a WebSocket library's
    framing in Python) per spectator took more of this machine's two cores than the server
    it measured. Engine.IO v4 over WebSocket: open, connect the namespace, spectate, answer
    pings."""

    def __init__(self, spectators: list[Spectator], stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.spectators, self.stop = spectators, stop

    def run(self) -> None:
        sel = selectors.DefaultSelector()
        waiting = list(self.spectators)
        while not self.stop.is_set():
            for s in waiting[:50]:  # a few at a time, as browsers would arrive
                try:
                    s.connect()
                    assert s.sock is not None
                    sel.register(s.sock, selectors.EVENT_READ, s)
                except OSError as exc:
                    s.error = repr(exc)
            waiting = waiting[50:]
            for key, _ in sel.select(timeout=0.05):
                s = key.data
                try:
                    data = s.sock.recv(1 << 16)
                    if not data:
                        raise ConnectionError("connection closed")
                    s.received(data)
                except BlockingIOError:
                    continue
                except (OSError, ValueError) as exc:
                    if not self.stop.is_set():
                        s.error = repr(exc)
                    sel.unregister(s.sock)
                    s.sock.close()
        for key in list(sel.get_map().values()):
            key.fileobj.close()
        sel.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def healthz(port: int) -> dict:
    with urllib.request.urlopen(f"http://{HOST}:{port}/healthz", timeout=10) as reply:
        return json.load(reply)


def world_tick(port: int) -> int:
    return healthz(port)["tick"]


def wait_for(port: int, proc: subprocess.Popen, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"a server on port {port} exited with {proc.returncode}")
        try:
            healthz(port)
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"no answer on port {port} within {seconds:g} s")


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def serve(port: int, *argv: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "asiworld.cli", "serve", "--host", HOST, "--port", str(port),
         "--ephemeral", "--no-record", *argv],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def frame_lags(spectators: list[Spectator], speed: float) -> list[float]:
    """Each frame's arrival against its tick's due time; the clock's start is fitted so the
    earliest frame of all has lag 0 (the world's own timestamps are not sent)."""
    arrivals = [(tick, t) for s in spectators for tick, t in s.arrivals]
    if not arrivals:
        return []
    start = min(t - tick / speed for tick, t in arrivals)
    return [t - tick / speed - start for tick, t in arrivals]


def open_files_needed(count: int) -> int:
    return 2 * count + 256  # a socket per spectator here, with room for threads' pipes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spectators", type=int, default=50)
    parser.add_argument("--agents", type=int, default=9, help="built-in characters (default 9)")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--speed", type=float, default=10.0)
    parser.add_argument("--frontends", type=int, default=0, help="front-end processes (Redis)")
    parser.add_argument("--async-mode", choices=("threading", "eventlet"), default="threading",
                        help="the world's Socket.IO mode (asiworld serve --async-mode; "
                        "front ends run in the threading mode)")
    args = parser.parse_args()
    count = max(1, min(args.spectators, MAX_SPECTATORS))
    seconds = min(args.seconds, MAX_SECONDS)
    frontends = max(0, min(args.frontends, MAX_FRONTENDS))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = open_files_needed(count)
    if hard != resource.RLIM_INFINITY and hard < need:
        print(f"error: the open-file limit ({hard}) is below the {need} {count} spectators need")
        return 2
    if soft != resource.RLIM_INFINITY and soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the servers inherit it
    if frontends and shutil.which("redis-server") is None:
        print("error: --frontends needs Debian's redis-server (make install-redis)")
        return 2

    agents = ",".join(CONFIGURATIONS[i % 2] for i in range(args.agents))
    world_port = free_port()
    connections = str(count + 64)  # every WebSocket holds a server thread
    procs: list[subprocess.Popen] = []
    stop = threading.Event()
    spectators: list[Spectator] = []
    audience: Audience | None = None
    folder = tempfile.TemporaryDirectory(prefix="asiworld-bench-")
    try:
        world_argv = ["--speed", str(args.speed), "--max-connections", connections,
                      "--async-mode", args.async_mode]
        if agents:
            world_argv += ["--agents", agents]
        ports = [world_port]
        if frontends:
            redis_port = free_port()
            procs.append(subprocess.Popen(
                ["redis-server", "--port", str(redis_port), "--bind", HOST, "--dir", folder.name,
                 "--save", "", "--appendonly", "no"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            ))
            time.sleep(0.5)
            url = f"redis://{HOST}:{redis_port}/0"
            world_argv += ["--message-queue", url]
        world = serve(world_port, *world_argv)
        procs.append(world)
        wait_for(world_port, world)
        fronts: list[subprocess.Popen] = []
        if frontends:
            ports = [free_port() for _ in range(frontends)]
            for port in ports:
                fronts.append(serve(port, "--frontend", "--message-queue", url,
                                    "--max-connections", connections))
            procs += fronts
            for port, proc in zip(ports, fronts, strict=True):
                wait_for(port, proc)
        t0, k0 = time.monotonic(), world_tick(world_port)
        time.sleep(min(5.0, seconds))
        baseline = (world_tick(world_port) - k0) / (time.monotonic() - t0)
        spectators = [Spectator(ports[i % len(ports)]) for i in range(count)]
        audience = Audience(spectators, stop)
        started = time.monotonic()
        audience.start()
        deadline = started + 60
        while time.monotonic() < deadline and sum(1 for s in spectators if s.frames) < count:
            if all(s.error or s.frames for s in spectators):
                break
            time.sleep(0.2)
        joined = sum(1 for s in spectators if s.frames)
        join_seconds = time.monotonic() - started
        time.sleep(1.0)
        for s in spectators:
            s.measuring = True
        rss_peak = {p.pid: 0.0 for p in [world, *fronts]}
        t0, k0 = time.monotonic(), world_tick(world_port)
        end = t0 + seconds
        while time.monotonic() < end:
            for pid in rss_peak:
                rss_peak[pid] = max(rss_peak[pid], rss_mib(pid))
            time.sleep(min(1.0, max(0.0, end - time.monotonic())))
        loaded = (world_tick(world_port) - k0) / (time.monotonic() - t0)
        for s in spectators:
            s.measuring = False
        rss_end = {pid: rss_mib(pid) for pid in rss_peak}
    finally:
        stop.set()
        if audience is not None:
            audience.join(timeout=5)
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        folder.cleanup()
    errors = [s.error for s in spectators if s.error]
    frames = sum(s.frames for s in spectators)
    megabytes = sum(s.bytes for s in spectators) / 1e6
    keyframes = sum(s.keyframes for s in spectators)
    lags = frame_lags(spectators, args.speed)
    off = abs(loaded - args.speed) / args.speed * 100
    where = f"{frontends} front ends over Redis" if frontends else "the world's own server"
    print(f"speed {args.speed:g} ticks/s, {args.agents} built-in characters, {count} spectators "
          f"on {where}, {seconds:g} s measured")
    print(f"joined: {joined} of {count} got frames within {join_seconds:.1f} s")
    if joined < count:  # where the others stopped
        upgraded = sum(1 for s in spectators if s.upgraded)
        opened = sum(1 for s in spectators if s.opened)
        connected = sum(1 for s in spectators if s.connected)
        print(f"  of the {count}: {upgraded} had their WebSocket, {opened} the Engine.IO open "
              f"packet, {connected} the namespace, {joined} a frame (at the end of the run)")
        other = next((s.other for s in spectators if s.other and not s.frames), None)
        if other:
            print(f"  one without a frame last heard: {other!r}")
    print(f"ticks/s without spectators: {baseline:.2f}")
    print(f"ticks/s with {count} spectators: {loaded:.2f} ({off:.1f} % off the speed)")
    print(f"frame lag p50 / p95 / max: {percentile(lags, .5) * 1000:.0f} / "
          f"{percentile(lags, .95) * 1000:.0f} / {max(lags, default=float('nan')) * 1000:.0f} ms"
          f" over {len(lags)} frames")
    print(f"frames delivered: {frames} ({megabytes:.1f} MB), keyframes: {keyframes}"
          f" (initial {count}; more means slow clients were resynchronised)")
    names = ["world", *(f"front end {i + 1}" for i in range(frontends))]
    for name, pid in zip(names, rss_peak, strict=True):
        print(f"RSS {name}: {rss_end[pid]:.1f} MiB at the end, peak {rss_peak[pid]:.1f} MiB")
    if errors:
        print(f"client errors: {len(errors)}, e.g. {errors[0]}")
    print(f"target within 5 %: {'met' if off <= 5 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
