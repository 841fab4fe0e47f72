"""Ctrl-C for a command that serves until stopped, shared by the command line (before serve
imports anything) and the server (asiworld.server.process, when it starts)."""

from __future__ import annotations

import signal
import threading


def restore_sigint() -> None:
    """SIGINT stops the process even when its parent ignored it (a background job of a
    non-interactive shell inherits that, and Python then leaves it ignored). Only the main
    thread sets handlers: a server started on another thread, in tests, keeps the process's."""
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
