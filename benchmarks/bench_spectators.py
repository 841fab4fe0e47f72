"""Does the live server hold its tick rate with 50 spectators connected? (loopback only)

Starts `asiworld serve` as a separate process at speed 10 with 9 built-in characters, connects
N raw Socket.IO spectators over WebSocket from this process (a minimal Engine.IO v4 client on
simple-websocket), and compares the ticks advanced against wall time. Target: within 5 % of the
speed. Bounded: at most 200 spectators and 120 seconds, and it only ever talks to 127.0.0.1.

    python benchmarks/bench_spectators.py [--spectators 50] [--seconds 20]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import simple_websocket

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"


class Spectator(threading.Thread):
    """Engine.IO v4 over WebSocket: open, connect the namespace, spectate, answer pings."""

    def __init__(self, port: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.port, self.stop = port, stop
        self.frames = self.keyframes = self.bytes = 0
        self.error: str | None = None

    def run(self) -> None:
        try:
            ws = simple_websocket.Client.connect(
                f"ws://{HOST}:{self.port}/socket.io/?EIO=4&transport=websocket"
            )
            ws.receive(timeout=5)  # "0{...}" the Engine.IO open packet
            ws.send("40")
            ws.send('42["spectate",{}]')
            while not self.stop.is_set():
                msg = ws.receive(timeout=1)
                if msg is None:
                    continue
                if msg == "2":
                    ws.send("3")
                elif msg.startswith('42["frame"'):
                    self.frames += 1
                    self.bytes += len(msg)
                    if '"keyframe"' in msg[:40]:
                        self.keyframes += 1
            ws.close()
        except Exception as exc:  # report, do not hide (closing at the end is not an error)
            if not self.stop.is_set():
                self.error = repr(exc)


def world_tick(port: int) -> int:
    with urllib.request.urlopen(f"http://{HOST}:{port}/api/world", timeout=5) as reply:
        return json.load(reply)["tick"]


def measure(port: int, seconds: float) -> float:
    t0, k0 = time.monotonic(), world_tick(port)
    time.sleep(seconds)
    t1, k1 = time.monotonic(), world_tick(port)
    return (k1 - k0) / (t1 - t0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spectators", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--speed", type=float, default=10.0)
    parser.add_argument("--port", type=int, default=8790)
    args = parser.parse_args()
    count = min(args.spectators, 200)
    seconds = min(args.seconds, 120.0)

    agents = "forager,random,forager,random,forager,random,forager,random,forager"
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "asiworld.cli",
            "serve",
            "--host",
            HOST,
            "--port",
            str(args.port),
            "--speed",
            str(args.speed),
            "--agents",
            agents,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    stop = threading.Event()
    spectators: list[Spectator] = []
    try:
        server.stdout.readline()
        for _ in range(100):
            try:
                world_tick(args.port)
                break
            except OSError:
                time.sleep(0.1)
        baseline = measure(args.port, min(5.0, seconds))
        spectators = [Spectator(args.port, stop) for _ in range(count)]
        for s in spectators:
            s.start()
        time.sleep(2.0)  # everyone has joined and got a keyframe
        loaded = measure(args.port, seconds)
    finally:
        stop.set()
        for s in spectators:
            s.join(timeout=3)
        server.terminate()
        server.wait(timeout=10)
    errors = [s.error for s in spectators if s.error]
    frames = sum(s.frames for s in spectators)
    megabytes = sum(s.bytes for s in spectators) / 1e6
    keyframes = sum(s.keyframes for s in spectators)
    off = abs(loaded - args.speed) / args.speed * 100
    print(f"speed {args.speed:g} ticks/s, 9 built-in characters, {count} spectators, {seconds:g} s")
    print(f"ticks/s without spectators: {baseline:.2f}")
    print(f"ticks/s with {count} spectators: {loaded:.2f} ({off:.1f} % off the speed)")
    print(
        f"frames delivered: {frames} ({megabytes:.1f} MB), keyframes: {keyframes}"
        f" (initial {count}; more means slow clients were resynchronised)"
    )
    if errors:
        print(f"client errors: {len(errors)}, e.g. {errors[0]}")
    print(f"target within 5 %: {'met' if off <= 5 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
