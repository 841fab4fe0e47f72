"""`asiworld serve`: the live world in the browser."""

from __future__ import annotations

import argparse
import logging
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "serve",
        help="run a live world and serve the browser pages",
        description="Run a live world in real time and serve the spectate and play pages.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--speed", type=float, default=10.0, help="ticks per real second")
    p.add_argument(
        "--agents",
        default="",
        help="comma-separated built-in configurations to populate the world, e.g. forager,planner",
    )
    p.add_argument("--data-dir", default=None, help="directory for the world's files")
    p.add_argument("--admin-token", default=None, help="token for /admin (default: loopback only)")
    p.add_argument(
        "--async-mode",
        choices=("threading", "eventlet"),
        default="threading",
        help="threading (default) or eventlet (opt-in; pip install asiworld[eventlet])",
    )
    p.set_defaults(func=serve)


def serve(args: argparse.Namespace) -> int:
    if args.speed <= 0:
        print("asiworld serve: --speed must be above 0", file=sys.stderr)
        return 2
    if args.async_mode == "eventlet":
        try:
            import eventlet  # opt-in only: eventlet warns at import that it is deprecated
        except ImportError:
            print(
                "asiworld serve: eventlet is not installed (pip install eventlet)", file=sys.stderr
            )
            return 2
        eventlet.monkey_patch()

    from app.server import create_app, services, socketio

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no per-request noise
    agents = [name.strip() for name in args.agents.split(",") if name.strip()]
    runner = None
    try:  # Ctrl-C may come at any moment, even before the server listens
        app = create_app(
            {
                "SEED": args.seed,
                "SPEED": args.speed,
                "AGENTS": agents,
                "DATA_DIR": args.data_dir,
                "ASYNC_MODE": args.async_mode,
                "ADMIN_TOKEN": args.admin_token,
            }
        )
        runner = services(app).runner
        runner.start()
        shown = "localhost" if args.host in ("127.0.0.1", "0.0.0.0") else args.host
        url = f"http://{shown}:{args.port}/"
        print(
            f"ASIWorld is live (seed {args.seed}, {args.speed:g} ticks/s): open {url}", flush=True
        )
        print(f"  spectate {url}live   play {url}play   Ctrl-C stops", flush=True)
        run_options = {"log_output": False, "use_reloader": False}
        if args.async_mode == "threading":
            run_options["allow_unsafe_werkzeug"] = True  # the dev server is the default here
        socketio.run(app, host=args.host, port=args.port, **run_options)
    except KeyboardInterrupt:
        pass
    except ValueError as exc:  # e.g. an unknown built-in configuration in --agents
        print(f"asiworld serve: {exc}", file=sys.stderr)
        return 2
    finally:
        if runner is not None:
            runner.stop()
    tick = runner.world.tick if runner is not None else 0
    print(f"\nstopped at tick {tick}", flush=True)
    return 0
