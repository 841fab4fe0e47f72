"""One-file replay export: the file's size, the time to write it, and the time Chromium takes to
open it from file:// (first frame drawn) and to seek far into it, with no server.

    python benchmarks/bench_export_html.py REPLAY_OR_RUN [--out FILE.html] [--seeks 10]

Budget (issue 38, item 6): the 300-minute nine-configuration study <= 20 MB, opened <= 3 s.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from asiworld.server.replay_export import export_html  # noqa: E402

from e2e.conftest import DESKTOP_CHROMIUM  # noqa: E402 - the full browser a person uses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("replay", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--seeks", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp) / "replay.html"
        t0 = time.perf_counter()
        wrote = export_html(args.replay, out)
        written = time.perf_counter() - t0
        print(f"size {wrote['bytes'] / 1e6:.2f} MB, written in {written:.1f} s, "
              f"ticks {wrote['ticks'][0]}-{wrote['ticks'][1]}")
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=DESKTOP_CHROMIUM, headless=True,
                                        args=["--no-sandbox"])
            opens = []
            for _ in range(3):
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                t0 = time.perf_counter()
                page.goto(out.as_uri())
                page.wait_for_function("window.__replay && window.__replay.ready", timeout=60_000)
                opens.append(time.perf_counter() - t0)
                if len(opens) < 3:
                    page.close()
            first, last = wrote["ticks"]
            rng = random.Random(1)
            seeks = []
            for _ in range(args.seeks):
                tick = rng.randint(first, last)
                t0 = time.perf_counter()
                page.evaluate(f"window.__replay.seek({tick})")
                page.wait_for_function(
                    f"window.__replay.ready && window.__replay.tick === {tick}", timeout=60_000)
                seeks.append((time.perf_counter() - t0) * 1000)
            browser.close()
        print("open (first frame drawn): " + ", ".join(f"{s:.2f}" for s in opens) + " s")
        print(f"random seek: median {statistics.median(seeks):.0f} ms, max {max(seeks):.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
