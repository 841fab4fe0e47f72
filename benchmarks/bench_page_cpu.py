"""What an open page costs the browser: CPU of Debian's headless Chromium (all its processes)
while a page stays open on a live world, and of the server beside it.

Starts `asiworld serve` in its own process at --speed (the world's own characters none: a
spectator's plain world), opens each page in a fresh browser, lets it settle for two seconds,
then reads the CPU time of the browser's processes and the server's over --seconds. A page that
draws an unchanged map on every animation frame shows here as a busy core.

    python benchmarks/bench_page_cpu.py [--pages /live,/play] [--seconds 10] [--speed 20]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_suite import cpu_seconds  # noqa: E402
from e2e.conftest import CHROMIUM_ARGS, DESKTOP_CHROMIUM, free_port  # noqa: E402


def descendants(pid: int) -> list[int]:
    """The processes started under `pid`, at any depth (Chromium's renderers, its GPU
    process)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        children.setdefault(parent, []).append(int(name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def serve(port: int, speed: float, data: Path) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "asiworld.cli", "serve", "--port", str(port), "--speed",
         str(speed), "--data-dir", str(data), "--replays", str(ROOT / "replays")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("asiworld serve did not start within 60 s")


def measure(url: str, server: subprocess.Popen, seconds: float) -> tuple[float, float]:
    """(browser, server) CPU as a share of one core while the page at `url` stays open."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=DESKTOP_CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
            page.goto(url)
            page.wait_for_load_state("load")
            time.sleep(2)  # the page's first requests and its first frames: not the steady cost
            me = os.getpid()

            def browser_cpu() -> float:
                servers = {server.pid, *descendants(server.pid)}
                return sum(cpu_seconds(pid) or 0.0 for pid in descendants(me)
                           if pid not in servers)

            began, b0, s0 = time.monotonic(), browser_cpu(), cpu_seconds(server.pid) or 0.0
            time.sleep(seconds)
            wall = time.monotonic() - began
            s1 = cpu_seconds(server.pid) or 0.0
            return (browser_cpu() - b0) / wall, (s1 - s0) / wall
        finally:
            browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", default="/live,/play,/replay/three-configurations-30min",
                        help="comma-separated paths (default: %(default)s)")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--speed", type=float, default=20.0, help="the world's ticks a second")
    args = parser.parse_args()
    if args.seconds <= 0 or args.speed <= 0:
        parser.error("--seconds and --speed must be positive")
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="bench-page-cpu-") as tmp:
        server = serve(port, args.speed, Path(tmp) / "data")
        try:
            print(f"| page | browser CPU | server CPU |  ({args.seconds:g} s each, "
                  f"{args.speed:g} ticks/s, load {os.getloadavg()[0]:.1f})")
            for path in [p.strip() for p in args.pages.split(",") if p.strip()]:
                browser, server_cpu = measure(f"http://127.0.0.1:{port}{path}", server,
                                              args.seconds)
                print(f"| `{path}` | {100 * browser:.0f} % of a core | "
                      f"{100 * server_cpu:.0f} % |")
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
