"""One host process per program, under a supervisor: a crash or hang ends only its own program.

`HostPool` speaks to the manager exactly as a single host does (`request`, `send_runs`,
`next_slice`, `close`), but every program lives in its own `ProcessHost`, so a program that runs
unseen in C (a comparison of two huge shared structures, say), exhausts memory or crashes its
interpreter takes down one process, and the pool answers for that program alone: it `failed`
with `cpu_time_exceeded`, `out_of_memory` or `host_crashed`. A warm spare process is kept ready,
so a submission never waits for an interpreter to start; the processes are forked from the pool's
zygote (asiworld.programs.zygote: one interpreter that has imported the host), so a program's
process costs a fork, not a Python start-up and the host's imports.

How long the world waits for a program (the rule that keeps runs deterministic):
- Without a deadline (headless and lockstep runs, the default) the engine waits for every
  slice, in character order, however long the machine takes. A slice can only run long when the
  program does work its guards do not see, and that is bounded by the host itself: past
  `SLICE_CPU_SECONDS` of CPU a Python-level slice is stopped (`cpu_time_exceeded`), and past
  `SLICE_CPU_HARD_SECONDS` the kernel kills the process (`RLIMIT_CPU`, reset before each slice).
  So whether a program's action lands on a tick never depends on wall-clock timing.
- With a deadline (a live world on the clock: `slice_deadline`, seconds per tick), the engine
  waits for the tick's slices until the deadline and no longer. A program that has not answered
  is *still thinking*: it submits nothing this tick (its character idles), and its answer is
  read at a later tick when it comes. A live world is paced by the wall clock anyway, and a
  program within its step budget answers in milliseconds, so only a program doing unguarded
  work ever misses it; one that thinks past `THINKING_SECONDS` is stopped by force.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import deque
from dataclasses import dataclass
from functools import partial
from typing import Any

from asiworld.engine import codes
from asiworld.programs.host import HostCrashed, ProcessHost
from asiworld.programs.limits import HOST_MEMORY_BYTES, PROGRAMS_MEMORY_BYTES
from asiworld.programs.zygote import Zygote

THINKING_SECONDS = 5.0  # a live program silent this long is killed (cpu_time_exceeded)
MEMORY_CHECK_TICKS = 10  # how often a live world holds its programs' memory to the budget
MEMORY_MEASURE_SECONDS = 0.5  # how often a live pool measures it (off the clock)
# Headless and lockstep runs measure on their own thread, so less often: 100 programs cost
# 9 ms a tick measured every 10 ticks. Between checks a program's own cap still holds.
HEADLESS_MEMORY_CHECK_TICKS = 100
LIVE_SLICE_DEADLINE = 0.05  # seconds a live world waits each tick for its programs' answers
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
CPU_KILLED = ("cpu_time_exceeded", "used too much CPU time in one tick (stopped by force)")


def quiet_host(zygote: Any = None, memory_bytes: int = HOST_MEMORY_BYTES) -> ProcessHost:
    """A pooled host never polls for its next request: a dozen of them would spin on two cores."""
    return ProcessHost(memory_bytes=memory_bytes, spin=0.0, zygote=zygote)


def resident_bytes(pid: int) -> int:
    """All the memory a process has in RAM, its share of the zygote's pages included: more
    than it holds for itself, read in a tenth of the time (`/proc/PID/statm`, 46 µs)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * PAGE_BYTES
    except (OSError, IndexError, ValueError):
        return 0


def private_bytes(pid: int) -> int:
    """The memory a process holds for itself alone: the pages it has written since it was
    forked (shared pages, the zygote's interpreter among them, are counted by nobody), and what
    of it went to swap. 0 for a process that is gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
            text = rollup.read()
    except OSError:
        return 0
    total = 0
    for line in text.splitlines():
        if line.startswith((b"Private_Dirty:", b"Swap:")):
            total += int(line.split()[1]) * 1024
    return total


def _failed_row(pid: int, code: str, message: str) -> list:
    error = {"code": code, "message": message, "line": None}
    return [pid, "failed", "failed", None, 0, 0, False, None, {"outcome": {"error": error}}]


@dataclass
class Prepared:
    """A program compiled in its own process before its submission (`HostPool.prepare`): the
    submission on the world's clock then only hands the process over."""

    host: Any
    source: str

    def close(self) -> None:
        self.host.close()


