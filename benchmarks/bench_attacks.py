"""The live world's clock under hostile programs: does it keep its speed?

    python benchmarks/bench_attacks.py --attack all --attackers 4 --seconds 30 --speed 10

A real `asiworld serve` (a fresh ephemeral world, process hosts) and N characters that each
keep one attack going over REST, the next as soon as the last is answered or has ended:
- `compile`: a legal program that takes about a second to compile (sixty nested
  comprehensions, eight times over: 10 KB), resubmitted as soon as it is answered;
- `burn`: work in C that never returns to the interpreter (comparing two structures of shared
  references), resubmitted once the host has stopped it;
- `park`: a program that keeps taking memory (36 MB every few ticks) and never lets go,
  resubmitted once its process's cap or the world's budget ended it;
- `all`: the attackers take the three in turn (with four: compile, burn, park, compile).
Prints the ticks per second the clock held over the window (from /healthz) against --speed, and
how the attacks ended. Goal: >= 95 % of the speed.
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


BURN = (
    "a = [1] * 200\nb = [1] * 200\nfor i in range(8):\n    a = [a] * 200\n    b = [b] * 200\n"
    "x = a == b\n"
)
PARK = "kept = []\nwhile True:\n    kept.append(list(range(1000000)))\n    wait(1)\n"
ATTACKS = ("compile", "burn", "park")


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
    parser.add_argument("--attack", choices=(*ATTACKS, "all"), default="all")
    parser.add_argument("--programs-memory", type=int, default=None, metavar="MiB",
                        help="the world's budget for all programs (default: serve's)")
    args = parser.parse_args()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "asiworld.cli", "serve", "--ephemeral",
               "--port", str(port), "--speed", str(args.speed)]
    if args.programs_memory is not None:
        command += ["--programs-memory", str(args.programs_memory)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
        endings: dict[str, int] = {}
        kinds = [ATTACKS[i % 3] if args.attack == "all" else args.attack
                 for i in range(len(seats))]
        sources = {"compile": heavy_source(), "burn": BURN, "park": PARK}

        def attack(i: int, seat: dict) -> None:
            kind, programs = kinds[i], f"/api/agents/{seat['character']}/programs"
            while not stop.is_set():
                try:
                    answer = call(port, "POST", programs, {"name": kind, "source": sources[kind]},
                                  seat["token"])
                    sent[i] += 1
                    pid = answer.get("id")
                    while kind != "compile" and pid is not None and not stop.is_set():
                        status = call(port, "GET", f"{programs}/{pid}", token=seat["token"])
                        if status.get("status") not in ("running", "waiting"):
                            error = (status.get("outcome") or {}).get("error") or {}
                            code = error.get("code")
                            if "budget" in (error.get("message") or ""):
                                code = f"{code} (the world's budget)"
                            endings[f"{kind}: {code}"] = endings.get(f"{kind}: {code}", 0) + 1
                            break
                        stop.wait(0.2)
                except OSError:  # the server is stopping at the end of the window
                    return

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
        print(json.dumps({"attack": args.attack, "attackers": args.attackers,
                          "speed": args.speed, "endings": endings,
                          "ticks_per_second": round(held, 2),
                          "share_of_speed": round(held / args.speed, 3),
                          "submissions": sum(sent), "load": round(os.getloadavg()[0], 2)},
                         indent=2))
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    main()
