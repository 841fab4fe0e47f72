"""The program host: keeps every program's runtime and runs slices on request.

`ProgramTable` is the host's whole logic (submit, run a batch of slices, stop). It runs either
inside a separate, resource-limited process (`ProcessHost`, the default for servers) or in the
caller's process (`LocalHost`, for tests and speed comparison). Both speak the same JSON messages,
so a program behaves identically in either: the local host round-trips every message through
JSON too, which also means a program never holds a reference to engine-owned data.

Messages (dicts):
  {"op": "submit", "pid", "char", "name", "source", "seed", "budget", "actions"}
      -> {"ok", "error"?}  (`actions`: the engine's action table, the program API's source)
  {"op": "run", "tick", "new_tick", "runs": [[pid, reply | null, observation | null], ...]}
      -> one SLICE_ROW per run, each sent as soon as it is computed, in the order asked
  {"op": "stop", "pid", "code", "message", "status"} -> {"ok", "report"}
  {"op": "drop", "pids": [pid, ...]} -> {"ok"}

Runs stream: the host sends each slice the moment it has it, so the engine side submits one
program's action while the host is still running the next program, and may already queue a
refused program's next run behind the rest. The host reads requests strictly in order, so the
order of slices (and of the world's submissions) is fixed by what the engine sent, never by
timing. Slices are positional rows rather than dicts (see `SliceRow`): rows take well under half
the bytes and parsing time of keyed dicts.
"""

from __future__ import annotations

import json
import os
import queue
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from typing import Any, NamedTuple, NoReturn

import orjson
from asiworld.programs.compiler import CompileError, compile_program
from asiworld.programs.limits import HOST_MEMORY_BYTES, Budget
from asiworld.programs.runtime import TERMINAL, ProgramRuntime, ProgramStopped

IN_PROCESS_STACK_BYTES = 1 << 30  # the in-process host's C stack (DeepStack)
HOST_CPU_SECONDS = 3600  # cumulative; a host past it dies and is restarted
SLICE_CPU_SECONDS = 0.5  # one slice using more CPU than this is stopped (process host only)
SLICE_CPU_HARD_SECONDS = 1  # 1-2 s of CPU past the alarm, the kernel kills it: RLIMIT_CPU
REPLY_TIMEOUT_SECONDS = 10.0  # no reply by then: the host is treated as crashed
ENGINE_SPIN_SECONDS = 0.001  # the engine polls this long for a reply before sleeping
HOST_SPIN_SECONDS = 0.002  # the host polls this long for the next request before sleeping


class SliceRow(NamedTuple):
    """One slice's answer, sent as a JSON array in this field order."""

    pid: int
    kind: str  # "intent" | "observe" | "preempted" | "finished" | "failed" | "stopped"
    status: str
    line: int | None
    steps_tick: int
    steps_total: int
    uses_observation: bool
    action: dict | None  # the call to submit (kind "intent")
    extra: dict | None  # {"logs": [...]} new log lines, {"outcome": ...} once ended


class HostCrashed(Exception):
    """The host process died or stopped answering; its programs are lost."""


class ZygoteGone(OSError):
    """The zygote cannot start a host (it died or never started); start one the plain way."""


class NoAnswerYet(HostCrashed):
    """The host has not answered by the deadline (a crash unless the caller chooses to wait)."""