class HostPool:
    """Programs' host processes, one each, and the rule for how long the world waits on them."""

    def __init__(
        self,
        slice_deadline: float | None = None,
        factory: Any = None,
        memory_budget: int | None = PROGRAMS_MEMORY_BYTES,
        program_memory: int = HOST_MEMORY_BYTES,
    ) -> None:
        """`memory_budget`: bytes all programs may hold together (None: no budget);
        `program_memory`: the address space of each program's process."""
        self.slice_deadline = slice_deadline
        self.memory_budget = memory_budget
        self._os_pids: dict[int, int] = {}  # program id -> its process's pid, for measuring
        self._held: dict[int, int] = {}  # program id -> bytes, as last measured (live pools)
        self._closed = threading.Event()
        if slice_deadline is not None and memory_budget is not None:
            threading.Thread(target=self._keep_measuring, name="programs-memory",
                             daemon=True).start()
        self.zygote: Zygote | None = None
        if factory is None:  # quiet hosts forked from a zygote (plain processes if it fails)
            try:
                self.zygote = Zygote()
            except OSError:
                self.zygote = None
            factory = partial(quiet_host, self.zygote, program_memory)
        self._factory = factory
        self.hosts: dict[int, Any] = {}  # program id -> its host
        self.spare: Any = None
        self.expected: deque[int] = deque()  # program ids whose slices are read next, in order
        self.thinking: dict[int, float] = {}  # program id -> when its unanswered run was sent
        self.deadline: float | None = None  # this tick's, in live worlds
        self.tick_started = 0.0
        self.killed = 0  # processes ended by force or found dead
        # The spare process is taken by the clock's thread (a submission) and by callers'
        # threads (`prepare`); forking from the zygote is one request at a time too.
        self._spare_lock = threading.Lock()
        self._spawn_spare()

    # -- the host interface ---------------------------------------------------------------
    def request(self, msg: dict, prepared: Prepared | None = None) -> dict:
        op = msg.get("op")
        if op == "submit":
            return self._submit(msg, prepared)
        if op == "stop":
            return self._stop(msg)
        if op == "drop":
            for pid in msg["pids"]:
                self._end(pid)
            return {"ok": True}
        return {"ok": True}

    def send_runs(self, msg: dict) -> None:
        if msg["new_tick"]:
            self.expected.clear()
            if self.slice_deadline is not None:
                self.tick_started = time.monotonic()
                self.deadline = self.tick_started + self.slice_deadline
        for run in msg["runs"]:
            pid = run[0]
            self.expected.append(pid)
            if pid in self.thinking:
                continue  # still answering an earlier run: that answer is read instead
            host = self.hosts.get(pid)
            if host is None:
                continue
            try:
                host.send_runs(
                    {"op": "run", "tick": msg["tick"], "new_tick": msg["new_tick"], "runs": [run]}
                )
            except HostCrashed:
                pass  # noticed when its slice is read
            self.thinking[pid] = time.monotonic()

    def next_slice(self) -> list:
        pid = self.expected.popleft()
        host = self.hosts.get(pid)
        if host is None:
            return _failed_row(pid, codes.HOST_CRASHED, "the program's host is gone")
        try:
            if self.deadline is None:
                row = host.next_slice()
            else:
                # One already thinking at an earlier tick is only looked at, never waited on.
                late = self.thinking.get(pid, self.tick_started) < self.tick_started
                row = host.next_slice_by(time.monotonic() if late else self.deadline)
                if row is None:
                    return self._still_thinking(pid)
        except HostCrashed as exc:
            return self._died(pid, str(exc))
        self.thinking.pop(pid, None)
        return row

    def ready(self) -> None:
        """Wait until the spare process has started (a forked one: the zygote has imported
        the host and forked it), so the next submission waits only for its compile."""
        if self.spare is not None:
            _ = self.spare.process.pid

    def close(self) -> None:
        self._closed.set()
        for pid in list(self.hosts):
            self._end(pid)
        if self.spare is not None:
            self.spare.close()
            self.spare = None
        if self.zygote is not None:
            self.zygote.close()
            self.zygote = None

    # -- supervision ----------------------------------------------------------------------
    def _still_thinking(self, pid: int) -> list:
        if time.monotonic() - self.thinking[pid] > THINKING_SECONDS:
            self._end(pid)
            self.killed += 1
            return _failed_row(
                pid,
                codes.CPU_TIME_EXCEEDED,
                f"did not answer for {THINKING_SECONDS:g} s (stopped by force)",
            )
        return [pid, "thinking", "running", None, 0, 0, True, None, None]

    def _died(self, pid: int, why: str) -> list:
        host = self.hosts.pop(pid)
        self._os_pids.pop(pid, None)
        self.thinking.pop(pid, None)
        host.close()
        self.killed += 1
        if host.killed:  # it stopped answering: the host's reply timeout
            code, message = "cpu_time_exceeded", "did not answer in time (stopped by force)"
        elif host.exit_code == -signal.SIGXCPU:  # RLIMIT_CPU: work in C that never returned
            code, message = CPU_KILLED
        else:
            code, message = "host_crashed", f"its host process ended ({why})"
        if "out_of_memory" in why:
            code, message = "out_of_memory", "the program ran out of memory"
        return _failed_row(pid, code, message)

    def over_memory(self) -> list[tuple[int, int]]:
        """The programs to end so that the rest fit the memory budget together, largest first:
        [(program id, bytes it holds)]. Empty when they fit, or when there is no budget.

        Reading a process's memory takes about 0.5 ms (the kernel walks its mappings), too long
        for a live world's clock with hundreds of programs: a live pool measures on a thread of
        its own and this reads its latest figures. A headless or lockstep run has no clock to
        keep and measures here, at the same ticks every run."""
        if self.memory_budget is None or not self.hosts:
            return []
        if self.slice_deadline is None:
            held = self._measure()
        else:
            held = {pid: size for pid, size in self._held.items() if pid in self.hosts}
        total = sum(held.values())
        ending = []
        for pid, size in sorted(held.items(), key=lambda item: (-item[1], item[0])):
            if total <= self.memory_budget:
                break
            ending.append((pid, size))
            total -= size
        return ending

    def memory_check_due(self, tick: int) -> bool:
        every = MEMORY_CHECK_TICKS if self.slice_deadline is not None else HEADLESS_MEMORY_CHECK_TICKS
        return self.memory_budget is not None and tick % every == 0

    def _measure(self) -> dict[int, int]:
        """Each program's memory. First everything its process has in RAM (cheap, and more
        than its own): when even that fits the budget, nobody is over it. Only then what each
        holds for itself."""
        processes = list(self._os_pids.items())
        resident = {pid: resident_bytes(os_pid) for pid, os_pid in processes}
        if self.memory_budget is not None and sum(resident.values()) <= self.memory_budget:
            return resident
        return {pid: private_bytes(os_pid) for pid, os_pid in processes}

    def _keep_measuring(self) -> None:
        while not self._closed.wait(MEMORY_MEASURE_SECONDS):
            self._held = self._measure()

    def prepare(self, source: str) -> Prepared | dict | None:
        """Compile `source` in a process of its own, on the caller's thread (a request's, a
        model seat's), not the world's clock: a program that takes a second to compile would
        hold every tick that long. A Prepared ticket for the submission; the refusal (a dict)
        when it does not compile; None when no process could be had (the submission compiles
        then)."""
        with self._spare_lock:
            host = self._take_spare()
        try:
            reply = host.request({"op": "compile", "source": source})
        except HostCrashed:
            host.close()
            return None
        if not reply.get("ok"):
            self._give_back(host)
            return reply
        return Prepared(host, source)

    def _give_back(self, host: Any) -> None:
        """A process that compiled nothing it keeps: the next spare, unless there is one."""
        with self._spare_lock:
            if self.spare is None:
                self.spare, host = host, None
        if host is not None:
            host.close()

    def _submit(self, msg: dict, prepared: Prepared | None = None) -> dict:
        if prepared is not None and prepared.source == msg["source"] \
                and prepared.host.process.poll() is None:
            host = prepared.host  # compiled already: the submission uses its code
        else:
            if prepared is not None:
                prepared.close()
            with self._spare_lock:
                host = self._take_spare()
        try:
            reply = host.request(msg)
        except HostCrashed:
            # The spare may have died while it waited (killed, or out of memory) before poll()
            # could tell: one fresh process is tried before the submission is refused.
            host.close()
            host = self._factory()
            try:
                reply = host.request(msg)
            except HostCrashed as exc:
                host.close()
                return {
                    "ok": False,
                    "error": {"code": codes.HOST_UNAVAILABLE, "message": str(exc), "line": None},
                }
        if reply.get("ok"):
            self.hosts[msg["pid"]] = host
            self._os_pids[msg["pid"]] = host.process.pid
            with self._spare_lock:
                if self.spare is None:
                    self._spawn_spare()
        else:
            self._give_back(host)  # refused at compile time: the process is still clean
        return reply

    def _stop(self, msg: dict) -> dict:
        pid = msg["pid"]
        host = self.hosts.get(pid)
        if host is not None and pid not in self.thinking:
            try:
                return host.request(msg)
            except HostCrashed:
                pass
        # Busy (still thinking) or dead: it cannot be asked, so it is ended by force.
        self._end(pid)
        error = {"code": msg["code"], "message": msg["message"], "line": None}
        report = {"id": pid, "status": msg.get("status", "stopped"), "line": None}
        return {
            "ok": True,
            "report": report | {"steps_tick": 0, "steps_total": 0, "outcome": {"error": error}},
        }

    def _end(self, pid: int) -> None:
        self.thinking.pop(pid, None)
        self._os_pids.pop(pid, None)
        host = self.hosts.pop(pid, None)
        if host is not None:
            host.close()

    def _take_spare(self) -> Any:
        host = self.spare
        self.spare = None
        if host is None or host.process.poll() is not None:
            host = self._factory()
        return host

    def _spawn_spare(self) -> None:
        try:
            self.spare = self._factory()
        except OSError:
            self.spare = None  # no process to spare now; the next submission starts one
