"""`serve --async-mode eventlet` (opt-in): the fresh interpreter patched first, and Ctrl-C.

eventlet must patch the standard library before anything imports threading, Flask or
Socket.IO; by the time `serve` runs, `asiworld`'s command table has imported all of them (and
patching then prints tracebacks for every Werkzeug LocalProxy and leaves existing locks
unpatched). So eventlet mode starts a fresh interpreter in place of this one (same process id,
so Ctrl-C and exit codes are unchanged) that patches first, then runs `serve` again.

Everything is patched but `os` and `subprocess`. The program host (app/programs/host.py) is a
subprocess spoken to with os.write / os.read on its pipes: eventlet's green os.write retries a
broken pipe forever (it swallows EPIPE), so a host that died would freeze the world clock for
good instead of being restarted, and green subprocess makes those pipes non-blocking, where the
plain os.write would fail on a full pipe. `select` stays green, so waiting for the host's reply
still lets the server's green threads run.

Only the world's thread ever reads a program host's pipe, but a pipe closed with the plain
os.close leaves eventlet's hub a listener on its descriptor number; the next host's pipe that
reuses the number then counts as a "second simultaneous read" and the request failed with a
500 (seen after program hosts were killed). So the hub's one-reader check is turned off.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

from asiworld.server.settings import ServerSettings

EVENTLET_PATCH = {"os": False, "subprocess": False}
_EVENTLET_BOOT = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); "
    f"import eventlet; eventlet.monkey_patch(**{EVENTLET_PATCH!r}); "
    "import eventlet.debug; eventlet.debug.hub_prevent_multiple_readers(False); "
    "from asiworld.cli import main; sys.exit(main(sys.argv[1:]))"
)
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def patched_by_eventlet() -> bool:
    if "eventlet" not in sys.modules:  # not imported: certainly not patched (and no warning)
        return False
    from eventlet import patcher

    return patcher.is_monkey_patched("thread")


def serve_argv(settings: ServerSettings) -> list[str]:
    """The `serve` command line that gives back these settings (whatever the environment says:
    the command line comes first)."""
    s = settings
    argv = ["serve", "--host", s.host, "--port", str(s.port), "--speed", repr(s.speed)]
    argv += ["--agents", ",".join(s.agents), "--data-dir", str(s.data_dir)]
    argv += ["--snapshot-every", str(s.snapshot_every), "--async-mode", s.async_mode]
    argv += ["--max-characters", str(s.max_characters)]
    argv += ["--max-connections", str(s.max_connections)]
    argv += ["--programs-kept", str(s.programs_kept)]
    argv += ["--programs-memory", str(s.programs_memory)]
    argv += ["--program-memory", str(s.program_memory)]
    if s.seed is not None:
        argv += ["--seed", str(s.seed)]
    switches = (("--ephemeral", s.ephemeral), ("--fsync", s.fsync), ("--new", s.new),
                ("--no-record", s.no_record), ("--frontend", s.frontend))
    argv += [flag for flag, on in switches if on]
    for flag, value in (
        ("--admin-token", s.admin_token),
        ("--spectator-token", s.spectator_token),
        ("--join-token", s.join_token),
        ("--message-queue", s.message_queue),
        ("--study", s.study),
        ("--out", s.out),
        ("--record-dir", s.record_dir),
    ):
        if value is not None:
            argv += [flag, str(value)]
    for folder in s.replays:
        argv += ["--replays", str(folder)]
    return argv


def restart_patched_first(settings: ServerSettings) -> None:
    """Replace this interpreter by one that patches first and serves these settings; does
    not return."""
    warn = [f"-W{option}" for option in sys.warnoptions]  # keep -W choices across the restart
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(
        sys.executable,
        [sys.executable, *warn, "-c", _EVENTLET_BOOT, _PACKAGE_ROOT, *serve_argv(settings)],
    )


def stop_on_ctrl_c_in_main_greenlet() -> None:
    """Under eventlet the world clock and every request are green threads of the main thread, so
    Python's KeyboardInterrupt lands in whichever one runs when Ctrl-C comes: in the clock it
    would end the world thread and leave the server serving a frozen world. Instead it is
    always thrown into the main greenlet, which stops the server and then the world."""
    import greenlet
    from eventlet import hubs

    main = greenlet.getcurrent()

    def on_sigint(_signum: int, _frame: Any) -> None:
        if greenlet.getcurrent() is main:
            raise KeyboardInterrupt
        hubs.get_hub().schedule_call_global(0, main.throw, KeyboardInterrupt)

    signal.signal(signal.SIGINT, on_sigint)
