"""A run's tick loop keeps what it started with out of the cyclic collector's walks
(asiworld.heap): frozen while the run goes, handed back when the last run ends, and a cycle that
became garbage meanwhile is collected after."""

from __future__ import annotations

import gc
import threading
import weakref

from asiworld import heap
from asiworld.headless.run import Run, RunConfig


class Node:
    pass


def test_what_was_alive_is_frozen_for_the_run_and_handed_back():
    assert gc.get_freeze_count() == 0
    alive = [object() for _ in range(10)]  # noqa: F841 - alive when the run starts
    with heap.settled():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


def test_nested_and_overlapping_runs_hand_the_heap_back_when_the_last_ends():
    inner_done, outer_may_end = threading.Event(), threading.Event()

    def other_run() -> None:
        with heap.settled():
            inner_done.set()
            outer_may_end.wait(10)

    with heap.settled():
        with heap.settled():
            pass
        assert gc.get_freeze_count() > 0  # the outer run still goes
        thread = threading.Thread(target=other_run)
        thread.start()
        assert inner_done.wait(10)
    assert gc.get_freeze_count() > 0  # the thread's run still goes
    outer_may_end.set()
    thread.join(10)
    assert gc.get_freeze_count() == 0


def test_a_cycle_that_became_garbage_during_the_run_is_collected_after():
    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    with heap.settled():
        del a, b  # garbage now, but frozen: the collector does not walk it during the run
        gc.collect()
        assert gone() is not None
    gc.collect()
    assert gone() is None


def test_a_headless_run_leaves_the_collector_as_it_found_it():
    Run(RunConfig(seed=3, minutes=1, agents=["forager"], record=False)).run()
    assert gc.get_freeze_count() == 0
