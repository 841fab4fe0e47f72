"""`asiworld serve`: the live world in the browser; `wsgi_app()` for gunicorn.

The world is kept in `--data-dir` (default `./data`): a server started again on the same
directory resumes where the last one stopped (see docs/operations.md).
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

from asiworld import arguments as checked
from asiworld.engine import codes
from asiworld.programs.limits import (
    ENDED_KEPT,
    HOST_MEMORY_BYTES,
    MIN_PROGRAM_MEMORY,
    PROGRAMS_MEMORY_BYTES,
)

DEFAULT_DATA_DIR = "data"
DEFAULT_MAX_CONNECTIONS = 256  # threads for connections (app/server/connections.py)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "serve",
        help="run a live world and serve the browser pages",
        description="Run a live world in real time and serve the spectate and play pages. "
        "The world is saved in --data-dir and resumed from it on the next start.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=checked.port, default=8000)
    p.add_argument(
        "--seed", type=checked.count, default=None, help="world seed (default 7, or the saved one)"
    )
    p.add_argument("--speed", type=checked.positive_number, default=10.0, help="ticks per real second")
    p.add_argument(
        "--agents",
        default="",
        help="comma-separated built-in configurations to populate a new world, e.g. forager,planner",
    )
    p.add_argument(
        "--data-dir",
        type=checked.writable_dir,
        default=os.environ.get("ASIWORLD_DATA_DIR", DEFAULT_DATA_DIR),
        help="directory of the saved world (default ./data; resumed when it holds one)",
    )
    p.add_argument("--ephemeral", action="store_true", help="keep nothing on disk (no --data-dir)")
    p.add_argument(
        "--new",
        action="store_true",
        help="start a fresh world even when --data-dir holds one; the saved world is moved "
        "aside to DATA_DIR/previous-YYYYMMDD-HHMMSS, never deleted",
    )
    p.add_argument(
        "--replays",
        type=checked.existing_dir,
        action="append",
        default=None,
        metavar="DIR",
        help="a folder of replays for /replays (repeatable; default: the sample replays)",
    )
    p.add_argument(
        "--study",
        type=Path,
        default=None,
        metavar="FILE",
        help="run this study on the live server (one seed): /evaluation counts down to its "
        "horizon, where the world stops and --out gets what `asiworld study run` writes; "
        "nothing is saved in --data-dir",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="with --study: the study's folder (default ./STUDY-live-YYYYMMDD-HHMMSS)",
    )
    p.add_argument(
        "--record-dir",
        type=checked.writable_dir,
        default=None,
        metavar="DIR",
        help="where the live world's replay is written as it runs, listed in /replays "
        "(default DATA_DIR/replays; with --ephemeral a new folder in the system's temp folder)",
    )
    p.add_argument(
        "--no-record", action="store_true", help="do not record the live world's replay"
    )
    p.add_argument(
        "--snapshot-every", type=checked.positive_int, default=600, help="ticks between snapshots (default 600)"
    )
    p.add_argument(
        "--fsync",
        action="store_true",
        help="flush every commit to the disk (survives power loss, slower); default survives "
        "a killed process",
    )
    p.add_argument(
        "--admin-token", default=None, help="token for /admin (default: generated and printed)"
    )
    p.add_argument(
        "--spectator-token",
        default=None,
        help="token needed to spectate (default: spectating is public)",
    )
    p.add_argument(
        "--join-token",
        default=os.environ.get("ASIWORLD_JOIN_TOKEN"),
        help="token a join must carry (a closed world; default ASIWORLD_JOIN_TOKEN, else open)",
    )
    p.add_argument(
        "--max-characters",
        default=os.environ.get("ASIWORLD_MAX_CHARACTERS", "500"),
        help="joins are refused once the world holds this many characters (default 500)",
    )
    p.add_argument(
        "--programs-kept",
        default=os.environ.get("ASIWORLD_PROGRAMS_KEPT", str(ENDED_KEPT)),
        help="ended programs kept per character, its newest (older ones are forgotten; "
        f"default {ENDED_KEPT})",
    )
    p.add_argument(
        "--programs-memory",
        default=os.environ.get("ASIWORLD_PROGRAMS_MEMORY", str(PROGRAMS_MEMORY_BYTES >> 20)),
        metavar="MiB",
        help="memory all programs may hold together; past it the programs holding the most "
        f"are ended out_of_memory (default {PROGRAMS_MEMORY_BYTES >> 20})",
    )
    p.add_argument(
        "--program-memory",
        default=os.environ.get("ASIWORLD_PROGRAM_MEMORY", str(HOST_MEMORY_BYTES >> 20)),
        metavar="MiB",
        help="address space of each program's process, at least "
        f"{MIN_PROGRAM_MEMORY >> 20} (default {HOST_MEMORY_BYTES >> 20})",
    )
    p.add_argument(
        "--max-connections",
        default=os.environ.get("ASIWORLD_MAX_CONNECTIONS", str(DEFAULT_MAX_CONNECTIONS)),
        help="concurrent connections (each a thread; WebSockets included) before new ones get "
        f"a 503 (default {DEFAULT_MAX_CONNECTIONS})",
    )
    p.add_argument(
        "--message-queue",
        default=os.environ.get("ASIWORLD_MESSAGE_QUEUE") or None,
        metavar="URL",
        help="a Redis URL (redis://127.0.0.1:6379/0): the world also publishes its frames there "
        "for --frontend processes (pip install 'asiworld[scale]'; docs/operations.md)",
    )
    p.add_argument(
        "--frontend",
        action="store_true",
        help="serve the spectate page and its Socket.IO clients for the world that publishes on "
        "--message-queue, holding no world itself",
    )
    p.add_argument(
        "--async-mode",
        choices=("threading", "eventlet"),
        default="threading",
        help="threading (default) or eventlet (opt-in; pip install asiworld[eventlet])",
    )
    p.set_defaults(func=serve)


def shown_host(host: str) -> str:
    """The host to print in a URL for a browser: a loopback or every-address bind is opened
    as localhost."""
    return "localhost" if host in ("127.0.0.1", "0.0.0.0") else host


def count_option(raw: Any, flag: str) -> int:
    """A whole number of at least 1 from the command line or the environment; raises
    validation.Invalid (`bad_max_characters` for --max-characters) for anything else."""
    from asiworld.server.validation import Invalid

    try:
        value = int(str(raw).strip())
    except ValueError:
        value = 0
    if value < 1:
        code = "bad_" + flag.lstrip("-").replace("-", "_")
        raise Invalid(code, f"{flag} is a whole number of at least 1, not {raw!r}")
    return value


def program_memory_option(raw: Any) -> int:
    """--program-memory in MiB: a program's process needs room for its interpreter."""
    from asiworld.server.validation import Invalid

    value = count_option(raw, "--program-memory")
    if value < MIN_PROGRAM_MEMORY >> 20:
        raise Invalid(
            codes.BAD_PROGRAM_MEMORY,
            f"--program-memory is at least {MIN_PROGRAM_MEMORY >> 20} MiB (a program's process "
            f"needs room for its interpreter), not {raw!r}",
        )
    return value


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


