"""The turn reader on a big study (issue 38: a 3,000-turn study opens in <= 1 s and is searched in
<= 100 ms): the time from opening `/replay/ID?reader=1` to the reader listing every turn, and the
time a search takes to filter them and draw the list, in headless Chromium against a server in
this process.

    python benchmarks/bench_replay.py --study --minutes 300 --keep DIR    # 2,961 model turns
    python benchmarks/bench_turn_reader.py DIR [--runs 3]
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from asiworld.server import create_app  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402

from e2e.conftest import CHROMIUM_ARGS, DESKTOP_CHROMIUM, free_port  # noqa: E402

SEARCHES = ("refused", "submit_program", "gather", "not_adjacent", "wood")

# In the page: one search typed, filtered and drawn (the next frame), in milliseconds.
SEARCH = """async (text) => {
  const box = document.getElementById('reader-search');
  const t0 = performance.now();
  box.value = text;
  box.dispatchEvent(new Event('input'));
  await new Promise((done) => requestAnimationFrame(() => done()));
  return [performance.now() - t0, document.getElementById('reader-count').textContent];
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a study's folder (replay.asirep, transcripts/)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    app = create_app({"SEED": 3, "WORLD_SIZE": 48, "REPLAY_DIRS": [str(args.folder)]})
    port = free_port()
    server = make_server("127.0.0.1", port, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{port}"
    try:
        replay = app.test_client().get("/api/replays").get_json()["replays"][0]  # its only one
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=DESKTOP_CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            opens, searches, turns = [], [], ""
            for _ in range(args.runs):
                page = browser.new_page(viewport={"width": 1920, "height": 1080})
                t0 = time.perf_counter()
                page.goto(f"{url}/replay/{replay['id']}?reader=1")
                page.wait_for_function(
                    "document.querySelectorAll('#reader-list li').length > 0 && "
                    "/\\d/.test(document.getElementById('reader-count').textContent)",
                    timeout=60_000)
                opens.append(time.perf_counter() - t0)
                turns = page.text_content("#reader-count")
                for text in SEARCHES:
                    ms, _ = page.evaluate(SEARCH, text)
                    searches.append(ms)
                page.close()
            browser.close()
        print(f"{turns}: the reader listed them {statistics.median(opens):.2f} s after the page "
              f"was opened (median of {args.runs}; max {max(opens):.2f} s); a search filtered and "
              f"drew the list in {statistics.median(searches):.1f} ms (median of "
              f"{len(searches)}; max {max(searches):.1f} ms) (load {os.getloadavg()[0]:.1f})")
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
