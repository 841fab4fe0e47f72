"""A new player's first wooden pickaxe at `serve --play`'s pace (2 ticks/s), in real seconds.

The player is driven only by what /play shows (e2e/first_game.py: the goals, the trees on the
map, the faced-tile hint, the Build and Craft lists), in headless Chromium, from the click on
Join to the pickaxe's goal ticked. A person reads and decides more slowly than this driver and
walks less directly; the world's pace is the same for both, so this is the floor of a person's
time. Target (issue 34): under 3 minutes.

Run: python benchmarks/bench_first_pickaxe.py [--speed 2] [--runs 1]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.sync_api import sync_playwright  # noqa: E402

from e2e.conftest import CHROMIUM_ARGS, DESKTOP_CHROMIUM, served  # noqa: E402
from e2e.first_game import make_a_wooden_pickaxe  # noqa: E402


def one_run(speed: float, seed: int) -> tuple[float, int]:
    """(real seconds from Join to the pickaxe, world ticks it took)."""
    with served({"SEED": seed, "SPEED": speed}) as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=DESKTOP_CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto(server["url"] + "/play")
        page.fill("#name", "newcomer")
        began = time.perf_counter()
        page.click("#join-form button[type=submit]")
        page.wait_for_function("window.__asiworld && window.__asiworld.view.ready", timeout=30000)
        joined = page.evaluate("window.__asiworld.view.tick")
        make_a_wooden_pickaxe(page)
        seconds = time.perf_counter() - began
        ticks = page.evaluate("window.__asiworld.view.tick") - joined
        browser.close()
    return seconds, ticks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--speed", type=float, default=2.0, help="ticks per second (serve --play: 2)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    for run in range(args.runs):
        seconds, ticks = one_run(args.speed, args.seed)
        print(f"run {run + 1}: a wooden pickaxe {seconds:.0f} s after Join ({ticks} ticks at "
              f"{args.speed:g} ticks/s; load {os.getloadavg()[0]:.1f})", flush=True)


if __name__ == "__main__":
    main()
