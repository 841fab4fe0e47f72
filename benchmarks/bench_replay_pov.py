"""Replay point-of-view benchmark: the first `/pov` request deep into a long replay, over HTTP.

    asiworld run --seed 7 --minutes 300 --agents planner,rusher,builder,forager,random \
        --out /tmp/r300                                      # about 35 s
    python benchmarks/bench_replay_pov.py --replay /tmp/r300/replay.asirep --minute 250

Each measurement starts a fresh in-process server (the same Flask app `asiworld serve` runs, on
a free loopback port), so nothing is cached: what the first spectator to press "V" waits. Then a
second request a few ticks later in the same server (the world snapshots it kept on the way),
and a fork (`POST /fork`) at --fork-minute in another fresh server. It prints the replay's size,
its embedded world snapshots (chunk kind W) and the times as JSON.

    python benchmarks/bench_replay_pov.py --replay OLD.asirep --after-overview 25

opens the viewer's timeline first (`/overview`, which starts the background re-simulation of a
replay recorded without world snapshots), times a point of view at minute 10 right after it
(what waiting behind that re-simulation costs), then waits the given seconds before the request
at --minute.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def serve(folder: Path):
    from asiworld.server import create_app
    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    app = create_app({"SEED": 7, "SPEED": 1, "REPLAY_DIRS": [str(folder)], "DATA_DIR": None})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}"


def timed(url: str, body: dict | None = None) -> tuple[float, dict]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=600) as resp:
            answer = json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        answer = json.loads(exc.read())
    return round(time.perf_counter() - t0, 3), answer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replay", type=Path, default=Path("/tmp/r300/replay.asirep"))
    parser.add_argument("--minute", type=float, default=250)
    parser.add_argument("--fork-minute", type=float, default=280)
    parser.add_argument("--char", type=int, default=None, help="default: the first to join")
    parser.add_argument("--after-overview", type=float, default=None, metavar="SECONDS")
    args = parser.parse_args()

    from asiworld.replay import Replay
    from asiworld.replay.library import find_replays

    path = args.replay.resolve()
    with Replay.open(path) as replay:
        chars = [c["id"] for c in replay.characters()]
        last = replay.last_tick
        snaps = [r for r in replay.index if r.kind == "W"]
        out: dict = {
            "replay": str(path),
            "size_bytes": replay.size_bytes,
            "minutes": round((last - replay.first_tick) / 60, 1),
            "world_snapshots": len(snaps),
            "world_snapshot_bytes": sum(r.size for r in snaps),
        }
    rid = next(k for k, v in find_replays([path.parent]).items() if v.resolve() == path)
    char = args.char if args.char is not None else chars[0]
    tick = min(last, int(args.minute * 60))

    server, url = serve(path.parent)
    try:
        pov = f"{url}/api/replays/{rid}/pov?char={char}&tick="
        if args.after_overview is not None:
            out["overview_s"] = timed(f"{url}/api/replays/{rid}/overview")[0]
            out["pov_minute_10_during_warm_s"] = timed(pov + "600")[0]
            time.sleep(max(0.0, args.after_overview - out["overview_s"]))
        first, body = timed(pov + str(tick))
        if not body.get("ok"):
            print(json.dumps(body), file=sys.stderr)
            return 1
        again, body2 = timed(pov + str(min(last, tick + 37)))
        out["pov_first_s"] = first
        out["pov_first_verified"] = body["verified"]
        out["pov_next_s"] = again
        out["pov_tick"] = tick
    finally:
        server.shutdown()

    server, url = serve(path.parent)
    try:
        fork_tick = min(last, int(args.fork_minute * 60))
        took, body = timed(f"{url}/api/replays/{rid}/fork", {"tick": fork_tick, "seed": "same"})
        out["fork_s"] = took
        out["fork_tick"] = fork_tick
        out["fork_ok"] = bool(body.get("ok"))
    finally:
        server.shutdown()
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
