"""The cyclic garbage collector during a run's tick loop.

Everything alive when a run starts (the modules, the content, the world as built, the agents)
lives for the whole run, yet each of the collector's full collections walks all of it again:
on `asiworld run` with one forager for 60 minutes, the one full collection of the run cost
about a fifth of its time. `settled()` moves what is alive then to the collector's permanent
generation for the loop (`gc.freeze`) and hands it back when the loop ends (`gc.unfreeze`),
so a run's collections walk only what the run made. Nothing is collected that would not have
been, later: reference counting frees what it always frees, and a cycle that became garbage
during the run among the frozen objects waits for the end of the run.

Runs may nest or overlap in threads (a study's seeds, a test's runs): the heap is handed back
when the last of them ends."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_open = 0  # runs inside settled() now


@contextmanager
def settled() -> Iterator[None]:
    """What is alive now is left out of the collector's walks until the block ends."""
    global _open
    with _lock:
        _open += 1
        gc.freeze()  # O(1): the generations are moved, not walked
    try:
        yield
    finally:
        with _lock:
            _open -= 1
            if _open == 0:
                gc.unfreeze()
