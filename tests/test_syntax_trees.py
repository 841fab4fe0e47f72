"""Syntax trees built on many threads at once (python/cpython#106905: CPython 3.11 counts the
AST constructor's depth per interpreter). Without asiworld.syntax_trees.LOCK, this load raised
SystemError("AST constructor recursion depth mismatch") 4 to 6 times a run; with it, never."""

from __future__ import annotations

import gc
import sys
import threading

from asiworld.agents.stand_in.fake_play import _value
from asiworld.programs.compiler import CompiledProgram, compile_program

DEEP = repr([[[[[[[[i, (i, [i, {i: [i]}])] for i in range(6)]]]]]]])
PROGRAM = "def walk(n):\n    return [[[[n, (n, [n, {n: [n]}])]]]]\nresult = walk(3)\n"


class _Finalised:
    def __del__(self) -> None:  # Python code run by a collection: the GIL may change hands
        pass


def test_the_stand_in_and_the_program_compiler_parse_on_many_threads_at_once():
    failures: list[str] = []
    expected = _value(DEEP)
    assert isinstance(expected, list)  # parsed, not given back as text

    def parse_literals() -> None:
        for _ in range(3000):
            try:
                if _value(DEEP) != expected:
                    failures.append("a literal parsed differently")
            except Exception as exc:  # noqa: BLE001 - every failure is counted, in the thread
                failures.append(f"{type(exc).__name__}: {exc}")

    def compile_programs() -> None:
        for _ in range(150):
            try:
                if not isinstance(compile_program(PROGRAM), CompiledProgram):
                    failures.append("a program was refused")
            except Exception as exc:  # noqa: BLE001 - the same
                failures.append(f"{type(exc).__name__}: {exc}")

    def make_garbage() -> None:
        for _ in range(20000):
            cycle = _Finalised()
            cycle.self = cycle

    switch, thresholds = sys.getswitchinterval(), gc.get_threshold()
    sys.setswitchinterval(1e-6)  # threads change hands as often as they can
    gc.set_threshold(50, 5, 5)  # and collections run often, in the middle of a tree
    try:
        threads = [threading.Thread(target=parse_literals) for _ in range(3)]
        threads += [threading.Thread(target=compile_programs), threading.Thread(target=make_garbage)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(switch)
        gc.set_threshold(*thresholds)
    assert failures == []
