"""One server per data folder: `asiworld serve` holds an OS lock on DATA_DIR/serve.lock.

A second server on the same folder would load the world the first is still writing and then
fail on the port (or, on another port, run a second copy of the world into the same database).
The lock is fcntl.flock on an open file: the kernel drops it when the holder's process ends in
any way (Ctrl-C, a crash, SIGKILL), so a stale lock never has to be cleaned up by hand. The file
holds the holder's pid, only to name it in the refusal.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from asiworld.engine import codes

LOCK_NAME = "serve.lock"


class DataInUse(Exception):
    """The folder is locked by another live process; `message` names the folder and its pid."""

    code = codes.DATA_IN_USE

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class DataLock:
    """The held lock on one data folder; release() (or the process's end) lets it go."""

    def __init__(self, folder: Path, fd: int) -> None:
        self.folder = folder
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None


def acquire(data_dir: str | os.PathLike) -> DataLock:
    """Lock `data_dir` for this process, or raise DataInUse at once (never waits)."""
    folder = Path(data_dir).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)  # O_CLOEXEC by default in Python
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _read_pid(fd)
        os.close(fd)
        who = f"another asiworld serve (pid {holder})" if holder else "another asiworld serve"
        raise DataInUse(
            f"{folder} is in use by {who}: stop that server first, or use another --data-dir"
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return DataLock(folder, fd)


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
