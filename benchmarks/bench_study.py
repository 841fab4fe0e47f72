"""Studies: the harness's own cost per model call, and a whole study's wall time.

    python benchmarks/bench_study.py harness --calls 500
    python benchmarks/bench_study.py study --minutes 300
    python benchmarks/bench_study.py realtime --minutes 5 --speed 100 --runs 3
    python benchmarks/bench_study.py prompt
    python benchmarks/bench_study.py local --minutes 60

`prompt`: the default prompt in SmolLM2-135M's own tokens (`asiworld model serve`'s tokenizer):
goal <= 3,500 for the system prompt. `local`: a study with a real model (`asiworld study new
--local-model`) for --minutes: wall time, calls, tokens.

`harness`: one character on a real world (seed 3) played through the LLM harness and an
in-process agent port (asiworld.agent_port.PipelinePort, as a study's seat has); the model is the fake model called in-process (no HTTP), and its time
(answering, building the reply object) is taken out, so what is left is the harness's own work
per call: the observation as text, the prompt, checking the answer, running the tool, the
transcript line. Goal: <= 2 ms.

`study`: the demo study (app/study/demo.py: nine configurations on the lockstep clock, six model seats
through the fake model over HTTP on loopback, three built-ins) for --minutes; wall time, engine
time and calls. Goal for 300 minutes: <= 60 s on the 2-core machine. The fake model runs as
the README's demo runs it, `asiworld fake-model` in a process of its own (`--model thread`: on
a thread of the study's process, as the tests run it). The machine is shared, so
each figure comes with the load average before and after and the CPU seconds the study took
(this process's threads and its child processes': the program host, the figure workers, the
fake model; `cpu_seconds_study_process`: this process alone, the part that runs on one core at
a time): the CPU time depends far less on the other users of the machine than the wall time
does.

`realtime`: the same demo study on the realtime clock at --speed ticks per second (ten times
the live default by default), --runs times on seeds 3, 4, ...: the speed the clock held
(`clock.measured_speed`, goal within 5 % of --speed), and how many programs the seats handed
over (every model seat but `no-programs` may host programs: each is a host process of its own).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import logging
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path


class InProcessModel:
    """An endpoint answered by the fake model without HTTP; its time (reading the request as a
    server would, answering) is kept, the harness's reading of the answer is not."""

    def __init__(self) -> None:
        from asiworld.agents.stand_in.fake_model import FakeModel

        self.fake = FakeModel()
        self.seconds = 0.0
        self.cpu_seconds = 0.0

    def complete(self, body: bytes, timeout=None):
        from asiworld.agents.clients.endpoint import parse_reply

        began, cpu = time.perf_counter(), time.thread_time()
        reply = self.fake.answer(json.loads(body))
        self.seconds += time.perf_counter() - began
        self.cpu_seconds += time.thread_time() - cpu
        return parse_reply(reply.body)


def bench_harness(calls: int) -> dict:
    from asiworld.agent_port import PipelinePort
    from asiworld.agents.clients.harness import Harness, HarnessConfig
    from asiworld.agents.clients.transcript import Transcript
    from asiworld.engine import World
    from asiworld.pipeline import Pipeline
    from asiworld.programs.manager import ProgramManager

    world = World.create(seed=3, size=64)
    pipeline = Pipeline(world, programs=ProgramManager(world))
    cid = world.add_character("bench", label="bench")
    client = PipelinePort(pipeline, cid, tool_calls=True)
    model = InProcessModel()
    with tempfile.TemporaryDirectory() as tmp:
        transcript = Transcript(Path(tmp) / "bench.jsonl")
        harness = Harness(client, model, HarnessConfig(model="fake-forager"),
                          transcript=transcript, charge=lambda tokens: 3)
        per_call, cpu_per_call, collected = [], [], []
        gc.callbacks.append(_gc_timer(collected))
        try:
            for _ in range(calls):
                client.waiting = None  # no waiting between turns: every turn is a call
                before, before_cpu = model.seconds, model.cpu_seconds
                began, cpu = time.perf_counter(), time.thread_time()
                harness.turn()
                spent = time.perf_counter() - began - (model.seconds - before)
                per_call.append(spent * 1000)
                spent_cpu = time.thread_time() - cpu - (model.cpu_seconds - before_cpu)
                cpu_per_call.append(spent_cpu * 1000)
                for _ in range(3):
                    pipeline.step()
        finally:
            gc.callbacks.pop()
        transcript.close()
    pipeline.close()
    # The first call imports and reads what every later one reuses (the system prompt, the
    # tools); the wall time of the others also holds what this process did not run: the
    # scheduler's slices given to other processes (4 ms each), a program host answering.
    first, first_cpu = per_call[0], cpu_per_call[0]
    waited = sorted(w - c for w, c in zip(per_call[1:], cpu_per_call[1:], strict=True))
    per_call.sort()
    cpu_per_call.sort()
    return {"calls": calls, "harness_ms_median": round(statistics.median(per_call), 3),
            "harness_ms_p95": round(_p95(per_call), 3),
            "harness_cpu_ms_median": round(statistics.median(cpu_per_call), 3),
            "harness_cpu_ms_p95": round(_p95(cpu_per_call), 3),
            "first_call_ms": round(first, 1), "first_call_cpu_ms": round(first_cpu, 1),
            "not_running_ms_p95": round(_p95(waited), 3),
            "gc_ms_total": round(sum(collected), 2), "gc_ms_max": round(max(collected, default=0), 2),
            "model_ms_mean": round(model.seconds * 1000 / calls, 3),
            "load": round(os.getloadavg()[0], 2)}


