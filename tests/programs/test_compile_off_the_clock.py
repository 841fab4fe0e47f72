"""A program is compiled before the world's clock is asked to take it. Compiling ran on the
clock's thread: a legal 32 KB program (hundreds of nested comprehensions, most of a second to
compile) resubmitted within the rate limit held the live world at about one tick a second, and
three characters doing it stopped it.

Now the caller's thread (a request's, a realtime seat's) has a process of the host pool compile
it (`prepare`), and the clock's thread hands that process the submission, which uses the code
already compiled. A program that does not compile is refused without the clock at all."""

from __future__ import annotations

import threading

from asiworld.engine import World
from asiworld.pipeline import Pipeline
from asiworld.programs.manager import ProgramManager
from asiworld.programs.pool import HostPool


def heavy_source(depth: int = 60) -> str:
    """Legal and slow to compile: comprehensions nested `depth` deep, many times over."""
    inner = "x"
    for _ in range(depth):
        inner = f"[{inner} for x in range(1)]"
    body = "\n".join(f"    a{i} = {inner}" for i in range(8))
    return f"def main():\n{body}\n    return 1\n"


def test_the_compile_runs_on_the_callers_thread_and_the_clock_only_hands_it_over(monkeypatch):
    world = World.create(seed=3, size=48)
    pipeline = Pipeline(world, programs=ProgramManager(world, in_process=False))
    ada = world.add_character("ada", label="t")
    seen: dict[str, list] = {"compile": [], "submit": []}
    compile_of = HostPool.prepare
    submit_of = HostPool._submit

    def prepare(self, source):
        seen["compile"].append(threading.current_thread().name)
        return compile_of(self, source)

    def submit(self, msg, prepared=None):
        seen["submit"].append((threading.current_thread().name, prepared is not None))
        return submit_of(self, msg, prepared)

    monkeypatch.setattr(HostPool, "prepare", prepare)
    monkeypatch.setattr(HostPool, "_submit", submit)
    try:
        tickets = []
        caller = threading.Thread(
            target=lambda: tickets.append(pipeline.prepare_program("heavy", heavy_source())),
            name="a-request")
        caller.start()
        caller.join(60)
        (ticket,) = tickets
        reply = pipeline.submit_program(ada, "heavy", heavy_source(), ticket)  # "the clock"
        assert reply["ok"], reply
        assert seen["compile"] == ["a-request"]
        assert seen["submit"] == [(threading.current_thread().name, True)]
        for _ in range(3):
            pipeline.step()
        assert pipeline.programs.record(ada, reply["id"]).status == "finished"
    finally:
        pipeline.close()


def test_a_program_that_does_not_compile_is_refused_before_the_clock():
    world = World.create(seed=3, size=48)
    pipeline = Pipeline(world, programs=ProgramManager(world, in_process=False))
    try:
        refused = pipeline.prepare_program("bad", "def main(:\n")
        assert refused["ok"] is False and refused["code"] == "syntax_error"
        assert refused["line"] == 1
        again = pipeline.prepare_program("imports", "import os\n")
        assert again["code"] == "forbidden"
        ada = world.add_character("ada", label="t")
        assert pipeline.submit_program(ada, "bad", "def main(:\n", refused) == refused
        assert pipeline.programs.programs_of(ada) == []
    finally:
        pipeline.close()


def test_a_ticket_for_other_source_is_not_used_and_its_process_ends():
    world = World.create(seed=3, size=48)
    pipeline = Pipeline(world, programs=ProgramManager(world, in_process=False))
    ada = world.add_character("ada", label="t")
    try:
        ticket = pipeline.prepare_program("one", "def main():\n    return 1\n")
        reply = pipeline.submit_program(ada, "two", "def main():\n    return 2\n", ticket)
        assert reply["ok"]
        assert ticket.host.process.wait(10) is not None  # closed, not leaked
        for _ in range(3):
            pipeline.step()
        assert pipeline.programs.record(ada, reply["id"]).outcome["value"] == 2
    finally:
        pipeline.close()
