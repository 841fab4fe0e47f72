"""Python syntax trees built one at a time in this process.

CPython 3.11 keeps the AST constructor's recursion depth per interpreter, not per thread. A
thread that builds a tree (`ast.parse`, `ast.literal_eval`, RestrictedPython's compile) can lose
the GIL midway (a garbage collection runs a finalizer), and another thread's tree moves the
shared count: the first then fails with SystemError("AST constructor recursion depth mismatch
(before=18, after=5)"), python/cpython#106905. Seen in a study: the stand-in model, answering two
seats on two threads, failed one call, and two runs of the same study ended in different worlds.
Every tree this package builds while other threads may be building one goes through LOCK."""

from __future__ import annotations

import ast
import threading
from typing import Any

LOCK = threading.Lock()


def literal(text: str) -> Any:
    """`ast.literal_eval(text)`, one tree at a time (ValueError or SyntaxError as it raises)."""
    with LOCK:
        return ast.literal_eval(text)
