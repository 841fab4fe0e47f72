"""What one app holds for the whole server: the Socket.IO instance and the app's services.

A module of its own so that the server's modules reach them without importing the package's
`__init__` (the factory that imports them all): `from asiworld.server import services` still
works for everyone outside the package."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from flask import Flask
from flask_socketio import SocketIO

if TYPE_CHECKING:
    from asiworld.agents.bots.driver import BuiltinAgents
    from asiworld.server.live import LiveRooms
    from asiworld.server.runner import WorldRunner

# Created once and bound to each app in the factory, so tests can build a fresh app per test.
socketio = SocketIO()


@dataclass
class Services:
    runner: WorldRunner  # the clock and the thread; runner.pipeline is the tick
    live: LiveRooms
    builtin: BuiltinAgents  # the built-in agents' driver (forks and resumes re-seat it)


def services(app: Flask) -> Services:
    return app.extensions["asiworld"]
