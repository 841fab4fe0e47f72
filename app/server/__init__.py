"""The ASIWorld web server: a Flask application factory with Flask-SocketIO.

    app = create_app({"SEED": 7, "SPEED": 10, "AGENTS": ["forager"]})
    services(app).runner.start()          # the world clock; `asiworld serve` does this
    socketio.run(app, host="127.0.0.1", port=8000)
    close_app(app)                        # stops the clock, closes its files and connections

`socketio` is created once (asiworld.server.extensions) and bound to each app in the factory, so
tests can build a fresh app per test.

The package's names are imported when first used (PEP 562), as asiworld.engine's are: `asiworld
--help` and `asiworld serve --help` read `serve`'s flags (asiworld.server.commands) without Flask,
Socket.IO and the evaluation, which only a served world needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from asiworld.lazy import lazy_names

if TYPE_CHECKING:
    from .app import APP_DIR, DEFAULTS, create_app
    from .extensions import Services, services, socketio
    from .lifetime import close_app

_HOME = {"APP_DIR": "app", "DEFAULTS": "app", "create_app": "app", "Services": "extensions",
         "services": "extensions", "socketio": "extensions", "close_app": "lifetime"}
__all__ = ["APP_DIR", "DEFAULTS", "Services", "close_app", "create_app", "services", "socketio"]


__getattr__ = lazy_names(__name__, _HOME, globals())