# `serve --study` is the study package's (asiworld.study.live.open_study), which sits above the
# server; the command table (asiworld.cli) hands it over here, so the server imports no study.
OPEN_STUDY: Any = None


def build_app(settings: dict[str, Any]) -> tuple[Any, Any]:
    """The app for these settings, with its world store attached when there is a data dir.

    Returns (app, store or None). Raises StoreError when the data dir holds a world of another
    seed than the one asked for, ValueError for an unknown built-in configuration."""
    from asiworld.server import create_app
    from asiworld.server.persistence import StoreError, WorldStore

    live_study = settings.get("study")  # an asiworld.study.live.LiveStudy
    if live_study is not None:  # its own world on the server's clock, store and replay (in --out)
        config = {**_config(settings, 7, [], False), **live_study.prepare()}
        config["REPLAY_DIRS"] = [*_replay_dirs(settings), str(live_study.out)]
        config.pop("RECORD_DIR", None)
        app = create_app(config)
        live_study.attach(app)
        return app, None

    store = None
    seed = settings.get("seed")
    agents = list(settings.get("agents") or [])
    resumed = False
    if settings.get("data_dir"):
        store = WorldStore(
            settings["data_dir"],
            fsync=bool(settings.get("fsync")),
            snapshot_every=int(settings.get("snapshot_every") or 600),
        )
        resumed = store.exists()
        if resumed:
            saved = store.meta("seed")
            if seed is not None and seed != saved:
                raise StoreError(
                    f"{store.dir} holds a world of seed {saved}, not {seed}: "
                    "leave out --seed to resume it, or use another --data-dir"
                )
            seed = saved
    seed = 7 if seed is None else seed
    config = _config(settings, seed, agents, resumed)
    if store is not None:
        config["WORLD_FACTORY"] = store.world_factory
        if resumed:
            config["WORLD_SIZE"] = store.meta("size")
    app = create_app(config)
    if store is not None:
        app.extensions["asiworld_store"] = store
        store.attach(app)
    return app, store


