"""The serving process: checks before anything starts, the data dir's lock, the world's start,
the serve loop, and the clean stop (Ctrl-C) that closes the replay and writes a last snapshot.

`serve(settings, open_study)` is `asiworld serve` once its flags are settings
(asiworld.server.commands). `serve --study` needs the study package, which sits above the
server: the command table hands its opener in, so the server imports no study.
"""

from __future__ import annotations

import faulthandler
import gc
import importlib.util
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from asiworld.arguments import refuse as fail
from asiworld.engine import codes
from asiworld.server import auth, datalock, eventlet_mode, services, socketio
from asiworld.server.connections import serve_bounded
from asiworld.server.extensions import FRONTEND, RECORDING
from asiworld.server.fanout import QueueUnavailable, check_queue
from asiworld.server.frontend import create_frontend_app
from asiworld.server.lifetime import release, stop_world
from asiworld.server.persistence import DB_NAME, StoreError
from asiworld.server.settings import ServerSettings
from asiworld.server.wsgi import build_app
from asiworld.signals import restore_sigint

# asiworld.study.live.open_study: a LiveStudy for these settings, or a CodedError (exit 2)
StudyOpener = Callable[[ServerSettings], Any]

# Settings that only mean something where the world runs: a front end refuses them.
WORLD_ONLY = ("seed", "agents", "study", "out", "new", "spectator_token", "join_token")


def _signals() -> None:
    """How a server is stopped and looked into (docs/operations.md, *A server that hangs*):
    - SIGINT (Ctrl-C) stops it cleanly even when its parent ignored SIGINT (a background job of
      a non-interactive shell inherits that, and Python then leaves it ignored: seen in CI, a
      front end that never stopped);
    - SIGTERM (a supervisor's stop) stops it the same way, with the final snapshot;
    - SIGUSR1 writes every thread's stack to stderr and the server goes on.
    Only the main thread sets handlers (a server started on another thread, in tests, keeps
    the process's)."""
    if threading.current_thread() is not threading.main_thread():
        return
    restore_sigint()
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        faulthandler.register(signal.SIGUSR1, file=sys.__stderr__, all_threads=True)
    except (AttributeError, ValueError, OSError):
        pass  # no real stderr to write to (an embedding host's): no dump


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def serve(settings: ServerSettings, open_study: StudyOpener | None = None) -> int:
    """Run the world these settings describe until Ctrl-C; the exit code."""
    _signals()
    if settings.frontend:
        return serve_frontend(settings)
    if settings.message_queue is not None:
        try:
            check_queue(settings.message_queue)
        except QueueUnavailable as exc:
            return fail(exc.code, exc.message)
    if settings.new and settings.ephemeral:
        return fail(codes.BAD_ARGUMENT, "--new and --ephemeral: an ephemeral world is always new")
    if settings.out is not None and settings.study is None:
        return fail(codes.BAD_ARGUMENT, "--out names a study's folder: give --study FILE too")
    if settings.figures is not None and settings.study is None:
        return fail(codes.BAD_ARGUMENT, "--figures names a study's figure files: give --study "
                    "FILE too")
    if settings.grace_nights and settings.study is not None:
        return fail(codes.BAD_ARGUMENT, "--grace-nights is the live world's: a study's world "
                    "plays by its own rules, the same on study run and on the server")
    live_study = None
    if settings.study is not None:
        if open_study is None:
            return fail(codes.STUDIES_UNAVAILABLE, "this command table has no studies")
        live_study = open_study(settings)  # a CodedError (a bad study, --out in use) is exit 2
        # the study brings its world and its seats
        settings = replace(settings, ephemeral=True, agents=())
    if settings.world_dir is None:
        return _serve_world(settings, live_study)

    try:  # first: a second server must not even read the world the first one is running
        lock = datalock.acquire(settings.world_dir)
    except datalock.DataInUse as exc:
        return fail(exc.code, exc.message)
    try:
        return _serve_world(settings, live_study)
    finally:
        lock.release()


