"""Renderer frame time in headless Chromium: the 128x128 world with 9 characters.

Starts the live server in-process (real engine, built-in agents when available), opens /live in
Debian's Chromium and times `renderer.draw()` (forced to finish with a 1-pixel read-back) in three
views: the default zoom, the whole map, and following a character (fog on). Target: median frame
under 16 ms. Not a test; prints a table.

    python benchmarks/bench_render.py [--frames 120]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from e2e.conftest import CHROMIUM_ARGS, DESKTOP_CHROMIUM, free_port  # noqa: E402

TIME_DRAWS = """async ([frames, mode]) => {
  const a = window.__asiworld, r = a.renderer, s = a.state;
  if (mode === 'whole') {
    r.camera.zoom = Math.min(r.canvas.width, r.canvas.height) / (16 * s.width);
    r.centerOn(s.width / 2, s.height / 2);
  }
  const opts = () => ({area: '0', fog: mode === 'follow' ? a.fog : null,
                       selected: mode === 'follow' ? s.characters()[0].id : null});
  const times = [];
  for (let i = 0; i < frames; i++) {
    const t0 = performance.now();
    r.draw(s, opts());
    r.g.getImageData(0, 0, 1, 1);  // make the browser finish drawing before we stop the clock
    times.push(performance.now() - t0);
    if (i % 10 === 0) await new Promise((ok) => setTimeout(ok, 0));  // let frames arrive
  }
  return times;
}"""


def agent_names(count: int) -> list[str]:
    try:
        from asiworld.agents.bots.builtin import available

        names = available()
    except ImportError:
        names = []
    return [names[i % len(names)] for i in range(count)] if names else []


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=120)
    parser.add_argument("--characters", type=int, default=9)
    args = parser.parse_args()

    from asiworld.server import create_app, services
    from playwright.sync_api import sync_playwright
    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no per-request lines
    agents = agent_names(args.characters)
    app = create_app({"SEED": 7, "SPEED": 10, "AGENTS": agents})
    runner = services(app).runner
    for i in range(args.characters - len(agents)):
        runner.add_character(f"idle-{i + 1}", label="idle")
    port = free_port()
    server = make_server("127.0.0.1", port, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    runner.start()
    results = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=DESKTOP_CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"http://127.0.0.1:{port}/live")
            page.wait_for_function("Number(document.getElementById('map').dataset.tick) > 0")
            page.wait_for_timeout(1000)
            for mode in ("default", "whole", "follow"):
                if mode == "follow":
                    page.evaluate(
                        "window.__asiworld.follow(window.__asiworld.state.characters()[0].id)"
                    )
                    page.wait_for_function("window.__asiworld.fog !== null", timeout=10000)
                results[mode] = page.evaluate(TIME_DRAWS, [args.frames, mode])
            canvas = page.evaluate(
                "[document.getElementById('map').width, document.getElementById('map').height]"
            )
            browser.close()
    finally:
        runner.stop()
        server.shutdown()

    world = runner.world
    print(
        f"world {world.areas[0].width}x{world.areas[0].height}, characters {len(agents)} agents"
        f" + {args.characters - len(agents)} idle, canvas {canvas[0]}x{canvas[1]}, "
        f"{args.frames} frames per view"
    )
    print(f"{'view':<10}{'median ms':>10}{'p95 ms':>10}{'max ms':>10}")
    worst = 0.0
    for mode, times in results.items():
        times = sorted(times)
        median = statistics.median(times)
        worst = max(worst, median)
        p95 = times[int(0.95 * (len(times) - 1))]
        print(f"{mode:<10}{median:>10.2f}{p95:>10.2f}{times[-1]:>10.2f}")
    print(f"target median < 16 ms: {'met' if worst < 16 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