class ProgramTable:
    """All programs of one host, keyed by program id."""

    def __init__(self) -> None:
        self.programs: dict[int, ProgramRuntime] = {}
        self.current: ProgramRuntime | None = None  # the program running right now
        self.arm = _nothing  # the process host starts a CPU alarm around each slice
        self.disarm = _nothing
        # A program compiled ahead of its submission (`compile`, asked off the world's clock):
        # its source and code, used by the `submit` of the same source.
        self.prepared: tuple[str, Any] | None = None

    def handle(self, msg: dict) -> dict:
        """Answer every request but `run` (see `run`)."""
        op = msg.get("op")
        if op == "submit":
            return self.submit(msg)
        if op == "compile":
            return self.compile(msg)
        if op == "stop":
            return self.stop(msg)
        if op == "drop":
            for pid in msg["pids"]:
                self.programs.pop(pid, None)
            return {"ok": True}
        if op == "ping":
            return {"ok": True, "pid": os.getpid()}
        return {"ok": False, "error": {"code": "unknown_request", "message": f"unknown op {op!r}"}}

    def compile(self, msg: dict) -> dict:
        """Compile a program ahead of its submission; kept for the `submit` of this source."""
        compiled = compile_program(msg["source"])
        if isinstance(compiled, CompileError):
            return {"ok": False, "error": compiled.to_dict()}
        self.prepared = (msg["source"], compiled)
        return {"ok": True}

    def submit(self, msg: dict) -> dict:
        prepared, self.prepared = self.prepared, None
        if prepared is not None and prepared[0] == msg["source"]:
            compiled = prepared[1]
        else:
            compiled = compile_program(msg["source"])
        if isinstance(compiled, CompileError):
            return {"ok": False, "error": compiled.to_dict()}
        budget = Budget(**msg["budget"])
        self.programs[msg["pid"]] = ProgramRuntime(
            msg["pid"], msg["char"], msg["name"], compiled, msg["seed"], budget, msg["actions"]
        )
        return {"ok": True}

    def run(self, msg: dict) -> Iterator[list]:
        """The slices of a `run` request, one at a time, in the order asked."""
        tick, new_tick = msg["tick"], msg["new_tick"]
        for pid, reply, observation in msg["runs"]:
            yield self.run_one(pid, reply, observation, tick, new_tick)

    def run_one(
        self, pid: int, reply: dict | None, observation: dict | None, tick: int, new_tick: bool
    ) -> list:
        rt = self.programs.get(pid)
        if rt is None:
            lost = _lost(pid)
            return [pid, "failed", "failed", None, 0, 0, False, None, {"outcome": lost["outcome"]}]
        if new_tick and not rt.begin_tick() and reply is None:
            steps = rt.steps
            return [pid, "preempted", rt.status, rt.line, 0, steps, rt.uses_observation, None, None]
        self.current = rt
        self.arm()
        try:
            result = rt.run_slice(reply, observation, tick)
        finally:
            self.disarm()
            self.current = None
        extra = None
        if rt.new_logs:
            extra = {"logs": rt.new_logs}
            rt.new_logs = []
        if rt.status in TERMINAL:
            extra = (extra or {}) | {"outcome": rt.outcome}
        steps = rt.steps
        return [
            pid,
            result.kind,
            rt.status,
            rt.line,
            steps - rt.tick_start,
            steps,
            rt.uses_observation,
            result.action,
            extra,
        ]

    def stop(self, msg: dict) -> dict:
        rt = self.programs.get(msg["pid"])
        if rt is None:
            return {"ok": True, "report": _lost(msg["pid"])}
        self.current = rt
        try:
            rt.stop(msg["code"], msg["message"], msg.get("status", "stopped"))
        finally:
            self.current = None
        return {"ok": True, "report": rt.report()}


def _nothing() -> None:
    return None


def _lost(pid: int) -> dict:
    error = {
        "code": "unknown_program",
        "message": "the program host does not know it",
        "line": None,
    }
    return {
        "id": pid,
        "status": "failed",
        "line": None,
        "steps_tick": 0,
        "steps_total": 0,
        "outcome": {"error": error},
    }


def _json_copy(msg: Any) -> Any:
    return decode_body(encode_body(msg))


class DeepStack:
    """One thread with a deep C stack that runs every call of an in-process host.

    A program's work in C can recurse where CPython never checks its depth: hashing a tuple
    nested 300,000 deep, or taking the next item of 300,000 nested `map`s. On an ordinary
    thread's 8 MB stack that is a segmentation fault, and in-process that is the whole process
    (the Gymnasium env, `program run --in-process`), not one program. Every level costs the
    program a step to build, so its step budget bounds the depth; `IN_PROCESS_STACK_BYTES` holds
    what the default budget allows (2,000,000 levels) with room to spare. Its pages are memory
    only once touched."""

    _creating = threading.Lock()  # threading.stack_size is process-wide: set, start, restore

    def __init__(self, stack_bytes: int = 0) -> None:
        self._calls: queue.SimpleQueue = queue.SimpleQueue()
        with DeepStack._creating:
            before = threading.stack_size(stack_bytes or IN_PROCESS_STACK_BYTES)
            try:
                self._thread = threading.Thread(target=self._serve, name="program-host",
                                                daemon=True)
                self._thread.start()
            finally:
                threading.stack_size(before)

    def call(self, fn: Any, *args: Any) -> Any:
        """`fn(*args)` on the deep stack; its result, or its exception raised here."""
        answer: queue.SimpleQueue = queue.SimpleQueue()
        self._calls.put((fn, args, answer))
        ok, value = answer.get()
        if not ok:
            raise value
        return value

    def close(self) -> None:
        self._calls.put(None)

    def _serve(self) -> None:
        while True:
            job = self._calls.get()
            if job is None:
                return
            fn, args, answer = job
            try:
                answer.put((True, fn(*args)))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller as it is
                answer.put((False, exc))