def _replay_dirs(settings: dict[str, Any]) -> list[str]:
    from asiworld.server.replays import DEFAULT_DIR

    return [str(d) for d in settings.get("replays") or [DEFAULT_DIR]]


def _config(settings: dict[str, Any], seed: int, agents: list[str], resumed: bool) -> dict:
    config = {
        "SEED": seed,
        "SPEED": settings.get("speed", 10.0),
        "AGENTS": [] if resumed else agents,  # a resumed world brings its own
        "DATA_DIR": settings.get("data_dir"),
        "ASYNC_MODE": settings.get("async_mode", "threading"),
        "ADMIN_TOKEN": settings.get("admin_token"),
        "SPECTATOR_TOKEN": settings.get("spectator_token"),
        "JOIN_TOKEN": settings.get("join_token"),
        "MAX_CHARACTERS": count_option(settings.get("max_characters") or 500, "--max-characters"),
        "PROGRAMS_KEPT": count_option(
            settings.get("programs_kept") or ENDED_KEPT, "--programs-kept"
        ),
        "PROGRAMS_MEMORY": count_option(
            settings.get("programs_memory") or PROGRAMS_MEMORY_BYTES >> 20, "--programs-memory"
        ) << 20,
        "PROGRAM_MEMORY": program_memory_option(
            settings.get("program_memory") or HOST_MEMORY_BYTES >> 20
        ) << 20,
    }
    if settings.get("message_queue"):
        config["MESSAGE_QUEUE"] = settings["message_queue"]
    if settings.get("replays"):
        config["REPLAY_DIRS"] = [str(d) for d in settings["replays"]]
    if settings.get("record_dir"):
        config["RECORD_DIR"] = str(settings["record_dir"])
    return config


def wsgi_app() -> Any:
    """For production servers: `gunicorn -k gthread --threads 50 -w 1 -b 127.0.0.1:8000
    'asiworld.server.commands:wsgi_app()'`. Settings come from ASIWORLD_* environment variables
    (docs/operations.md); the admin token is required here (ASIWORLD_ADMIN_TOKEN)."""
    env = os.environ
    admin_token = env.get("ASIWORLD_ADMIN_TOKEN")
    if not admin_token:
        raise RuntimeError("set ASIWORLD_ADMIN_TOKEN: the admin token for /admin")
    settings = {
        "seed": int(env["ASIWORLD_SEED"]) if env.get("ASIWORLD_SEED") else None,
        "speed": float(env.get("ASIWORLD_SPEED", "10")),
        "agents": [a.strip() for a in env.get("ASIWORLD_AGENTS", "").split(",") if a.strip()],
        "data_dir": env.get("ASIWORLD_DATA_DIR", DEFAULT_DATA_DIR) or None,
        "snapshot_every": int(env.get("ASIWORLD_SNAPSHOT_EVERY", "600")),
        "record_dir": env.get("ASIWORLD_RECORD_DIR")
        or str(Path(env.get("ASIWORLD_DATA_DIR", DEFAULT_DATA_DIR) or ".") / "replays"),
        "fsync": env.get("ASIWORLD_FSYNC", "") not in ("", "0", "false"),
        "admin_token": admin_token,
        "spectator_token": env.get("ASIWORLD_SPECTATOR_TOKEN") or None,
        "join_token": env.get("ASIWORLD_JOIN_TOKEN") or None,
        "max_characters": env.get("ASIWORLD_MAX_CHARACTERS", "500"),
        "programs_kept": env.get("ASIWORLD_PROGRAMS_KEPT", str(ENDED_KEPT)),
        "programs_memory": env.get("ASIWORLD_PROGRAMS_MEMORY") or None,
        "program_memory": env.get("ASIWORLD_PROGRAM_MEMORY") or None,
        "async_mode": env.get("ASIWORLD_ASYNC_MODE", "threading"),
        "message_queue": env.get("ASIWORLD_MESSAGE_QUEUE") or None,
    }
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if settings["message_queue"]:
        from asiworld.server.fanout import QueueUnavailable, check_queue

        try:
            check_queue(settings["message_queue"])
        except QueueUnavailable as exc:
            raise RuntimeError(f"ASIWORLD_MESSAGE_QUEUE: {exc.code}: {exc.message}") from None
    lock = None
    if settings["data_dir"]:
        from asiworld.server import datalock

        lock = datalock.acquire(settings["data_dir"])  # DataInUse: another server has it
    app, _store = build_app(settings)
    app.extensions["asiworld_data_lock"] = lock  # held for the process's life
    from asiworld.server import services

    gc.freeze()  # as in `serve`: start-up's objects out of the collector's sight
    services(app).runner.start()
    return app


