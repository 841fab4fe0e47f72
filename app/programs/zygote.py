"""Program hosts forked from one pre-imported process, so each program does not pay for a Python
start-up and the host's imports (about 0.15 s of CPU each; a 300-minute study starts hundreds).

The zygote (`python -m asiworld.programs.zygote FD`) imports the host's code and waits. For each
host, the caller makes three pipes (the host's stdin, its stdout, a status pipe) and hands the
host's ends to the zygote over a Unix socket (SCM_RIGHTS); the zygote forks, and the child puts
the pipes on fds 0 and 1, closes everything else and runs `host_main`, which limits itself
exactly as a host started with `python -m asiworld.programs.host` does. So a program still runs
alone in its own process under its own limits: the zygote only saves the start-up. It never
runs a program itself, holds no world data, and is single-threaded, so forking it is safe.

The zygote writes each child's pid on its status pipe, and when it reaps the child its exit code
(as `subprocess` gives it: `-N` for a signal), then closes the pipe. `ForkedProcess` reads that,
and offers the part of `subprocess.Popen` the host uses (`pid`, `poll`, `wait`, `kill`,
`send_signal`, `stdin`, `stdout`). The children die with the zygote (PR_SET_PDEATHSIG), and the
zygote ends when its caller closes the socket or dies.
"""

from __future__ import annotations

import errno
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from typing import Any

from asiworld.programs import host
from asiworld.programs.host import ZygoteGone

_STATUS = struct.Struct(">i")
_SPAWN = struct.Struct(">qd")  # memory bytes, spin seconds
_KILLED_WITH_ZYGOTE = -signal.SIGKILL


class Zygote:
    """The caller's side: one zygote process and the socket to it."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "asiworld.programs.zygote", str(theirs.fileno())],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env, cwd=root,
                close_fds=True, pass_fds=(theirs.fileno(),),
            )
        finally:
            theirs.close()
        self.socket = ours
        self.lock = threading.Lock()

    def spawn(self, memory_bytes: int, spin: float) -> ForkedProcess:
        """A new host process (its pid comes later, on its status pipe)."""
        host_in, to_host = os.pipe()
        from_host, host_out = os.pipe()
        status_in, status_out = os.pipe()
        theirs = [host_in, host_out, status_out]
        try:
            with self.lock:
                if self.process.poll() is not None:
                    raise ZygoteGone("the zygote has ended")
                socket.send_fds(self.socket, [_SPAWN.pack(memory_bytes, spin)], theirs)
        except OSError as exc:
            for fd in (to_host, from_host, status_in):
                os.close(fd)
            raise ZygoteGone(str(exc)) from exc
        finally:
            for fd in theirs:
                os.close(fd)
        return ForkedProcess(to_host, from_host, status_in)

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        """End the zygote (its remaining children die with it)."""
        self.socket.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class ForkedProcess:
    """A host forked by the zygote, as much of `subprocess.Popen` as ProcessHost uses."""

    def __init__(self, to_host: int, from_host: int, status: int) -> None:
        self.stdin = open(to_host, "wb", buffering=0)  # noqa: SIM115 (closed by ProcessHost)
        self.stdout = open(from_host, "rb", buffering=0)  # noqa: SIM115
        self._status = status
        self._bytes = b""
        self._pid: int | None = None
        self.returncode: int | None = None

    @property
    def pid(self) -> int:
        while self._pid is None and self.returncode is None:
            self._read_status(None)
        return self._pid if self._pid is not None else -1

    def poll(self) -> int | None:
        if self.returncode is None:
            self._read_status(0.0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        end = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            left = None if end is None else end - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired("program host", timeout or 0)
            self._read_status(left)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        pid = self.pid
        if self.poll() is None and pid > 0:  # not reaped yet: the pid is still the host's
            try:
                os.kill(pid, signum)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def _read_status(self, timeout: float | None) -> None:
        if self._status < 0:
            return
        ready, _, _ = select.select([self._status], [], [], timeout)
        if not ready:
            return
        chunk = os.read(self._status, 64)
        if not chunk:  # the zygote closed it without a code: it died, and the host with it
            os.close(self._status)
            self._status = -1
            self.returncode = _KILLED_WITH_ZYGOTE
            return
        self._bytes += chunk
        while len(self._bytes) >= _STATUS.size:
            (value,) = _STATUS.unpack_from(self._bytes)
            self._bytes = self._bytes[_STATUS.size:]
            if self._pid is None:
                self._pid = value
            else:
                self.returncode = value
                os.close(self._status)
                self._status = -1
                return

    def __del__(self) -> None:
        if getattr(self, "_status", -1) >= 0:
            os.close(self._status)


# --- the zygote process ------------------------------------------------------------------------

def zygote_main(fd: int) -> None:
    """Import the host, then fork one host per request on the socket `fd` until it closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the caller's to handle
    control = socket.socket(fileno=fd)
    wake_in, wake_out = os.pipe()
    os.set_blocking(wake_out, False)
    signal.set_wakeup_fd(wake_out)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # wakes the select below
    children: dict[int, int] = {}  # pid -> its status pipe
    while True:
        _reap(children)
        try:
            ready, _, _ = select.select([control, wake_in], [], [])
        except InterruptedError:
            continue
        if wake_in in ready:
            os.read(wake_in, 512)
        if control not in ready:
            continue
        try:
            data, fds, _, _ = socket.recv_fds(control, _SPAWN.size, 3)
        except OSError:
            data, fds = b"", []
        if not data:
            break  # the caller closed the socket or died
        memory_bytes, spin = _SPAWN.unpack(data)
        host_in, host_out, status = fds
        pid = os.fork()
        if pid == 0:
            _become_host(host, host_in, host_out, memory_bytes, spin)
        os.close(host_in)
        os.close(host_out)
        children[pid] = status
        _write_status(status, pid)
    for pid in list(children):  # the caller is gone: so are its hosts
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    while children:
        try:
            pid, code = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        _report(children, pid, code)


def _reap(children: dict[int, int]) -> None:
    while children:
        try:
            pid, code = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _report(children, pid, code)


def _report(children: dict[int, int], pid: int, code: int) -> None:
    status = children.pop(pid, None)
    if status is not None:
        _write_status(status, os.waitstatus_to_exitcode(code))
        os.close(status)


def _write_status(fd: int, value: int) -> None:
    try:
        os.write(fd, _STATUS.pack(value))
    except OSError as exc:  # the caller closed its end: nobody is waiting for this one
        if exc.errno != errno.EPIPE:
            raise


def _become_host(host: Any, host_in: int, host_out: int, memory_bytes: int, spin: float) -> None:
    """In the forked child: the pipes on 0 and 1, nothing else open, default signals, then the
    host's own loop (which limits this process). Never returns."""
    code = 1
    try:
        _die_with_parent()
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.dup2(host_in, 0)
        os.dup2(host_out, 1)
        os.closerange(3, _fd_limit())
        host.host_main(memory_bytes, spin)
        code = 0
    except BaseException:  # noqa: BLE001 - a child must never return into the zygote's loop
        import traceback

        traceback.print_exc()
    finally:
        os._exit(code)


def _fd_limit() -> int:
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else 65536


def _die_with_parent() -> None:
    """PR_SET_PDEATHSIG: the kernel ends this host when the zygote ends (Linux)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


if __name__ == "__main__":
    zygote_main(int(sys.argv[1]))
