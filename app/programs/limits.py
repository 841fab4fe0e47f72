"""The numbers that bound a program: step budgets and size caps.

These are content-like constants (the lead may move them to app/engine/content); they are passed
into the runtime rather than read from globals so tests and worlds can choose their own.
"""

from __future__ import annotations

from dataclasses import dataclass

# Ended programs a world keeps per character (its newest): the records stay bounded however long
# a world runs (`asiworld serve --programs-kept`).
ENDED_KEPT = 50

# Memory, in bytes. Each program runs in a process of its own, whose address space is capped
# (`serve --program-memory`); all programs' processes together hold at most the world's budget
# (`serve --programs-memory`): past it the ones holding the most are ended `out_of_memory`.
HOST_MEMORY_BYTES = 1 << 30
MIN_PROGRAM_MEMORY = 256 << 20  # an interpreter and its imports need about 150 MiB of it
PROGRAMS_MEMORY_BYTES = 4 << 30


@dataclass(frozen=True)
class Budget:
    """How much work a program may do, counted in steps (never in milliseconds).

    A step is one loop iteration, one function call, one API call, or a share of a large built-in
    operation (see `charge_per_items`).
    """

    steps_per_tick: int = 1000  # past this the program is preempted until the next tick
    steps_total: int = 2_000_000  # past this the program is stopped for good
    max_depth: int = 100  # nested calls of the program's own functions
    max_items: int = 1_000_000  # longest str/list/tuple/range a program may build
    max_int_bits: int = 10_000  # largest integer a program may build
    charge_per_items: int = 256  # a built-in op over n items costs n // this extra steps
    max_format_width: int = 1000  # widths/precisions in f-strings and '%' formats
    max_log_lines: int = 200  # kept per program (older lines are dropped)
    max_log_chars: int = 300  # per log line
    max_calls_per_tick: int = 4  # API calls refused and retried inside one tick

    def to_dict(self) -> dict:
        return dict(self.__dict__)


DEFAULT_BUDGET = Budget()