def _serve_world(settings: ServerSettings, live_study: Any) -> int:
    problem = port_problem(settings.host, settings.port)
    if problem:
        return fail(codes.PORT_UNAVAILABLE, problem)
    data_dir = settings.world_dir
    if data_dir is not None and not settings.new:
        if settings.agents and (data_dir / DB_NAME).exists():
            asked = sorted(settings.agents)
            saved = saved_agents(data_dir / DB_NAME)
            if saved != asked:  # the same command again (a supervisor's restart) resumes
                shown = ", ".join(saved) if saved else "none"
                return fail(
                    codes.WORLD_EXISTS,
                    f"{data_dir} holds a saved world whose built-in agents are {shown}, not "
                    f"{', '.join(asked)}: it resumes with its own characters, so --agents "
                    "would be ignored. Give the same --agents (or none) to resume it, --new to "
                    "start a fresh world with these agents (the saved one is moved aside, not "
                    "deleted), or another --data-dir",
                )
            print(f"{data_dir} holds a saved world with these agents: resuming it",
                  file=sys.stderr)
    if settings.async_mode == "eventlet":
        if importlib.util.find_spec("eventlet") is None:
            print(
                "asiworld serve: eventlet is not installed (pip install eventlet)", file=sys.stderr
            )
            return 2
        if not eventlet_mode.patched_by_eventlet():
            eventlet_mode.restart_patched_first(settings)  # does not return
        eventlet_mode.stop_on_ctrl_c_in_main_greenlet()

    _quiet_logging()
    given_admin_token = settings.admin_token
    settings = replace(
        settings,
        admin_token=settings.admin_token or auth.new_token(),
        record_dir=record_dir(settings),
    )
    runner = store = app = None
    if settings.new and data_dir is not None:
        aside = move_world_aside(data_dir)
        if aside is not None:
            print(f"  the saved world was moved to {aside}", flush=True)
    try:  # Ctrl-C may come at any moment, even before the server listens
        app, store = build_app(settings, live_study)
        runner = services(app).runner
        if live_study is not None:
            print(f"  study {settings.study}: horizon tick {live_study.horizon}, results in "
                  f"{live_study.out} (watch {'/evaluation'})", flush=True)
        # What start-up built (content, the world's arrays, the app: ~74,000 objects) is kept for
        # good; frozen, a full garbage collection no longer walks it (63 ms -> under 1 ms here),
        # so requests and ticks do not stall behind one.
        gc.freeze()
        start_tick = runner.world.tick  # read before the clock runs: it may step at once
        if live_study is not None:
            live_study.start()
        else:
            runner.start()
        url = settings.url + "/"
        seed = app.config["SEED"]
        print(f"ASIWorld is live (seed {seed}, {settings.speed:g} ticks/s): open {url}",
              flush=True)
        print(f"  spectate {url}live   play {url}play   Ctrl-C stops", flush=True)
        if store is not None:
            print(f"  world saved in {store.dir} (tick {start_tick})", flush=True)
        recording = app.extensions.get(RECORDING)
        if recording is not None:
            print(f"  recording the replay to {recording.path}", flush=True)
        if not given_admin_token:
            print(f"  admin token: {settings.admin_token}", flush=True)
        _listen(app, settings)
    except KeyboardInterrupt:
        pass
    except (ValueError, StoreError) as exc:  # an unknown --agents name; another seed's data dir
        print(f"asiworld serve: {exc}", file=sys.stderr)
        return 2
    finally:
        if app is not None:
            stop_world(app)
        if store is not None and runner is not None:
            try:
                store.snapshot_now()  # a clean stop resumes without replaying
            except Exception:  # the inputs are saved anyway
                logging.getLogger(__name__).exception("final snapshot failed")
            store.close()
        if app is not None:
            release(app)
    tick = runner.world.tick if runner is not None else 0
    print(f"\nstopped at tick {tick}", flush=True)
    return 0


