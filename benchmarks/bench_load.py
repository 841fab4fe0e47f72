"""Load on loopback: 100 spectators and 20 agents against a saving server at speed 10.

Starts `asiworld serve` (with a temporary --data-dir, so every acknowledged action is committed
to SQLite first) on 127.0.0.1, connects N spectators (Socket.IO over WebSocket, `spectate`) and
M agents (joined through REST, then acting over the /agent Socket.IO namespace twice a second
each), and measures over the run:

* the tick rate against the target speed (goal: within 5 %),
* disconnects (goal: none),
* the server's resident memory, sampled every 2 s (goal: flat after warm-up),
* acknowledgement latency of the agents' actions.

Bounded: at most 200 spectators, 50 agents and 600 seconds (long enough to see memory settle); it only talks to 127.0.0.1.

    python benchmarks/bench_load.py [--spectators 100] [--agents 20] [--seconds 60] [--speed 10]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import simple_websocket

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

from bench_spectators import Spectator  # noqa: E402 - the same raw spectator client

from tests.hardening.serving import free_port, http  # noqa: E402

HOST = "127.0.0.1"
WARMUP = 5.0


class Agent(threading.Thread):
    """An external agent: REST join, then `act` over /agent with acknowledgements."""

    def __init__(self, port: int, index: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.port, self.index, self.stop = port, index, stop
        self.sent = self.acked = self.accepted = 0
        self.latencies: list[float] = []
        self.error: str | None = None

    def run(self) -> None:
        try:
            status, joined = http(
                "POST", self.port, "/api/agents/join", {"name": f"bot{self.index}"}
            )
            if status != 201:
                raise RuntimeError(f"join answered {status}: {joined}")
            ws = simple_websocket.Client.connect(
                f"ws://{HOST}:{self.port}/socket.io/?EIO=4&transport=websocket"
            )
            ws.receive(timeout=5)
            ws.send("40/agent," + json.dumps({"token": joined["token"]}))
            waiting: dict[int, float] = {}
            next_send = time.monotonic()
            ack_id = 0
            while not self.stop.is_set():
                now = time.monotonic()
                if now >= next_send:
                    action = (
                        {"type": "move", "dir": "nsew"[ack_id % 4]}
                        if ack_id % 2
                        else {"type": "wait", "ticks": 1}
                    )
                    ws.send(f"42/agent,{ack_id}" + json.dumps(["act", {"action": action}]))
                    waiting[ack_id] = now
                    ack_id += 1
                    self.sent += 1
                    next_send += 0.5
                msg = ws.receive(timeout=0.05)
                if msg is None:
                    continue
                if msg == "2":
                    ws.send("3")
                elif msg.startswith("43/agent,"):
                    body = msg[len("43/agent,") :]
                    digits = len(body) - len(body.lstrip("0123456789"))
                    sent_at = waiting.pop(int(body[:digits]), None)
                    if sent_at is not None:
                        self.latencies.append(time.monotonic() - sent_at)
                    self.acked += 1
                    self.accepted += '"ok":true' in body
                elif msg.startswith("44/agent"):
                    raise RuntimeError(f"connection refused: {msg}")
            ws.close()
        except Exception as exc:
            if not self.stop.is_set():
                self.error = repr(exc)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def tick(port: int) -> int:
    with urllib.request.urlopen(f"http://{HOST}:{port}/healthz", timeout=5) as reply:
        return json.loads(reply.read())["tick"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spectators", type=int, default=100)
    parser.add_argument("--agents", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--speed", type=float, default=10.0)
    args = parser.parse_args()
    if not (0 <= args.spectators <= 200 and 0 <= args.agents <= 50 and 5 <= args.seconds <= 600):
        print("bounded: spectators <= 200, agents <= 50, 5 <= seconds <= 600", file=sys.stderr)
        return 2

    port = free_port()
    data = tempfile.mkdtemp(prefix="asiworld-load-")
    server = subprocess.Popen(
        [sys.executable, "-m", "asiworld.cli", "serve", "--host", HOST, "--port", str(port),
         "--speed", str(args.speed), "--data-dir", data, "--admin-token", "bench"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )  # fmt: skip
    stop = threading.Event()
    clients: list = []
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                tick(port)
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    print("the server did not start", server.stderr.read(), file=sys.stderr)
                    return 1
                time.sleep(0.2)
        agents = [Agent(port, i, stop) for i in range(args.agents)]
        spectators = [Spectator(port, stop) for _ in range(args.spectators)]
        clients = agents + spectators
        for client in clients:
            client.start()
            time.sleep(0.01)  # a connection storm is another benchmark
        time.sleep(WARMUP)
        start_tick, start = tick(port), time.monotonic()
        memory = [rss_kib(server.pid)]
        while time.monotonic() - start < args.seconds:
            time.sleep(2.0)
            memory.append(rss_kib(server.pid))
        end_tick, end = tick(port), time.monotonic()
    finally:
        stop.set()
        for client in clients:
            client.join(timeout=5)
        server.terminate()
        try:
            server.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()

    rate = (end_tick - start_tick) / (end - start)
    latencies = sorted(x for a in agents for x in a.latencies)
    errors = [c.error for c in clients if c.error]
    report = {
        "spectators": args.spectators,
        "agents": args.agents,
        "seconds": round(end - start, 1),
        "speed": args.speed,
        "ticks_per_second": round(rate, 2),
        "within_5_percent": abs(rate - args.speed) <= 0.05 * args.speed,
        "disconnects": len(errors),
        "errors": errors[:5],
        "frames_per_spectator": round(statistics.mean(s.frames for s in spectators), 1)
        if spectators
        else 0,
        "actions_sent": sum(a.sent for a in agents),
        "actions_acknowledged": sum(a.acked for a in agents),
        "actions_accepted": sum(a.accepted for a in agents),
        "ack_ms_p50": round(1000 * latencies[len(latencies) // 2], 1) if latencies else None,
        "ack_ms_p95": round(1000 * latencies[int(len(latencies) * 0.95)], 1) if latencies else None,
        "rss_mib_first": round(memory[0] / 1024, 1),
        "rss_mib_last": round(memory[-1] / 1024, 1),
        "rss_mib_max": round(max(memory) / 1024, 1),
        # every fifth sample (about every 10 s), to tell a warm-up from a leak
        "rss_mib_every_10s": [round(m / 1024, 1) for m in memory[::5]],
    }
    print(json.dumps(report, indent=2))
    return 0 if report["within_5_percent"] and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
