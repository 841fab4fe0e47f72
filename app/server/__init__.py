"""The ASIWorld web server: a Flask application factory with Flask-SocketIO.

    app = create_app({"SEED": 7, "SPEED": 10, "AGENTS": ["forager"]})
    services(app).runner.start()          # the world clock; `asiworld serve` does this
    socketio.run(app, host="127.0.0.1", port=8000)

`socketio` is created once (asiworld.server.extensions) and bound to each app in the factory, so
tests can build a fresh app per test.

The package's names are imported when first used (PEP 562), as asiworld.engine's are: `asiworld
--help` and `asiworld serve --help` read `serve`'s flags (asiworld.server.commands) without Flask,
Socket.IO and the evaluation, which only a served world needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import APP_DIR, DEFAULTS, create_app
    from .extensions import Services, services, socketio

_HOME = {"APP_DIR": "app", "DEFAULTS": "app", "create_app": "app", "Services": "extensions",
         "services": "extensions", "socketio": "extensions"}
__all__ = ["APP_DIR", "DEFAULTS", "Services", "create_app", "services", "socketio"]


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value  # asked once
    return value
