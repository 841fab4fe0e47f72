"""Replay viewer benchmark: time to first frame, seek to a random tick (server and browser
together), point-of-view requests, and file size per simulation minute for 9 characters.

    python benchmarks/bench_replay_viewer.py                       # the 60-minute sample
    python benchmarks/bench_replay_viewer.py --replay runs/big/replay.asirep --seeks 40

Runs an in-process server on a free loopback port and Debian's Chromium (headless). The seek
time is measured in the page: from asking for a tick until the map has been drawn at that tick
(the server's keyframe for it, fetched and applied, or frames applied forward when near).
A second round of random seeks is split into parts (`seek_breakdown_ms`): sending the request,
the server building the keyframe and encoding it (its Server-Timing header), queueing and
network, the page until the JSON is parsed, applying it, the rest of `seek`, and until drawn.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import statistics
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from e2e.conftest import DESKTOP_CHROMIUM  # noqa: E402 - the full browser a person uses

DEFAULT = REPO / "replays" / "nine-characters-60min.asirep"

SEEK_JS = """async (tick) => {
  const t0 = performance.now();
  await window.__replay.seek(tick);
  await new Promise((r) => requestAnimationFrame(r)); // the viewer's loop draws first
  return [performance.now() - t0, window.__replay.state.tick];
}"""

# Where a far seek's time goes: the page's hooks around the keyframe request and the state.
BREAKDOWN_HOOKS_JS = """() => {
  const R = window.__replay;
  performance.setResourceTimingBufferSize(100000);
  window.__seekParts = { got: null, apply: 0 };
  const stateAt = R.data.stateAt.bind(R.data);
  R.data.stateAt = async (t) => { const f = await stateAt(t); window.__seekParts.got = performance.now(); return f; };
  for (const name of ["applyDeltas", "applyFrame"]) {
    const fn = R.state[name].bind(R.state);
    R.state[name] = (x) => { const a = performance.now(); const r = fn(x); window.__seekParts.apply += performance.now() - a; return r; };
  }
}"""

BREAKDOWN_SEEK_JS = """async (tick) => {
  window.__seekParts = { got: null, apply: 0 };
  performance.clearResourceTimings();
  const t0 = performance.now();
  await window.__replay.seek(tick);
  const t1 = performance.now();
  await new Promise((r) => requestAnimationFrame(r));
  const t2 = performance.now();
  const p = window.__seekParts;
  const e = performance.getEntriesByType("resource").filter((x) => x.name.includes("/state?")).pop();
  if (!e || p.got === null) return null; // a near seek: frames applied forward, no keyframe
  const st = Object.fromEntries((e.serverTiming || []).map((x) => [x.name, x.duration]));
  const server = (st.build || 0) + (st.encode || 0);
  return {
    total: t2 - t0,
    request_sent: e.requestStart - t0,
    server_build: st.build || 0,
    server_encode: st.encode || 0,
    server_queue_and_network: e.responseEnd - e.requestStart - server,
    page_until_parsed: p.got - e.responseEnd,
    apply: p.apply,
    after_apply: t1 - p.got - p.apply,
    to_drawn: t2 - t1,
    gzip_bytes: e.transferSize,
    json_bytes: e.decodedBodySize,
  };
}"""


def serve(folder: Path):
    from asiworld.server import create_app
    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    app = create_app({"SEED": 7, "SPEED": 1, "REPLAY_DIRS": [str(folder)]})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}"


def summary(values: list[float]) -> dict:
    values = sorted(values)
    return {
        "median": round(statistics.median(values), 1),
        "p95": round(values[min(len(values) - 1, int(len(values) * 0.95))], 1),
        "max": round(values[-1], 1),
        "n": len(values),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replay", type=Path, default=DEFAULT)
    parser.add_argument("--seeks", type=int, default=30)
    parser.add_argument("--povs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    from asiworld.replay import Replay
    from asiworld.replay.library import find_replays
    from playwright.sync_api import sync_playwright

    path = args.replay.resolve()
    with Replay.open(path) as replay:
        first, last = replay.first_tick, replay.last_tick
        chars = [c["id"] for c in replay.characters()]
        size = replay.size_bytes
    minutes = (last - first) / 60
    rid = next(k for k, v in find_replays([path.parent]).items() if v.resolve() == path)
    server, url = serve(path.parent)
    rng = random.Random(args.seed)
    out: dict = {
        "replay": str(path),
        "characters": len(chars),
        "minutes": round(minutes, 1),
        "bytes": size,
        "bytes_per_minute": round(size / max(minutes, 1e-9)),
        "projected_300_min_mb": round(size / max(minutes, 1e-9) * 300 / 1e6, 2),
    }
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=DESKTOP_CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        first_frames = []
        for i in range(3):  # the first load is cold: the server opens the file
            page = browser.new_page(viewport={"width": 1400, "height": 860})
            tick = rng.randint(first, last) if i else first
            page.goto(f"{url}/replay/{rid}?t={tick}")
            page.wait_for_function("window.__replay_first_frame_ms !== undefined", timeout=60_000)
            first_frames.append(page.evaluate("window.__replay_first_frame_ms"))
            if i < 2:
                page.close()
        out["first_frame_ms"] = {"cold": round(first_frames[0]), "warm": round(first_frames[2])}
        loading = []  # while the server still builds the timeline, the charts and seek states
        for _ in range(max(3, args.seeks // 3)):
            ms, _ = page.evaluate(SEEK_JS, rng.randint(first, last))
            loading.append(ms)
        out["seek_random_while_loading_ms"] = summary(loading)
        page.wait_for_function(
            "window.__replay.ui.overview !== null && window.__replay.charts.lines.health",
            timeout=300_000,
        )
        time.sleep(3)  # the background warm-up of seek states (1.7 s for 300 minutes)
        seeks = []
        for _ in range(args.seeks):
            ms, reached = page.evaluate(SEEK_JS, rng.randint(first, last))
            seeks.append(ms)
        out["seek_random_ms"] = summary(seeks)
        page.evaluate(BREAKDOWN_HOOKS_JS)
        parts: dict[str, list[float]] = {}
        for _ in range(args.seeks):
            row = page.evaluate(BREAKDOWN_SEEK_JS, rng.randint(first, last))
            for key, value in (row or {}).items():
                parts.setdefault(key, []).append(value)
        out["seek_breakdown_ms"] = {
            key: {"median": summary(v)["median"], "p95": summary(v)["p95"]}
            for key, v in parts.items()
        }
        near = []
        for _ in range(args.seeks):
            ms, _ = page.evaluate(SEEK_JS, min(last, page.evaluate("window.__replay.tick") + 30))
            near.append(ms)
        out["seek_30_ticks_ahead_ms"] = summary(near)
        page.close()
        browser.close()

    # Point of view: the server re-simulates; cold = from the nearest snapshot it has so far.
    import urllib.request

    server_seeks = []  # the server's share: one /state request, warm, over loopback HTTP
    for _ in range(args.seeks):
        t0 = time.perf_counter()
        with urllib.request.urlopen(
            f"{url}/api/replays/{rid}/state?tick={rng.randint(first, last)}"
        ) as r:
            r.read()
        server_seeks.append((time.perf_counter() - t0) * 1000)
    out["server_state_request_ms"] = summary(server_seeks)
    with open("/proc/loadavg") as f:
        out["load_average_1min"] = float(f.read().split()[0])
    povs = []
    for _ in range(args.povs):
        tick, char = rng.randint(first, last), rng.choice(chars)
        t0 = time.perf_counter()
        with urllib.request.urlopen(f"{url}/api/replays/{rid}/pov?tick={tick}&char={char}") as r:
            r.read()
        povs.append((time.perf_counter() - t0) * 1000)
    out["pov_ms"] = [round(v) for v in povs]
    server.shutdown()
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