class LocalHost:
    """The host in this process: same messages, same JSON round trip, no isolation. Programs
    run on a `DeepStack` thread, so work in C that recurses deep cannot crash the process
    (under eventlet's green threads, where no such thread can be had, on the caller's)."""

    def __init__(self) -> None:
        self.table = ProgramTable()
        self.slices: deque[list] = deque()
        self.stack = None if green_threads() else DeepStack()

    def _on_stack(self, fn: Any, *args: Any) -> Any:
        return fn(*args) if self.stack is None else self.stack.call(fn, *args)

    def request(self, msg: dict) -> dict:
        """A request other than `run`, and its reply."""
        return _json_copy(self._on_stack(self.table.handle, _json_copy(msg)))

    def send_runs(self, msg: dict) -> None:
        """A `run` request; its slices are then taken one by one with `next_slice`."""
        rows = self._on_stack(lambda m: list(self.table.run(m)), _json_copy(msg))
        self.slices.extend(_json_copy(row) for row in rows)

    def next_slice(self) -> list:
        return self.slices.popleft()

    def close(self) -> None:
        self.table.programs.clear()
        if self.stack is not None:
            self.stack.close()


def green_threads() -> bool:
    """Whether eventlet has made this process's threads green (serve --async-mode eventlet)."""
    if "eventlet" not in sys.modules:
        return False
    from eventlet import patcher

    return bool(patcher.is_monkey_patched("thread"))


