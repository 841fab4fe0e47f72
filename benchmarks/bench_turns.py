"""The cost of lockstep turns for outside seats (asiworld.study.turns), over REST on loopback.

`turn`: a lockstep study (`think_ticks = 1`, so every turn is one tick) with one external seat
and the planner; the seat's agent is a separate process using the SDK that does nothing of its
own in a turn: `next_turn`, then `act` (a `wait`). Printed: the turns, the median and p95 of the
agent's turn cycle (from one `next_turn` answer to the next, measured in the agent), the
world's own time per tick (the pipeline's engine seconds / ticks) and the cycle beyond the
world's tick: what taking a turn over REST costs a seat (target <= 5 ms beyond the agent's own
time, here none).

`study`: a 60-minute lockstep study (default `think_ticks` 3) with two external seats (the same
SDK agent, each in its own process, moving round the compass) and the planner: the study's
wall time, its turns and the agents' cycle medians.

Run: python benchmarks/bench_turns.py turn [--minutes 5]
     python benchmarks/bench_turns.py study [--minutes 60]
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from asiworld.evaluation.figure_options import FigureOptions  # noqa: E402
from asiworld.study.run import run_study  # noqa: E402
from asiworld.study.spec import parse_study  # noqa: E402

AGENT = """\
import json, sys, time
from asiworld.agents.clients.sdk import Client, StudyEnded

url, char, token = sys.argv[1], int(sys.argv[2]), sys.argv[3]
client = Client(url, token=token, character=char)
after, cycles, asks, acts, last = -1, [], [], [], None
moves = [{"type": "move", "dir": d} for d in "nesw"]
while True:
    try:
        asked = time.perf_counter()
        turn = client.next_turn(timeout=60, after=after)
        now = time.perf_counter()
        if last is not None:
            cycles.append((now - last) * 1000)
            asks.append((now - asked) * 1000)
        last = now
        if turn is None:
            continue
        after = turn["tick"]
        client.act(moves[len(cycles) % 4] if sys.argv[4] == "move" else {"type": "wait"})
        acts.append((time.perf_counter() - now) * 1000)
    except StudyEnded:
        print(json.dumps({"turns": len(cycles) + 1, "cycles_ms": cycles, "next_turn_ms": asks,
                          "act_ms": acts}))
        break
"""


def study_text(minutes: int, think: int, seats: int) -> str:
    return (f'[world]\nseed = 7\nminutes = {minutes}\n'
            f'[clock]\nkind = "lockstep"\nthink_ticks = {think}\n'
            '[[configuration]]\nname = "planner"\nkind = "builtin"\nagent = "planner"\n'
            + ''.join(f'[[configuration]]\nname = "outside{i}"\nkind = "external"\n'
                      'turn_seconds = 60\n' for i in range(1, seats + 1)))


def run(minutes: int, think: int, seats: int, action: str) -> dict:
    text = study_text(minutes, think, seats)
    lines: queue.Queue = queue.Queue()
    done: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "agent.py"
        script.write_text(AGENT)

        def study() -> None:
            (done["results"],) = run_study(parse_study(text), text, Path(tmp) / "out",
                                           say=lines.put, figures=FigureOptions(formats=()))

        thread = threading.Thread(target=study, daemon=True)
        started = time.perf_counter()
        thread.start()
        url, found = None, {}
        while len(found) < seats or url is None:
            line = lines.get(timeout=120)
            if m := re.search(r"agent API for the external seats: (\S+)", line):
                url = m.group(1)
            if m := re.search(r"external seat (\w+): character (\d+) token (\S+)", line):
                found[m.group(1)] = (m.group(2), m.group(3))
        agents = [subprocess.Popen([sys.executable, str(script), url, char, token, action],
                                   stdout=subprocess.PIPE, text=True)
                  for char, token in found.values()]
        said = [json.loads(agent.communicate(timeout=3600)[0]) for agent in agents]
        thread.join()
        wall = time.perf_counter() - started
    results = done["results"]
    engine_per_tick = results["engine_seconds"] / results["ticks"] * 1000
    cycles = sorted(c for s in said for c in s["cycles_ms"])
    median = statistics.median(cycles)
    return {
        "study": {"minutes": minutes, "think_ticks": think, "external_seats": seats},
        "wall_seconds": round(wall, 2), "study_wall_seconds": results["wall_seconds"],
        "ticks": results["ticks"], "turns": [s["turns"] for s in said],
        "cycle_median_ms": round(median, 2),
        "cycle_p95_ms": round(cycles[int(0.95 * (len(cycles) - 1))], 2),
        "next_turn_median_ms": round(statistics.median(c for s in said
                                                       for c in s["next_turn_ms"]), 2),
        "act_median_ms": round(statistics.median(c for s in said for c in s["act_ms"]), 2),
        "engine_ms_per_tick": round(engine_per_tick, 3),
        "beyond_the_world_ms": round(median - engine_per_tick * think, 2),
        "load": [round(x, 2) for x in os.getloadavg()],
        "state_hash": results["state_hash"][:16],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=("turn", "study"))
    parser.add_argument("--minutes", type=int, default=None)
    args = parser.parse_args()
    if args.mode == "turn":
        print(json.dumps(run(args.minutes or 5, 1, 1, "wait"), indent=1))
    else:
        print(json.dumps(run(args.minutes or 60, 3, 2, "move"), indent=1))


if __name__ == "__main__":
    main()