def _port_problem(host: str, port: int) -> str | None:
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


def record_dir(args: argparse.Namespace, data_dir: str | None) -> str | None:
    """Where `serve` records the live world (None: --no-record)."""
    if args.no_record or args.study is not None:  # a study records into its own folder
        return None
    if args.record_dir is not None:
        return str(args.record_dir)
    if data_dir is not None:
        return str(Path(data_dir) / "replays")
    import tempfile

    return tempfile.mkdtemp(prefix="asiworld-live-")


def move_world_aside(data_dir: str | os.PathLike) -> Path | None:
    """For --new: the saved world's files go to DATA_DIR/previous-<time>/; returns that folder
    (None when there was no world)."""
    import time

    from asiworld.server.persistence import DB_NAME

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


def serve(args: argparse.Namespace) -> int:
    def fail(code: str, message: str) -> int:
        print(f"error: {code}: {message}", file=sys.stderr)
        return 2

    from asiworld.server.validation import Invalid

    try:  # before anything starts: a bad cap is the user's mistake, not a crash
        args.max_characters = count_option(args.max_characters, "--max-characters")
        args.max_connections = count_option(args.max_connections, "--max-connections")
        args.programs_kept = count_option(args.programs_kept, "--programs-kept")
        args.programs_memory = count_option(args.programs_memory, "--programs-memory")
        args.program_memory = program_memory_option(args.program_memory)
    except Invalid as exc:
        print(f"error: {exc.code}: {exc.message}", file=sys.stderr)
        return 2
    if args.frontend:
        return serve_frontend(args, fail)
    if args.message_queue is not None:
        from asiworld.server.fanout import QueueUnavailable, check_queue

        try:
            check_queue(args.message_queue)
        except QueueUnavailable as exc:
            return fail(exc.code, exc.message)
    if args.new and args.ephemeral:
        return fail(codes.BAD_ARGUMENT, "--new and --ephemeral: an ephemeral world is always new")
    if args.out is not None and args.study is None:
        return fail(codes.BAD_ARGUMENT, "--out names a study's folder: give --study FILE too")
    live_study = None
    if args.study is not None:
        if OPEN_STUDY is None:
            return fail(codes.STUDIES_UNAVAILABLE, "this command table has no studies")
        live_study = OPEN_STUDY(args)  # a CodedError (a bad study, --out in use) is exit 2
        args.ephemeral, args.agents = True, ""  # the study brings its world and its seats
    data_dir = None if args.ephemeral else args.data_dir
    if data_dir is None:
        return _serve_world(args, data_dir, fail, live_study)
    from asiworld.server import datalock

    try:  # first: a second server must not even read the world the first one is running
        lock = datalock.acquire(data_dir)
    except datalock.DataInUse as exc:
        return fail(exc.code, exc.message)
    try:
        return _serve_world(args, data_dir, fail, live_study)
    finally:
        lock.release()