def _p95(values: list[float]) -> float:
    return sorted(values)[int(0.95 * (len(values) - 1))]


def _gc_timer(collected: list[float]):
    """A gc callback that appends each collection's milliseconds to `collected`."""
    started = [0.0]

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            collected.append((time.perf_counter() - started[0]) * 1000)

    return on_gc


def bench_study(minutes: int, model: str = "process") -> dict:
    from asiworld.study.demo import demo_text
    from asiworld.study.run import run_study
    from asiworld.study.spec import parse_study

    with fake_model(model) as url, tempfile.TemporaryDirectory() as tmp:
        text = demo_text(url, minutes=minutes)
        load = os.getloadavg()[0]
        began, cpu, own = time.perf_counter(), _cpu_seconds(), _cpu_seconds(children=False)
        (results,) = run_study(parse_study(text), text, Path(tmp), say=lambda line: None)
        wall, own = time.perf_counter() - began, _cpu_seconds(children=False) - own
    cpu = _cpu_seconds() - cpu  # the fake model's process has ended: its CPU counts too
    return {"minutes": minutes, "model": model, "wall_seconds": round(wall, 2),
            "cpu_seconds": round(cpu, 2), "cpu_seconds_study_process": round(own, 2),
            "load_before": round(load, 2), "load_after": round(os.getloadavg()[0], 2),
            "engine_seconds": results["engine_seconds"],
            "model_calls": sum(r.get("calls", 0) for r in results["costs"]),
            "state_hash": results["state_hash"]}


def bench_realtime(minutes: int, speed: float, runs: int, model: str = "process") -> dict:
    from asiworld.study.demo import demo_text
    from asiworld.study.run import run_study
    from asiworld.study.spec import parse_study

    rows = []
    with fake_model(model) as url:
        for seed in range(3, 3 + runs):
            text = demo_text(url, minutes=minutes, seed=seed,
                             clock=f'kind = "realtime"\nspeed = {speed}')
            load = os.getloadavg()[0]
            with tempfile.TemporaryDirectory() as tmp:
                (results,) = run_study(parse_study(text), text, Path(tmp),
                                       say=lambda line: None)
                events = (Path(tmp) / "events.jsonl").read_text().splitlines()
            programs = sum(json.loads(line)["kind"] == "program_started" for line in events)
            rows.append({"seed": seed, "measured_speed": results["clock"]["measured_speed"],
                         "programs": programs, "load_before": round(load, 2)})
    held = [r["measured_speed"] for r in rows]
    return {"minutes": minutes, "speed": speed, "runs": rows,
            "within_5_percent": sum(abs(v - speed) <= 0.05 * speed for v in held),
            "load_after": round(os.getloadavg()[0], 2)}