class ProcessHost:
    """The host in a separate resource-limited process (`python -m asiworld.programs.host`, or
    forked from a `zygote` that has imported this module: the same process, without the
    start-up), spoken to over its stdin/stdout in length-prefixed JSON. A subprocess rather
    than multiprocessing: it never re-imports the caller's main module and never forks a
    threaded server."""

    def __init__(
        self,
        memory_bytes: int = HOST_MEMORY_BYTES,
        timeout: float = REPLY_TIMEOUT_SECONDS,
        spin: float = HOST_SPIN_SECONDS,
        zygote: Any = None,
    ):
        self.timeout = timeout
        self.process: Any = None
        if zygote is not None:  # forked from a pre-imported process (zygote.py), if it lives
            try:
                self.process = zygote.spawn(memory_bytes, spin)
            except ZygoteGone:
                self.process = None
        if self.process is None:
            root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
            env = dict(os.environ)
            env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
            self.process = subprocess.Popen(
                [sys.executable, "-m", "asiworld.programs.host", str(memory_bytes), str(spin)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=env,
                cwd=root,
                close_fds=True,
            )
        # Our end of its stdin never blocks: a write to a host that takes no input times out
        # (write_frame) instead of holding the world's thread.
        os.set_blocking(self.process.stdin.fileno(), False)
        self.replies = FrameReader(self.process.stdout.fileno())
        self.spin = SpinWindow(ENGINE_SPIN_SECONDS)
        self.sent = time.perf_counter()
        self.exit_code: int | None = None  # once closed: the process's return code
        self.killed = False  # once closed: whether close() had to kill it

    def request(self, msg: dict) -> dict:
        """A request other than `run`, and its reply."""
        self._write(msg)
        return self._read()

    def send_runs(self, msg: dict) -> None:
        """A `run` request; its slices are then read one by one with `next_slice`."""
        self._write(msg)

    def next_slice(self) -> list:
        row = self._read()
        if type(row) is not list:  # the host could not run the slices
            self.close()
            raise HostCrashed(f"the program host failed: {row.get('error')}")
        return row

    def next_slice_by(self, deadline: float) -> list | None:
        """The next slice, or None if it has not come by `deadline` (time.monotonic())."""
        try:
            return self.next_slice_until(deadline)
        except NoAnswerYet:
            return None

    def next_slice_until(self, deadline: float) -> list:
        try:
            row = self.replies.read(deadline, self.spin.next)
        except NoAnswerYet:
            raise
        except (EOFError, OSError, ValueError, HostCrashed) as exc:
            self._lost(exc)
        self.sent = time.perf_counter()
        if type(row) is not list:
            self.close()
            raise HostCrashed(f"the program host failed: {row.get('error')}")
        return row

    def _write(self, msg: dict) -> None:
        try:
            write_frame(self.process.stdin.fileno(), msg, self.timeout)
        except (OSError, ValueError) as exc:
            self._lost(exc)
        self.sent = time.perf_counter()

    def _read(self) -> Any:
        """The next frame; polls first while the host has been answering quickly."""
        try:
            frame = self.replies.read(time.monotonic() + self.timeout, self.spin.next)
        except (EOFError, OSError, ValueError, HostCrashed) as exc:
            self._lost(exc)
        now = time.perf_counter()
        self.spin.observe(now - self.sent)
        self.sent = now
        return frame

    def _lost(self, exc: Exception) -> NoReturn:
        """The host stopped answering or died: it is closed, and the caller hears HostCrashed."""
        if isinstance(exc, (EOFError, OSError)):
            # The pipe closes a moment before the ending process can be reaped: wait for that,
            # so close() records a host that died by itself (crashed), not one killed here.
            try:
                self.process.wait(timeout=1)
            except subprocess.TimeoutExpired:
                pass
        self.close()
        if isinstance(exc, HostCrashed):
            raise exc
        raise HostCrashed(f"the program host stopped ({type(exc).__name__})") from exc

    def close(self) -> None:
        if self.exit_code is None:
            self.killed = self.process.poll() is None  # ended here, not by itself or another
        if self.process.poll() is None:
            self.process.kill()
        self.exit_code = self.process.wait(timeout=5)
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass


# Frames are JSON made and read by orjson: the run request and its slices cross the pipe every
# tick, and orjson does both in a tenth of the json module's time. A message orjson cannot write
# (a whole number past 64 bits, say a program's `move_to(10**30, 0)`) goes through the json
# module instead, marked with a leading "J" so the reader parses it exactly, never as a float.
_ORJSON_OPTIONS = orjson.OPT_NON_STR_KEYS
_JSON_MARK = b"J"
_json_encode = json.JSONEncoder(separators=(",", ":")).encode


def encode_body(msg: Any) -> bytes:
    """A message as frame body bytes."""
    try:
        return orjson.dumps(msg, option=_ORJSON_OPTIONS)
    except TypeError:
        return _JSON_MARK + _json_encode(msg).encode()


def decode_body(body: bytes) -> Any:
    """A frame body back into a message (orjson rejects anything that is not JSON)."""
    if body[:1] == _JSON_MARK:
        return json.loads(body[1:])
    return orjson.loads(body)


def encode_frame(msg: Any) -> bytes:
    """A frame: a 4-byte big-endian length, then the body (header and body together, so one
    write per frame)."""
    body = encode_body(msg)
    return struct.pack(">I", len(body)) + body


def write_frame(fd: int, msg: Any, timeout: float | None = None) -> None:
    """Write one frame straight to the pipe (one system call unless the pipe is full). On a
    non-blocking pipe (the caller's side of a host's stdin) a full pipe is waited on for
    `timeout` seconds at most, then TimeoutError: a host that stopped reading (stopped, stuck
    in C, or blocked writing to a pipe nobody reads) would otherwise hold the world's thread
    in this write for ever."""
    data = memoryview(encode_frame(msg))
    deadline = None if timeout is None else time.monotonic() + timeout
    while data:
        try:
            data = data[os.write(fd, data) :]
        except BlockingIOError:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError(f"the program host took no input for {timeout:g} s") from None
            select.select([], [fd], [], left)


_yield_cpu = getattr(os, "sched_yield", lambda: None)


def poll_briefly(fd: int, seconds: float) -> bool:
    """Watch `fd` without sleeping for up to `seconds`; True as soon as it has bytes.

    Why spin at all: a process asleep in `read` takes tens to hundreds of microseconds to be
    woken and to warm up again, and the engine and the host hand the turn to each other every
    tick. Both sides only poll when the other is expected to answer within the window (see
    `SpinWindow`), and `sched_yield` lets anything else that wants this core run meanwhile.
    """
    until = time.perf_counter() + seconds
    fds = [fd]
    while True:
        if select.select(fds, [], [], 0)[0]:
            return True
        if time.perf_counter() >= until:
            return False
        _yield_cpu()


class SpinWindow:
    """How long to poll for the next frame before sleeping: the whole window while frames keep
    arriving within it (a fast headless run), nothing once one took longer (a live world at a
    few ticks per second), so a slow peer costs at most one window of polling."""

    def __init__(self, window: float) -> None:
        self.window = window
        self.next = 0.0

    def observe(self, waited: float) -> None:
        self.next = self.window if waited <= self.window else 0.0


class FrameReader:
    """Reads frames from a pipe: one `os.read` usually brings header and body together, and bytes
    past the end of a frame are kept for the next one. With a deadline it waits in `select`
    (the engine side, which must notice a host that stopped answering); without one it simply
    blocks in `read` (the host), one system call per frame."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()

    def read(self, deadline: float | None = None, spin: float = 0.0) -> Any:
        """The next frame; first polls up to `spin` seconds (see `poll_briefly`)."""
        buffer = self.buffer
        while True:
            if len(buffer) >= 4:
                (size,) = struct.unpack_from(">I", buffer)
                if len(buffer) >= 4 + size:
                    body = bytes(buffer[4 : 4 + size])
                    del buffer[: 4 + size]
                    return decode_body(body)
            if spin > 0:
                poll_briefly(self.fd, spin)
                spin = 0.0
            if deadline is not None:
                ready, _, _ = select.select([self.fd], [], [], max(deadline - time.monotonic(), 0))
                if not ready:
                    raise NoAnswerYet("the program host did not answer in time")
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                raise EOFError("the program host closed its pipe")
            buffer += chunk


def limit_resources(memory_bytes: int) -> None:
    """Tighten this process: memory, CPU seconds, no new files or processes, no core dumps.

    Not a lower CPU priority: the clock's thread asks a program's process synchronously
    (a submission, a stop), so a starved process stalls the clock. At nice 19 beside two busy
    processes, four attackers held a live world to 2.7 ticks/s of 10; at the same priority 10.0."""
    import resource

    wanted = [
        (resource.RLIMIT_AS, memory_bytes),
        (resource.RLIMIT_CPU, HOST_CPU_SECONDS),
        (resource.RLIMIT_FSIZE, 0),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_NPROC, 0),  # note: ignored for root
        (resource.RLIMIT_NOFILE, 16),
    ]
    for which, value in wanted:
        try:
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError):
            soft, hard = resource.getrlimit(which)
            if hard == resource.RLIM_INFINITY or value <= hard:
                resource.setrlimit(which, (value, hard))


def _arm_slice() -> None:
    """Before each slice: the CPU alarm for Python-level work, and a kernel limit a little
    further on for work in C that never returns to the interpreter (SIGXCPU ends the process)."""
    import resource

    signal.setitimer(signal.ITIMER_PROF, SLICE_CPU_SECONDS)
    used = resource.getrusage(resource.RUSAGE_SELF)
    limit = int(used.ru_utime + used.ru_stime + SLICE_CPU_SECONDS) + SLICE_CPU_HARD_SECONDS
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (limit, HOST_CPU_SECONDS))
    except (ValueError, OSError):
        pass  # past the hard limit: the kernel ends the process anyway


def host_main(
    memory_bytes: int = HOST_MEMORY_BYTES, spin_seconds: float = HOST_SPIN_SECONDS
) -> None:
    """The host process: limit itself, then answer requests on stdin until it closes."""
    import greenlet

    requests = FrameReader(sys.stdin.fileno())
    replies = sys.stdout.fileno()
    sys.stdout = sys.stderr  # nothing but frames may reach the parent's pipe
    table = ProgramTable()

    def on_cpu_alarm(_signum: int, _frame: Any) -> None:
        # Only interrupt program code (a greenlet with a parent), never the host's own loop.
        rt = table.current
        if rt is not None and greenlet.getcurrent().parent is not None:
            rt.stop_signal = ("cpu_time_exceeded", "used too much CPU time in one tick", "failed")
            rt.limit = 0
            raise ProgramStopped(*rt.stop_signal)

    table.arm = _arm_slice
    table.disarm = lambda: signal.setitimer(signal.ITIMER_PROF, 0)
    signal.signal(signal.SIGPROF, on_cpu_alarm)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    limit_resources(memory_bytes)
    spin = SpinWindow(spin_seconds)
    replied = time.perf_counter()
    while True:
        try:
            msg = requests.read(spin=spin.next)
        except (EOFError, OSError):
            return
        spin.observe(time.perf_counter() - replied)
        try:
            if msg.get("op") == "run":
                for row in table.run(msg):
                    write_frame(replies, row)
            else:
                write_frame(replies, table.handle(msg))
        except MemoryError:
            error = {"code": "out_of_memory", "message": "host out of memory"}
            write_frame(replies, {"ok": False, "error": error})
        replied = time.perf_counter()


if __name__ == "__main__":
    host_main(
        int(sys.argv[1]) if len(sys.argv) > 1 else HOST_MEMORY_BYTES,
        float(sys.argv[2]) if len(sys.argv) > 2 else HOST_SPIN_SECONDS,
    )
