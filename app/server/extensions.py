"""What one app holds for the whole server: the Socket.IO instance, the app's services, and the
key of everything else kept in `app.extensions` (one place says what each key holds).

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
    from asiworld.realtime import WorldRunner
    from asiworld.server.live import LiveRooms

# Created once and bound to each app in the factory, so tests can build a fresh app per test.
socketio = SocketIO()

# The keys of app.extensions, and what each holds (set by the module named, read by any).
SERVICES = "asiworld"  # Services, below: every app's (the factory)
AGENTS = "asiworld_agents"  # AgentService: agents from outside (agent_api.py)
GATE = "asiworld_gate"  # Gate: rate limits and the spectator check (auth.py)
JOINS = "asiworld_join"  # JoinGate: the join token and the character cap (joining.py)
ASSESSMENT = "asiworld_assessment"  # LiveAssessment behind /api/evaluation (assessment.py)
REPLAYS = "asiworld_replays"  # the replay library and its forkable worlds (replays.py)
RECORDING = "asiworld_recording"  # the live world's replay: LiveRecording, or a LiveStudy's
STORE = "asiworld_store"  # WorldStore: a saving server's (wsgi.build_app); absent: ephemeral
DATA_LOCK = "asiworld_data_lock"  # the data dir's lock, held for wsgi_app()'s process
STUDY = "asiworld_study"  # LiveStudy: `serve --study` (app/study/live.py)
FRONTEND = "asiworld_frontend"  # FrontEnd: a `serve --frontend` app's (frontend.py)


@dataclass
class Services:
    runner: WorldRunner  # the clock and the thread; runner.pipeline is the tick
    live: LiveRooms
    builtin: BuiltinAgents  # the built-in agents' driver (forks and resumes re-seat it)


def services(app: Flask) -> Services:
    return app.extensions[SERVICES]
