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
import json
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import simple_websocket

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
MAX_SPECTATORS = 1000
MAX_FRONTENDS = 8
MAX_SECONDS = 120.0
TICK = re.compile(r'"tick":\s*(\d+)')
CONFIGURATIONS = ("forager", "random")


class Spectator(threading.Thread):
    """Engine.IO v4 over WebSocket: open, connect the namespace, spectate, answer pings."""

    def __init__(self, port: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.port, self.stop = port, stop
        self.frames = self.keyframes = self.bytes = 0
        self.arrivals: list[tuple[int, float]] = []  # (tick, arrival time) while measuring
        self.measuring = False
        self.error: str | None = None

    def run(self) -> None:
        try:
            ws = simple_websocket.Client.connect(
                f"ws://{HOST}:{self.port}/socket.io/?EIO=4&transport=websocket"
            )
            ws.receive(timeout=10)  # "0{...}" the Engine.IO open packet
            ws.send("40")
            ws.send('42["spectate",{}]')
            while not self.stop.is_set():
                msg = ws.receive(timeout=1)
                if msg is None:
                    continue
                if msg == "2":
                    ws.send("3")
                elif msg.startswith('42["frame"'):
                    now = time.monotonic()
                    self.frames += 1
                    self.bytes += len(msg)
                    head = msg[:60]
                    if '"keyframe"' in msg[:200]:
                        self.keyframes += 1
                    found = TICK.search(head)
                    if self.measuring and found:
                        self.arrivals.append((int(found.group(1)), now))
            ws.close()
        except Exception as exc:  # report, do not hide (closing at the end is not an error)
            if not self.stop.is_set():
                self.error = repr(exc)


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
    folder = tempfile.TemporaryDirectory(prefix="asiworld-bench-")
    try:
        world_argv = ["--speed", str(args.speed), "--max-connections", connections]
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
        spectators = [Spectator(ports[i % len(ports)], stop) for i in range(count)]
        started = time.monotonic()
        for s in spectators:
            s.start()
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
        for s in spectators:
            s.join(timeout=3)
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
