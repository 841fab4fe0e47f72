"""A study's external seats: agents that connect by themselves (`asiworld agent`, `asiworld
mcp`, the SDK, any HTTP client) play their characters through the live server's agent API,
served from the study's own pipeline on a loopback port.

A human seat (`kind = "human"`) is an external seat whose agent is a person at the browser's
/play page: its printed join link carries the seat's character and token (`join_link`), and the
page plays through this same agent API, so its calls are counted, recorded and replayed alike.

The study's world is closed to everyone else:
- each external seat's character is made at tick 0 with the others; its token is printed on
  stderr, and the agent plays with it (`--token T --character C`), never by joining;
- a join (`POST /api/agents/join`, the play page's `join`) needs a join token nobody is told,
  so it is refused with `join_closed`;
- watching the whole world (`/live`, `/api/world`, the live evaluation) needs the spectator
  token, printed for the person running the study: an agent under test sees only its own view;
- the admin routes need an admin token nobody is told: no agent can pause or step the clock.

Entry is synchronised: the runner starts paused (it serves the agents' calls, the world does not
tick) and the clock starts only once every external seat has made its first call; a seat that
has not called within `serve.entry_timeout` seconds stops the study with `external_absent`.

The end is told: at the horizon every seat gets a `study_ended` event and from then on every
call is answered 410 study_ended; the study keeps answering until every seat has been told so
(up to END_GRACE_SECONDS), so an agent between two calls learns it too and stops cleanly.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from asiworld.engine import codes
from asiworld.engine.frames import FrameBuilder
from asiworld.server import create_app
from asiworld.server.auth import new_token
from asiworld.server.connections import BoundedWSGIServer
from asiworld.server.extensions import AGENTS

from .spec import ExternalConfiguration, HumanConfiguration, ServeSection, StudyError

HOST = "127.0.0.1"  # an agent under test reaches the study from this machine only
MAX_CONNECTIONS = 64
POLL_SECONDS = 0.05
END_GRACE_SECONDS = 10.0  # how long a study waits at its end for its seats to hear of it


class ExternalSeats:
    """The agent API of one study world for its external seats (see the module docstring)."""

    def __init__(self, serve: ServeSection, listen: bool = True) -> None:
        """`listen`: serve the agent API on a loopback port of its own (`study run`); without
        it the seats are seated on a server's agent API by `seat_on` (`serve --study`)."""
        self.serve = serve
        self.seats: list[tuple[ExternalConfiguration, int]] = []
        self.tokens: dict[str, str] = {}
        self.service: Any = None
        self.server: Any = None
        self.url: str | None = None
        self.thread: threading.Thread | None = None
        self.listens = listen
        self.turns: Any = None  # a lockstep study's turns (asiworld.study.turns)
        self.study: dict[str, Any] | None = None  # its clock and horizon (StudyRun sets them)
        # calls made before an interruption, per seat (a resumed study's store keeps them)
        self.earlier: dict[str, int] = {}
        if listen:
            self._bind(serve.port)

    def _bind(self, port: int) -> None:
        # Bound now, so a port in use stops the study before anything starts (and here, not
        # in Werkzeug, which answers a bind error with sys.exit).
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Werkzeug sets it
        try:
            listener.bind((HOST, port))
            listener.listen(128)
        except OSError as exc:
            listener.close()
            raise StudyError(
                codes.PORT_UNAVAILABLE,
                f"cannot serve the external seats' agent API on {HOST}:{port} "
                f"({exc.strerror or exc}); give another [serve] port or --port",
            ) from None
        self.port = int(listener.getsockname()[1])
        with listener:  # the server listens on its own copy of the socket
            self.server = BoundedWSGIServer(HOST, self.port, _not_yet, MAX_CONNECTIONS,
                                            fd=listener.fileno())
        self.url = f"http://{HOST}:{self.port}"

    def add(self, conf: ExternalConfiguration, char: int) -> None:
        self.seats.append((conf, char))

    def open(self, runner: Any, say: Callable[[str], None]) -> None:
        """Serve the agent API on the study's runner and print every seat's token (the
        characters are in the world already, the clock has not started)."""
        pipeline = runner.pipeline
        if pipeline.frames is None:  # spectators with the token watch the study's world
            pipeline.frames = FrameBuilder(pipeline.world)
        spectator = new_token()
        app = create_app({
            "RUNNER": runner, "SEED": pipeline.world.seed, "SPEED": runner.speed,
            "JOIN_TOKEN": new_token(), "ADMIN_TOKEN": new_token(),
            "SPECTATOR_TOKEN": spectator,
            "MAX_CHARACTERS": len(pipeline.world.characters()),
        })
        self.server.app = app
        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request on stderr
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True,
                                       name="study-agent-api")
        self.thread.start()
        say(f"agent API for the external seats: {self.url} (loopback only; no one else joins)")
        self.seat_on(app.extensions[AGENTS], self.url, say)
        say(f"spectate: {self.url}/live?spectator_token={spectator}")

    def seat_on(self, service: Any, url: str, say: Callable[[str], None]) -> None:
        """Give each seat's character a token on `service` (an agent API: the study's own, or
        the live server's) and print how its agent plays it at `url`."""
        self.service = service
        service.turns = self.turns  # before any token is out: the seat's first call is in turn
        service.study = self.study  # what a human seat's page shows: the clock and the horizon
        if self.turns is not None:  # a turn that opens is pushed to the seat's socket
            self.turns.on_open = service.push_turn
            self.turns.redo = service.redo  # a resumed study's kept decisions, made again
        for conf, char in self.seats:
            token = service.seat(char, conf.name, conf.label or conf.name)
            self.tokens[conf.name] = token
            if isinstance(conf, HumanConfiguration):
                say(f"human seat {conf.name}: character {char} token {token}")
                say(f"  open {join_link(url, char, token)} in a browser to play it")
                continue
            say(f"external seat {conf.name}: character {char} token {token}")
            say(f"  e.g. asiworld agent --server {url} --character {char} --token {token} "
                "--builtin forager")

    def wait_for_entry(self, say: Callable[[str], None],
                       clock: Callable[[], float] = time.monotonic,
                       strict: bool = True) -> list[str]:
        """Return once every external seat has made a call; after the timeout StudyError, or
        (not `strict`: a lockstep study goes on without them) the absent seats' names."""
        timeout = self.serve.entry_timeout
        say(f"waiting for {len(self.seats)} external seat(s) to make their first call "
            f"(up to {timeout:g} s); the clock starts then")
        deadline = clock() + timeout
        while True:
            absent = self.absent()
            if not absent:
                say("every external seat has called: the clock starts")
                return []
            if clock() >= deadline and not strict:
                return absent
            if clock() >= deadline:
                raise StudyError(
                    codes.EXTERNAL_ABSENT,
                    f"external seat(s) {', '.join(absent)} made no call within {timeout:g} s "
                    "([serve] entry_timeout); the world never started",
                )
            time.sleep(POLL_SECONDS)

    def end(self, tick: int) -> None:
        """The horizon: every seat is told the study ended (see the module docstring)."""
        if self.service is not None:
            self.service.end(tick)

    def wait_until_told(self, grace: float = END_GRACE_SECONDS,
                        clock: Callable[[], float] = time.monotonic) -> None:
        """Return once every seat has been answered study_ended, or after `grace` seconds
        (an agent that has gone away is not waited for longer)."""
        if self.service is None:
            return
        deadline = clock() + grace
        calls = self.service.calls  # a seat that never came is not waited for
        chars = {char for _conf, char in self.seats if calls.get(char)}
        while not chars <= self.service.told and clock() < deadline:
            time.sleep(POLL_SECONDS)

    def absent(self) -> list[str]:
        if self.service is None:  # not seated yet: nobody has called
            return [conf.name for conf, _char in self.seats]
        calls = self.service.calls
        return [conf.name for conf, char in self.seats if not calls.get(char)]

    def api_calls(self, name: str) -> int:
        """How many authorised calls the seat `name` made (its row of the cost table), those
        before an interruption included."""
        char = next((c for conf, c in self.seats if conf.name == name), None)
        now = int(self.service.calls.get(char, 0)) if self.service is not None else 0
        return self.earlier.get(name, 0) + now

    def api_failures(self, name: str) -> int:
        """How many of the seat's authorised calls were answered with an error (this process's
        only: a resumed study counts them from where it went on)."""
        char = next((c for conf, c in self.seats if conf.name == name), None)
        return int(self.service.failures.get(char, 0)) if self.service is not None else 0

    def all_calls(self) -> dict[str, int]:
        return {conf.name: self.api_calls(conf.name) for conf, _char in self.seats}

    def close(self) -> None:
        if self.thread is not None:
            self.server.shutdown()
        if self.server is not None:
            self.server.server_close()


def join_link(url: str, char: int, token: str) -> str:
    """The address a person opens to play a human seat: /play with its character and token."""
    return f"{url.rstrip('/')}/play?character={char}&token={token}"


def _not_yet(environ: dict, start_response: Callable) -> list[bytes]:
    """The answer before the study has made its characters (the port is bound early)."""
    start_response("503 Service Unavailable", [("Content-Type", "application/json"),
                                               ("Retry-After", "1")])
    return [_NOT_YET]


_NOT_YET = json.dumps(
    {"error": {"code": codes.NOT_STARTED, "message": "the study is starting"}}
).encode()