def bench_prompt() -> dict:
    """The default prompt in SmolLM2-135M's own tokens (llama.cpp's /apply-template and
    /tokenize on `asiworld model serve`): the system prompt of a 300-minute lockstep study, the
    tool list (full and compact schemas), a first turn's user message, and whole first calls as
    the server counts them. Goal: the default system prompt <= 3,500 tokens."""
    from asiworld.agent_port import PipelinePort
    from asiworld.agents.clients.endpoint import Endpoint
    from asiworld.agents.clients.harness import Harness, HarnessConfig
    from asiworld.agents.clients.tools import openai_tools
    from asiworld.engine import World
    from asiworld.local_model import LocalModelServer
    from asiworld.pipeline import Pipeline
    from asiworld.study.spec import Lockstep

    clock = Lockstep(kind="lockstep").describe()
    world = World.create(seed=3, size=64)
    pipeline = Pipeline(world)
    client = PipelinePort(pipeline, world.add_character("bench", label="bench"))
    out: dict = {}
    with LocalModelServer(port=0) as server:
        def count(body: dict) -> int:
            prompt = _post(server.address + "/apply-template", body)["prompt"]
            tokens = _post(server.address + "/tokenize", {"content": prompt,
                                                          "parse_special": True})
            return len(tokens["tokens"])

        def text_tokens(text: str) -> int:
            return len(_post(server.address + "/tokenize", {"content": text})["tokens"])

        for compact in (False, True):
            config = HarnessConfig(model="m", horizon_tick=18_000, clock=clock,
                                   tool_schemas="compact" if compact else "full")
            harness = Harness(client, Endpoint(server.url), config)
            messages = harness.context()
            kind = "compact" if compact else "full"
            if not compact:
                out["system_prompt_characters"] = len(harness.system)
                out["system_prompt_tokens"] = text_tokens(harness.system)
                out["first_user_message_tokens"] = text_tokens(messages[-1]["content"])
            out[f"tools_{kind}_tokens"] = text_tokens(json.dumps(openai_tools(compact=compact)))
            out[f"first_call_{kind}_tools_tokens"] = count(
                {"messages": [{"role": "system", "content": harness.system}, *messages],
                 "tools": harness.tool_specs})
    pipeline.close()
    out["goal_system_prompt_tokens"] = 3500
    return out


def bench_local(minutes: int) -> dict:
    """`asiworld study new --local-model` for --minutes: two SmolLM2-135M seats on llama.cpp
    (one thread) and the planner, lockstep. Wall time, calls, tokens, what the answers were."""
    from asiworld.local_model import LocalModelServer
    from asiworld.study.demo import local_text
    from asiworld.study.run import run_study
    from asiworld.study.spec import parse_study

    with LocalModelServer(port=0) as server, tempfile.TemporaryDirectory() as tmp:
        text = local_text(server.url, minutes=minutes)
        load = os.getloadavg()[0]
        began = time.perf_counter()
        (results,) = run_study(parse_study(text), text, Path(tmp), say=lambda line: None)
        wall = time.perf_counter() - began
    seats = [row for row in results["costs"] if row["kind"] == "openai"]
    return {"minutes": minutes, "wall_seconds": round(wall, 1),
            "load_before": round(load, 2), "load_after": round(os.getloadavg()[0], 2),
            "calls": sum(r["calls"] for r in seats),
            "prompt_tokens": sum(r["prompt_tokens"] for r in seats),
            "cached_tokens": sum(r["cached_tokens"] for r in seats),
            "completion_tokens": sum(r["completion_tokens"] for r in seats),
            "latency_p50_ms": {r["name"]: r["latency_p50_ms"] for r in seats},
            "replies": {r["name"]: r["replies"] for r in seats},
            "state_hash": results["state_hash"]}


def _post(url: str, body: dict) -> dict:
    import urllib.request

    request = urllib.request.Request(url, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as reply:
        return json.load(reply)


@contextlib.contextmanager
def fake_model(where: str) -> Iterator[str]:
    """The fake model's URL: `process`, `asiworld fake-model` in a process of its own, as the
    README's demo runs it (its work then takes the other core, not the study's interpreter);
    `thread`, a FakeModelServer on a thread of this process."""
    if where == "thread":
        from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer

        with FakeModelServer(FakeModel()) as server:
            yield server.url
        return
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "asiworld.cli", "fake-model", "--port",
                               str(port)], stdout=subprocess.PIPE, text=True)
    try:
        if "fake model on" not in (server.stdout.readline() if server.stdout else ""):
            raise SystemExit("the fake model did not start")
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.terminate()  # the process this benchmark started
        server.wait()


def _cpu_seconds(children: bool = True) -> float:
    """User and system CPU of this process and (`children`) of its children that ended: the
    program host, the figure workers, the fake model's process."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    ended = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + (ended.ru_utime + ended.ru_stime if children else 0.0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["harness", "study", "realtime", "prompt", "local"])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--minutes", type=int, default=None,
                        help="world minutes (default 300; realtime: 5)")
    parser.add_argument("--speed", type=float, default=100.0, help="realtime: ticks per second")
    parser.add_argument("--runs", type=int, default=3, help="realtime: how many studies")
    parser.add_argument("--model", choices=["process", "thread"], default="process",
                        help="the fake model in a process of its own (default) or a thread")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    if args.what == "harness":
        result = bench_harness(args.calls)
    elif args.what == "prompt":
        result = bench_prompt()
    elif args.what == "local":
        result = bench_local(args.minutes or 60)
    elif args.what == "realtime":
        result = bench_realtime(args.minutes or 5, args.speed, args.runs, args.model)
    else:
        result = bench_study(args.minutes or 300, args.model)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