def _serve_world(args: argparse.Namespace, data_dir: Path | None, fail: Any, live_study: Any) -> int:
    problem = _port_problem(args.host, args.port)
    if problem:
        return fail(codes.PORT_UNAVAILABLE, problem)
    if data_dir is not None and not args.new:
        from asiworld.server.persistence import DB_NAME

        if args.agents.strip() and (Path(data_dir) / DB_NAME).exists():
            asked = sorted(n.strip() for n in args.agents.split(",") if n.strip())
            saved = saved_agents(Path(data_dir) / DB_NAME)
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
    if args.async_mode == "eventlet":
        if importlib.util.find_spec("eventlet") is None:
            print(
                "asiworld serve: eventlet is not installed (pip install eventlet)", file=sys.stderr
            )
            return 2
        if not _patched_by_eventlet():
            _restart_patched_first(args)  # does not return
        _stop_on_ctrl_c_in_main_greenlet()

    from asiworld.server import auth, services, socketio
    from asiworld.server.persistence import StoreError

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no per-request noise
    # a study's PDF figures subset their fonts: fontTools logs a line per table at INFO
    logging.getLogger("fontTools").setLevel(logging.WARNING)
    agents = [name.strip() for name in args.agents.split(",") if name.strip()]
    admin_token = args.admin_token or auth.new_token()
    runner = store = None
    if args.new and data_dir is not None:
        aside = move_world_aside(data_dir)
        if aside is not None:
            print(f"  the saved world was moved to {aside}", flush=True)
    try:  # Ctrl-C may come at any moment, even before the server listens
        app, store = build_app(
            {
                "seed": args.seed,
                "speed": args.speed,
                "agents": agents,
                "data_dir": data_dir,
                "snapshot_every": args.snapshot_every,
                "fsync": args.fsync,
                "async_mode": args.async_mode,
                "admin_token": admin_token,
                "spectator_token": args.spectator_token,
                "join_token": args.join_token,
                "max_characters": args.max_characters,
                "programs_kept": args.programs_kept,
                "programs_memory": args.programs_memory,
                "program_memory": args.program_memory,
                "replays": args.replays,
                "record_dir": record_dir(args, data_dir),
                "study": live_study,
                "message_queue": args.message_queue,
            }
        )
        runner = services(app).runner
        if live_study is not None:
            print(f"  study {args.study}: horizon tick {live_study.horizon}, results in "
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
        shown = shown_host(args.host)
        url = f"http://{shown}:{args.port}/"
        seed = app.config["SEED"]
        print(f"ASIWorld is live (seed {seed}, {args.speed:g} ticks/s): open {url}", flush=True)
        print(f"  spectate {url}live   play {url}play   Ctrl-C stops", flush=True)
        if store is not None:
            print(f"  world saved in {store.dir} (tick {start_tick})", flush=True)
        recording = app.extensions.get("asiworld_recording")
        if recording is not None:
            print(f"  recording the replay to {recording.path}", flush=True)
        if not args.admin_token:
            print(f"  admin token: {admin_token}", flush=True)
        if args.async_mode == "threading":
            from asiworld.server.connections import serve_bounded

            serve_bounded(app, args.host, args.port, args.max_connections)
        else:  # eventlet: the green-thread pool is the bound
            socketio.run(
                app,
                host=args.host,
                port=args.port,
                log_output=False,
                use_reloader=False,
                max_size=args.max_connections,
            )
    except KeyboardInterrupt:
        pass
    except (ValueError, StoreError) as exc:  # an unknown --agents name; another seed's data dir
        print(f"asiworld serve: {exc}", file=sys.stderr)
        return 2
    finally:
        if live_study is not None and runner is not None:
            live_study.stop()  # stopped before its horizon: its replay is closed, no results
        elif runner is not None:
            runner.stop()
            live = app.extensions.get("asiworld_recording")
            if live is not None:
                live.close()  # the index: a clean stop leaves a complete replay
        if store is not None and runner is not None:
            try:
                store.snapshot_now()  # a clean stop resumes without replaying
            except Exception:  # the inputs are saved anyway
                logging.getLogger(__name__).exception("final snapshot failed")
            store.close()
    tick = runner.world.tick if runner is not None else 0
    print(f"\nstopped at tick {tick}", flush=True)
    return 0


# Options that only mean something where the world runs: a front end refuses them.
WORLD_ONLY = ("seed", "agents", "study", "out", "new", "spectator_token", "join_token")


def serve_frontend(args: argparse.Namespace, fail: Any) -> int:
    """`serve --frontend`: the spectate page and Socket.IO for a world in another process."""
    from asiworld.server.fanout import QueueUnavailable, check_queue

    if args.message_queue is None:
        return fail(codes.BAD_ARGUMENT,
                    "--frontend needs --message-queue URL: the world's Redis queue")
    given = [name for name in WORLD_ONLY if getattr(args, name) not in (None, False, "")]
    if given:
        flags = ", ".join("--" + name.replace("_", "-") for name in given)
        return fail(codes.BAD_ARGUMENT, f"{flags}: a front end holds no world; give these to the "
                    "world's own `asiworld serve --message-queue`")
    if args.async_mode != "threading":
        return fail(codes.BAD_ARGUMENT, "--frontend runs in the threading mode only")
    problem = _port_problem(args.host, args.port)
    if problem:
        return fail(codes.PORT_UNAVAILABLE, problem)
    try:
        check_queue(args.message_queue)
    except QueueUnavailable as exc:
        return fail(exc.code, exc.message)
    from asiworld.server.connections import serve_bounded
    from asiworld.server.frontend import create_frontend_app

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    app = create_frontend_app(args.message_queue)
    gc.freeze()
    shown = shown_host(args.host)
    print(f"ASIWorld front end for {args.message_queue}: spectate http://{shown}:{args.port}/live"
          "   Ctrl-C stops", flush=True)
    try:
        serve_bounded(app, args.host, args.port, args.max_connections)
    except KeyboardInterrupt:
        pass
    finally:
        app.extensions["asiworld_frontend"].close()
    print("\nstopped", flush=True)
    return 0


# --- eventlet (opt-in) -----------------------------------------------------------------------
# eventlet must patch the standard library before anything imports threading, Flask or
# Socket.IO; by the time `serve` runs, `asiworld`'s command table has imported all of them (and
# patching then prints tracebacks for every Werkzeug LocalProxy and leaves existing locks
# unpatched). So eventlet mode starts a fresh interpreter in place of this one (same process id,
# so Ctrl-C and exit codes are unchanged) that patches first, then runs `serve` again.
#
# Everything is patched but `os` and `subprocess`. The program host (app/programs/host.py) is a
# subprocess spoken to with os.write / os.read on its pipes: eventlet's green os.write retries a
# broken pipe forever (it swallows EPIPE), so a host that died would freeze the world clock for
# good instead of being restarted, and green subprocess makes those pipes non-blocking, where the
# plain os.write would fail on a full pipe. `select` stays green, so waiting for the host's reply
# still lets the server's green threads run.
#
# Only the world's thread ever reads a program host's pipe, but a pipe closed with the plain
# os.close leaves eventlet's hub a listener on its descriptor number; the next host's pipe that
# reuses the number then counts as a "second simultaneous read" and the request failed with a
# 500 (seen after program hosts were killed). So the hub's one-reader check is turned off.
EVENTLET_PATCH = {"os": False, "subprocess": False}
_EVENTLET_BOOT = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); "
    f"import eventlet; eventlet.monkey_patch(**{EVENTLET_PATCH!r}); "
    "import eventlet.debug; eventlet.debug.hub_prevent_multiple_readers(False); "
    "from asiworld.cli import main; sys.exit(main(sys.argv[1:]))"
)
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _patched_by_eventlet() -> bool:
    if "eventlet" not in sys.modules:  # not imported: certainly not patched (and no warning)
        return False
    from eventlet import patcher

    return patcher.is_monkey_patched("thread")


