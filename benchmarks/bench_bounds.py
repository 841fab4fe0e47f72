"""The server's bounds under a flood, on loopback (issue 16): joins, half-open connections, speed.

Starts `asiworld serve --ephemeral` on 127.0.0.1 and measures, in order:

1. the tick rate with nothing going on (the baseline);
2. N join attempts from this one address, each with a random `Authorization` header: how many
   were accepted (the join bucket allows its burst of 20 plus 2 a second), and the tick rate;
3. K half-open connections (half a request line each, never finished), held for a few
   seconds: the server's thread count (from /proc, sampled) against `--max-connections`, how
   many were turned away with a 503, and the tick rate while they are held.

Bounded: at most 5,000 joins, 2,000 connections and 120 seconds; it only talks to 127.0.0.1 and
stops the server it started.

    python benchmarks/bench_bounds.py [--joins 1000] [--half-open 500] [--max-connections 64]
"""

from __future__ import annotations

import argparse
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.hardening.serving import free_port, http, start_server  # noqa: E402

HOST = "127.0.0.1"
LIMIT_SECONDS = 120.0


def threads_of(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    return 0


def tick(port: int) -> int:
    return http("GET", port, "/healthz")[1]["tick"]


def tick_rate(port: int, seconds: float) -> float:
    start, t0 = tick(port), time.monotonic()
    time.sleep(seconds)
    return (tick(port) - start) / (time.monotonic() - t0)


def join_flood(port: int, attempts: int) -> dict:
    codes: dict[int, int] = {}
    t0 = time.monotonic()
    for i in range(attempts):
        request = urllib.request.Request(
            f"http://{HOST}:{port}/api/agents/join",
            data=b'{"name": "flood%d"}' % i,
            method="POST",
            headers={
                "Content-Type": "application/json",
                "Authorization": f"Bearer {secrets.token_urlsafe(12)}",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as reply:
                status = reply.status
        except urllib.error.HTTPError as err:
            status = err.code
        codes[status] = codes.get(status, 0) + 1
        if time.monotonic() - t0 > LIMIT_SECONDS / 4:
            break
    return {"codes": codes, "seconds": time.monotonic() - t0}


def half_open_flood(port: int, pid: int, count: int, hold: float) -> dict:
    held: list[socket.socket] = []
    most = threads_of(pid)
    turned_away = 0
    t0 = time.monotonic()
    start_tick = tick(port)
    try:
        for _ in range(count):
            sock = socket.create_connection((HOST, port), timeout=5)
            sock.sendall(b"GET /healthz HT")
            held.append(sock)
            most = max(most, threads_of(pid))
        deadline = time.monotonic() + hold
        while time.monotonic() < deadline:
            most = max(most, threads_of(pid))
            time.sleep(0.05)
        for sock in held:  # a turned-away connection has its 503 waiting
            sock.settimeout(0.01)
            try:
                if sock.recv(12).startswith(b"HTTP/1.1 503"):
                    turned_away += 1
            except OSError:
                pass
    finally:
        for sock in held:
            sock.close()
    time.sleep(0.5)  # the held threads see their connection close and end
    end_tick = tick(port)
    return {
        "most_threads": most,
        "turned_away": turned_away,
        "tick_rate": (end_tick - start_tick) / (time.monotonic() - t0),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--joins", type=int, default=1000)
    parser.add_argument("--half-open", type=int, default=500)
    parser.add_argument("--max-connections", type=int, default=64)
    parser.add_argument("--hold", type=float, default=5.0, help="seconds to hold the connections")
    parser.add_argument("--speed", type=float, default=10.0)
    args = parser.parse_args()
    joins = max(1, min(args.joins, 5000))
    half_open = max(1, min(args.half_open, 2000))
    hold = max(0.5, min(args.hold, 30.0))

    port = free_port()
    server = start_server(
        port,
        "--ephemeral",
        "--speed",
        str(args.speed),
        "--max-connections",
        str(args.max_connections),
    )
    try:
        idle_threads = threads_of(server.pid)
        base = tick_rate(port, 5.0)
        flood = join_flood(port, joins)
        after_joins = tick_rate(port, 3.0)
        conns = half_open_flood(port, server.pid, half_open, hold)
        after = tick_rate(port, 3.0)
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    accepted = flood["codes"].get(201, 0)
    allowed = 20 + 2 * flood["seconds"]
    print(f"speed {args.speed:g}, --max-connections {args.max_connections}")
    print(f"tick rate idle: {base:.2f}/s")
    print(
        f"joins: {sum(flood['codes'].values())} attempts in {flood['seconds']:.1f} s, "
        f"random Authorization each -> {accepted} accepted (bucket allows {allowed:.0f}), "
        f"statuses {dict(sorted(flood['codes'].items()))}; tick rate after {after_joins:.2f}/s"
    )
    print(
        f"half-open: {half_open} connections held {hold:g} s -> server threads idle "
        f"{idle_threads}, most {conns['most_threads']} (cap {args.max_connections} + "
        f"{idle_threads} idle), {conns['turned_away']} turned away with 503; tick rate while "
        f"held {conns['tick_rate']:.2f}/s, after {after:.2f}/s"
    )
    held_ok = conns["most_threads"] <= idle_threads + args.max_connections
    joins_ok = accepted <= allowed
    print(f"joins held to the limit: {joins_ok}; threads held to the cap: {held_ok}")
    return 0 if held_ok and joins_ok else 1


if __name__ == "__main__":
    sys.exit(main())