def _listen(app: Any, settings: ServerSettings) -> None:
    """Serve requests until Ctrl-C."""
    if settings.async_mode == "threading":
        serve_bounded(app, settings.host, settings.port, settings.max_connections)
    else:  # eventlet: the green-thread pool is the bound

        socketio.run(
            app,
            host=settings.host,
            port=settings.port,
            log_output=False,
            use_reloader=False,
            max_size=settings.max_connections,
        )


def _quiet_logging() -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no per-request noise
    # a study's PDF figures subset their fonts: fontTools logs a line per table at INFO
    logging.getLogger("fontTools").setLevel(logging.WARNING)


def serve_frontend(settings: ServerSettings) -> int:
    """`serve --frontend`: the spectate page and Socket.IO for a world in another process."""
    if settings.message_queue is None:
        return fail(codes.BAD_ARGUMENT, "--frontend needs --message-queue URL: the world's Redis queue")
    given = [name for name in WORLD_ONLY if getattr(settings, name) not in (None, False, "", ())]
    if given:
        flags = ", ".join("--" + name.replace("_", "-") for name in given)
        return fail(codes.BAD_ARGUMENT, f"{flags}: a front end holds no world; give these to the "
                    "world's own `asiworld serve --message-queue`")
    if settings.async_mode != "threading":
        return fail(codes.BAD_ARGUMENT, "--frontend runs in the threading mode only")
    problem = port_problem(settings.host, settings.port)
    if problem:
        return fail(codes.PORT_UNAVAILABLE, problem)
    try:
        check_queue(settings.message_queue)
    except QueueUnavailable as exc:
        return fail(exc.code, exc.message)

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    app = create_frontend_app(settings.message_queue)
    gc.freeze()
    print(f"ASIWorld front end for {settings.message_queue}: spectate {settings.url}/live"
          "   Ctrl-C stops", flush=True)
    try:
        serve_bounded(app, settings.host, settings.port, settings.max_connections)
    except KeyboardInterrupt:
        pass
    finally:
        app.extensions[FRONTEND].close()
    print("\nstopped", flush=True)
    return 0


def port_problem(host: str, port: int) -> str | None:
    """Why the server could not listen on host:port, checked before anything is printed."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        return f"cannot listen on {host}: {exc.strerror or exc}"
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server sets it
        try:
            probe.bind(address)
        except OSError as exc:
            return f"cannot listen on {host}:{port}: {exc.strerror or exc} (try another --port)"
    return None


def record_dir(settings: ServerSettings) -> Path | None:
    """Where `serve` records the live world (None: --no-record)."""
    if settings.no_record or settings.study is not None:  # a study records into its own folder
        return None
    if settings.record_dir is not None:
        return settings.record_dir
    if settings.world_dir is not None:
        return settings.world_dir / "replays"
    import tempfile

    return Path(tempfile.mkdtemp(prefix="asiworld-live-"))


def saved_agents(path: Path) -> list[str] | None:
    """The configuration names of a saved world's built-in agents, sorted (None: unreadable)."""
    import json
    import sqlite3

    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'builtin'").fetchone()
        finally:
            db.close()
        seats = json.loads(row[0]) if row else []
        return sorted(str(seat["config"]) for seat in seats)
    except (sqlite3.Error, ValueError, KeyError, TypeError):
        return None


def move_world_aside(data_dir: str | os.PathLike) -> Path | None:
    """For --new: the saved world's files go to DATA_DIR/previous-<time>/; returns that folder
    (None when there was no world)."""
    import time

    folder = Path(data_dir)
    files = sorted(folder.glob(DB_NAME + "*"))  # the database and its -wal / -shm
    if not files:
        return None
    aside = folder / time.strftime("previous-%Y%m%d-%H%M%S")
    n = 1
    while aside.exists():
        n += 1
        aside = folder / time.strftime(f"previous-%Y%m%d-%H%M%S-{n}")
    aside.mkdir()
    for file in files:
        file.rename(aside / file.name)
    return aside
