"""`asiworld mcp` start-up: launch to the answer of `initialize`, with the official MCP client.

A small world is served in this process (its clock paused, so it takes no CPU from the launch
measured); a seat is joined once, and `asiworld mcp --server URL --token T --character N` is
launched `--runs` times over stdio by `mcp.Client`, each launch followed by the three plain
imports below (interleaved, so a passing load hits them alike). Printed, as JSON (seconds, min
and median of the runs):

- `initialize`: from launching the process to the client holding the answer of `initialize`
  (what an MCP client waits for before anything else);
- `tools_listed`: to the first `tools/list` answer as well;
- `python_alone`: launching `python -c pass` (the floor no server can go under);
- `sdk_import`: `python -c "import mcp.server.lowlevel, mcp.server.stdio"` (the MCP SDK alone:
  its `import mcp` builds some 550 pydantic models for two protocol versions);
- `server_parts`: `python -c "from asiworld.agents.clients.mcp_sdk import import_stdio_server;
  import_stdio_server()"`, the same SDK modules as `asiworld mcp` imports them (the packages'
  `__init__` and pydantic's eager schema builds left out);
- `ours_imported`: `python -c "import asiworld.cli, asiworld.agents.clients.commands,
  asiworld.agents.clients.mcp_server"`, what `asiworld mcp` imports of its own before it answers.

Each has its CPU seconds beside it (`*_cpu`: user + system of the launched process, read from
/proc when `initialize` is answered, from the children's rusage for the plain imports): on a
shared machine the wall times follow the load, the CPU much less.

Run: python benchmarks/bench_mcp.py [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import mcp  # noqa: E402
from asiworld.agents.clients.sdk import Client  # noqa: E402
from asiworld.server import create_app, services  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402

ASIWORLD = str(Path(sys.executable).with_name("asiworld"))
# What `asiworld mcp` imports of its own before its first answer (everything but the SDK).
OURS = "import asiworld.cli, asiworld.agents.clients.commands, asiworld.agents.clients.mcp_server"
SERVER_PARTS = "from asiworld.agents.clients.mcp_sdk import import_stdio_server; import_stdio_server()"
TICKS = os.sysconf("SC_CLK_TCK")


def serve() -> tuple[str, object]:
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    app = create_app({"SEED": 7, "WORLD_SIZE": 64, "TESTING": True,
                      "PROGRAMS_IN_PROCESS": True})
    runner = services(app).runner
    runner.start()
    runner.pause()
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_port}", (server, runner)


def server_cpu() -> float:
    """User + system CPU seconds of this process's child `asiworld mcp` so far (Linux /proc)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == os.getpid() and b"mcp" in (stat.parent / "cmdline").read_bytes():
                return (int(fields[11]) + int(fields[12])) / TICKS
        except (OSError, IndexError, ValueError):
            continue  # a process that ended while it was read
    return float("nan")


async def launch(command: StdioServerParameters) -> tuple[float, float, float]:
    started = time.perf_counter()
    async with mcp.Client(command) as session:
        initialized = time.perf_counter() - started
        cpu = server_cpu()
        await session.list_tools()
        listed = time.perf_counter() - started
    return initialized, cpu, listed


def wall(code: str) -> tuple[float, float]:
    """(wall, CPU) seconds of `python -c code`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return elapsed, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def summary(times: list[float]) -> dict[str, float]:
    return {"min": round(min(times), 3), "median": round(statistics.median(times), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="launches measured")
    args = parser.parse_args()
    url, (server, runner) = serve()
    seat = Client(url)
    seat.join("bench-mcp", label="bench")
    # env: the whole environment (PYTHONPATH too), so the launch runs the code this process runs
    command = StdioServerParameters(command=ASIWORLD, env=dict(os.environ), args=[
        "mcp", "--server", url, f"--token={seat.token}", "--character", str(seat.character)])
    load = [round(os.getloadavg()[0], 2)]
    plain = {"python_alone": "pass", "sdk_import": "import mcp.server.lowlevel, mcp.server.stdio",
             "server_parts": SERVER_PARTS, "ours_imported": OURS}
    times: dict[str, list[float]] = {name: [] for name in [
        "initialize", "initialize_cpu", "tools_listed", *(k + s for k in plain for s in ("", "_cpu"))]}
    for _ in range(args.runs):  # interleaved: a load that comes and goes hits them alike
        first, cpu, second = asyncio.run(launch(command))
        times["initialize"].append(first)
        times["initialize_cpu"].append(cpu)
        times["tools_listed"].append(second)
        for name, code in plain.items():
            elapsed, used = wall(code)
            times[name].append(elapsed)
            times[name + "_cpu"].append(used)
    report: dict[str, object] = {k: summary(v) for k, v in times.items()}
    report["runs"] = args.runs
    load.append(round(os.getloadavg()[0], 2))
    report["load_average_1min"] = load
    server.shutdown()
    runner.stop()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
