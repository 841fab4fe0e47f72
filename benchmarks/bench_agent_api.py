"""Agent API round trips against a running server: observe (JSON and text) and act latency.

asiworld serve --port 8765 --speed 10 &
python benchmarks/bench_agent_api.py --server http://127.0.0.1:8765 --calls 200
"""

from __future__ import annotations

import argparse
import statistics
import time

from asiworld.agents.clients.sdk import Client


def measure(fn, calls: int) -> dict:
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return {
        "median_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", default="http://127.0.0.1:8765")
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    client = Client(args.server)
    client.join("bench", label="bench")
    print("observe json", measure(lambda: client.observe(), args.calls))
    print("observe text", measure(lambda: client.observe("text"), args.calls))
    print("act say     ", measure(lambda: client.act({"type": "say", "text": "hi"}), args.calls))
    print("events poll ", measure(lambda: client.events(), args.calls))


if __name__ == "__main__":
    main()
