"""Two processes that draw a study's figures: started with the study, they import matplotlib
(seconds) while the world runs, then draw Figure 4 and Figure 5 side by side while the study's
own process writes the tables and the report (asiworld.evaluation.report, `draw`). The figures
are the same files either way; a study without them (workers that cannot start) draws them
itself."""

from __future__ import annotations

import logging
import multiprocessing
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any

log = logging.getLogger(__name__)
WORKERS = 2  # one per figure


def _ready() -> None:
    """Imports what drawing needs, in the worker (its first task)."""
    import asiworld.evaluation.figures  # noqa: F401  (matplotlib: in the worker process alone)


class FigureWorkers(Executor):
    """An executor for write_reports' `draw`; `shutdown()` stops its processes."""

    def __init__(self, workers: int = WORKERS) -> None:
        """`workers` = 0: none, the caller's process draws."""
        self.pool: ProcessPoolExecutor | None = None
        self.warming: list[Future] = []
        if workers > 0:
            # spawn: the study's process has threads (model calls, HTTP) a fork would copy
            self.pool = ProcessPoolExecutor(max_workers=workers,
                                            mp_context=multiprocessing.get_context("spawn"))
            self.warming = [self.pool.submit(_ready) for _ in range(workers)]

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future:
        """`fn(*args)` on a worker, or here when the workers failed to start."""
        if self.pool is not None:
            try:
                for warm in self.warming:
                    warm.result()
                return self.pool.submit(fn, *args, **kwargs)
            except Exception as exc:  # a broken pool: the figures are drawn here instead
                log.warning("figure workers unavailable (%s); drawing in the study's process",
                            exc)
                self.shutdown()
        done: Future = Future()
        done.set_result(fn(*args, **kwargs))
        return done

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = True) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=wait, cancel_futures=cancel_futures)
            self.pool = None
