"""The live world's clock under hostile programs: does it keep its speed?

    python benchmarks/bench_attacks.py --attackers 4 --seconds 30 --speed 10

A real `asiworld serve` (a fresh ephemeral world, process hosts) and N characters that each
keep resubmitting, over REST, a legal program that takes about a second to compile (sixty
nested comprehensions, eight times over: 10 KB). Every submission is answered before the next
is sent, so each attacker keeps one compile going all the time. Prints the ticks per second the
clock held over the window (from /healthz) against --speed. Goal: >= 95 % of the speed.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request


def heavy_source(depth: int = 60, lines: int = 8) -> str:
    inner = "x"
    for _ in range(depth):
        inner = f"[{inner} for x in range(1)]"
    body = "\n".join(f"    a{i} = {inner}" for i in range(lines))
    return f"def main():\n{body}\n    return 1\n"


def call(port: int, method: str, path: str, body: dict | None = None,
         token: str | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return json.loads(reply.read() or b"null")
    except urllib.error.HTTPError as err:
        return json.loads(err.read() or b"null")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--attackers", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--speed", type=float, default=10.0)
    args = parser.parse_args()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "asiworld.cli", "serve", "--ephemeral",
                               "--port", str(port), "--speed", str(args.speed)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                call(port, "GET", "/healthz")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.2)
        seats = [call(port, "POST", "/api/agents/join", {"name": f"attacker{i}"})
                 for i in range(args.attackers)]
        stop = threading.Event()
        sent = [0] * len(seats)

        def attack(i: int, seat: dict) -> None:
            source = heavy_source()
            while not stop.is_set():
                try:
                    call(port, "POST", f"/api/agents/{seat['character']}/programs",
                         {"name": "heavy", "source": source}, seat["token"])
                except OSError:  # the server is stopping at the end of the window
                    return
                sent[i] += 1

        threads = [threading.Thread(target=attack, args=(i, s), daemon=True)
                   for i, s in enumerate(seats)]
        for thread in threads:
            thread.start()
        time.sleep(2.0)  # every attacker busy
        first, began = call(port, "GET", "/healthz")["tick"], time.monotonic()
        time.sleep(args.seconds)
        last, ended = call(port, "GET", "/healthz")["tick"], time.monotonic()
        stop.set()
        for thread in threads:
            thread.join(60)
        held = (last - first) / (ended - began)
        print(json.dumps({"attackers": args.attackers, "speed": args.speed,
                          "ticks_per_second": round(held, 2),
                          "share_of_speed": round(held / args.speed, 3),
                          "submissions": sum(sent), "load": round(os.getloadavg()[0], 2)},
                         indent=2))
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    main()