def serve_argv(args: argparse.Namespace) -> list[str]:
    """The `serve` command line that gives back these parsed arguments."""
    argv = ["serve", "--host", args.host, "--port", str(args.port), "--speed", repr(args.speed)]
    argv += ["--agents", args.agents, "--data-dir", str(args.data_dir)]
    argv += ["--snapshot-every", str(args.snapshot_every), "--async-mode", args.async_mode]
    argv += ["--max-characters", str(args.max_characters)]
    argv += ["--max-connections", str(args.max_connections)]
    argv += ["--programs-kept", str(args.programs_kept)]
    argv += ["--programs-memory", str(args.programs_memory)]
    argv += ["--program-memory", str(args.program_memory)]
    if args.seed is not None:
        argv += ["--seed", str(args.seed)]
    flags = (("--ephemeral", args.ephemeral), ("--fsync", args.fsync), ("--new", args.new),
             ("--no-record", args.no_record))
    for flag, on in flags:
        if on:
            argv.append(flag)
    for flag, value in (
        ("--admin-token", args.admin_token),
        ("--spectator-token", args.spectator_token),
        ("--join-token", args.join_token),
    ):
        if value is not None:
            argv += [flag, value]
    for folder in args.replays or ():
        argv += ["--replays", str(folder)]
    for flag, value in (("--study", args.study), ("--out", args.out)):
        if value is not None:
            argv += [flag, str(value)]
    if args.record_dir is not None:
        argv += ["--record-dir", str(args.record_dir)]
    return argv


def _restart_patched_first(args: argparse.Namespace) -> None:
    warn = [f"-W{option}" for option in sys.warnoptions]  # keep -W choices across the restart
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(
        sys.executable,
        [sys.executable, *warn, "-c", _EVENTLET_BOOT, _PACKAGE_ROOT, *serve_argv(args)],
    )


def _stop_on_ctrl_c_in_main_greenlet() -> None:
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
