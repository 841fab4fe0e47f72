"""The ASIWorld web server's application factory, with Flask-SocketIO (see asiworld.server).

    app = create_app({"SEED": 7, "SPEED": 10, "AGENTS": ["forager"]})
    services(app).runner.start()          # the world clock; `asiworld serve` does this
    socketio.run(app, host="127.0.0.1", port=8000)

`socketio` is created once (asiworld.server.extensions) and bound to each app in the factory, so
tests can build a fresh app per test.
"""

from __future__ import annotations

from pathlib import Path

from asiworld.server import assessment, auth, recording
from asiworld.server.admin import admin
from asiworld.server.agent_api import init_agent_api
from asiworld.server.api import api
from asiworld.server.extensions import SERVICES, Services, services, socketio
from asiworld.server.fanout import Fanout
from asiworld.server.live import LiveRooms
from asiworld.server.nesting import BoundedJSON
from asiworld.server.pages import pages
from asiworld.server.seat_api import seat_api
from asiworld.server.sockets import register
from asiworld.server.world import build_runner
from flask import Flask

APP_DIR = Path(__file__).resolve().parent.parent

__all__ = ["APP_DIR", "DEFAULTS", "Services", "create_app", "services", "socketio"]

DEFAULTS = {
    "SEED": 7,
    "SPEED": 10.0,  # ticks per real second
    "AGENTS": [],  # built-in configurations to populate the world, e.g. ["forager", "planner"]
    "WORLD_SIZE": None,  # None: the content's default
    "WORLD_FACTORY": None,  # callable(config) -> (world, frame_builder); None: the real engine
    "RUNNER": None,  # a WorldRunner to serve as it is (a study's world); None: build one
    "DATA_DIR": None,
    "RECORD_DIR": None,  # set: the live world's replay is written there as it runs (recording.py)
    "ASYNC_MODE": "threading",  # "eventlet" is opt-in (see docs/browser.md)
    "ADMIN_TOKEN": None,
    "JOIN_TOKEN": None,  # set: a join must carry it (a closed world; server/joining.py)
    "GRACE_NIGHTS": 0,  # nights shades spare each character that joins (serve --grace-nights)
    "MAX_CHARACTERS": 500,  # joins are refused once the world holds this many characters
    "PROGRAMS_KEPT": 50,  # ended programs kept per character (asiworld.programs.limits)
    "SECRET_KEY": "asiworld-dev",
    # A Redis URL: frames are also published there for `asiworld serve --frontend` processes
    # (app/server/fanout.py); None: one process serves every client, as by default.
    "MESSAGE_QUEUE": None,
}


def create_app(config: dict | None = None) -> Flask:
    app = Flask(
        __name__,
        static_folder=str(APP_DIR / "static"),
        template_folder=str(APP_DIR / "templates"),
    )
    app.config.from_mapping(DEFAULTS)
    app.config.update(config or {})
    if app.config["DATA_DIR"]:
        Path(app.config["DATA_DIR"]).mkdir(parents=True, exist_ok=True)

    socketio.init_app(
        app,
        async_mode=app.config["ASYNC_MODE"],
        max_http_buffer_size=64 * 1024,  # client events are small; frames only flow outwards
        ping_interval=10,
        json=BoundedJSON,  # payloads nested too deeply are refused unparsed (nesting.py)
    )
    runner, builtin = build_runner(app.config)
    app.extensions[SERVICES] = Services(
        runner=runner, live=LiveRooms(socketio, runner), builtin=builtin
    )
    if app.config["MESSAGE_QUEUE"]:
        app.extensions[SERVICES].live.fanout = Fanout(
            app.config["MESSAGE_QUEUE"], runner.keyframe, runner.call, app.config["ASYNC_MODE"]
        )

    # Validation, rate limits and spectator checks for the whole app (REST and Socket.IO).
    auth.install(app)
    # /api/evaluation's LiveAssessment sees every tick's events from the first tick on.
    assessment.attach(app)
    # The live world's replay, written tick by tick into RECORD_DIR (listed in /replays).
    recording.attach(app)
    app.register_blueprint(pages)
    app.register_blueprint(api)
    app.register_blueprint(admin)
    app.register_blueprint(__import__("asiworld.server.replays", fromlist=["replays"]).replays)
    # two replays of one seed side by side (/compare); imported here as replays.py is
    app.register_blueprint(__import__("asiworld.server.compare", fromlist=["compare"]).compare)
    init_agent_api(app)  # agents from outside: REST /api/agents and Socket.IO /agent
    app.register_blueprint(seat_api)  # which seat a token plays (a human seat's /play page)
    return app


def _register_handlers() -> None:
    register(socketio)


_register_handlers()
