"""What a server is asked to run: one typed, frozen `ServerSettings`.

Two ways fill it, with one precedence: **the command line over the environment over the
default**. `asiworld serve` reads its flags and then, for every flag not given, the `ASIWORLD_*`
variable named in `ENVIRONMENT`; `wsgi_app()` (gunicorn) has no command line and reads the
environment alone. A bad value stops the start with `SettingsError` (a code and a sentence that
names the flag or the variable), before anything is printed or written.

Empty variables count as unset (`ASIWORLD_SEED=` is no seed), but for `ASIWORLD_DATA_DIR=`,
which means no data dir at all (the world is ephemeral)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal

from asiworld import arguments as checked
from asiworld.engine import codes
from asiworld.engine.errors import CodedError
from asiworld.programs.limits import (
    ENDED_KEPT,
    HOST_MEMORY_BYTES,
    MIN_PROGRAM_MEMORY,
    PROGRAMS_MEMORY_BYTES,
)

DEFAULT_DATA_DIR = "data"
DEFAULT_MAX_CONNECTIONS = 256  # threads for connections (app/server/connections.py)
PLAY_SPEED = 2.0  # `serve --play`: a day of 30 minutes lasts 15 real minutes, night comes after 10
ASYNC_MODES = ("threading", "eventlet")


class SettingsError(CodedError):
    """A bad flag or environment variable: `asiworld serve` says it in one line, exit 2."""

    says_code = True  # gunicorn prints it as it is


@dataclass(frozen=True)
class ServerSettings:
    """Everything `asiworld serve` and `wsgi_app()` are told (docs/operations.md, *Commands*)."""

    host: str = "127.0.0.1"
    """The address to listen on (serve only; gunicorn binds its own)."""
    port: int = 8000
    """The port to listen on (serve only)."""
    seed: int | None = None
    """The world seed; None: 7, or the saved world's."""
    speed: float = 10.0
    """Ticks per real second."""
    agents: tuple[str, ...] = ()
    """Built-in configurations that populate a new world (a resumed one brings its own)."""
    data_dir: Path = Path(DEFAULT_DATA_DIR)
    """The saved world's folder, resumed when it holds one (unused when ephemeral)."""
    ephemeral: bool = False
    """Keep nothing on disk."""
    new: bool = False
    """Start a fresh world even when data_dir holds one (the saved one is moved aside)."""
    replays: tuple[Path, ...] = ()
    """Folders of replays for /replays; empty: the sample replays."""
    study: Path | None = None
    """A study file to run on the live server (app/study/live.py)."""
    out: Path | None = None
    """With study: the study's folder."""
    figures: str | None = None
    """With study: which figure files it writes (figure_options.FORMAT_SETS); None: all."""
    record_dir: Path | None = None
    """Where the live world's replay is written; None: DATA_DIR/replays, or a temp folder."""
    no_record: bool = False
    """Do not record the live world's replay."""
    snapshot_every: int = 600
    """Ticks between snapshots of a saved world."""
    fsync: bool = False
    """Flush every commit to the disk (survives power loss)."""
    admin_token: str | None = None
    """The token for /admin; None: generated and printed (serve), required (wsgi_app)."""
    spectator_token: str | None = None
    """The token needed to spectate; None: spectating is public."""
    join_token: str | None = None
    """The token a join must carry; None: joining is open."""
    max_characters: int = 500
    """Joins are refused once the world holds this many characters."""
    grace_nights: int = 0
    """Nights shades spare each character that joins from now on (for people learning)."""
    programs_kept: int = ENDED_KEPT
    """Ended programs kept per character."""
    programs_memory: int = PROGRAMS_MEMORY_BYTES >> 20
    """MiB all programs may hold together."""
    program_memory: int = HOST_MEMORY_BYTES >> 20
    """MiB of address space of each program's process."""
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    """Concurrent connections before new ones get a 503."""
    message_queue: str | None = None
    """A Redis URL the world also publishes its frames on, for front ends."""
    frontend: bool = False
    """Hold no world: serve the spectators of the world publishing on message_queue."""
    async_mode: Literal["threading", "eventlet"] = "threading"
    """How connections are held: OS threads, or eventlet's green threads (opt-in)."""

    @property
    def world_dir(self) -> Path | None:
        """The folder the world is saved in; None: ephemeral."""
        return None if self.ephemeral else self.data_dir

    @property
    def url(self) -> str:
        """The address a browser opens."""
        return f"http://{shown_host(self.host)}:{self.port}"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ServerSettings:
        """The settings the `ASIWORLD_*` variables give (the defaults for the rest)."""
        return cls(**_environment(os.environ if env is None else env))

    @classmethod
    def from_args(
        cls, args: argparse.Namespace, env: Mapping[str, str] | None = None
    ) -> ServerSettings:
        """`asiworld serve`'s parsed flags, the environment for those not given (flags left
        out parse as None, switches as False)."""
        if getattr(args, "play", False) and getattr(args, "speed", None) is None:
            args = argparse.Namespace(**{**vars(args), "speed": PLAY_SPEED})
        given = {
            spec.name: getattr(args, spec.name)
            for spec in fields(cls)
            if getattr(args, spec.name, None) not in (None, False)
        }
        values = _environment(os.environ if env is None else env, skip=set(given))
        for name, value in given.items():
            parse = _FROM_FLAG.get(name)
            values[name] = parse(value, _flag(name)) if parse else value
        if isinstance(values.get("agents"), str):
            values["agents"] = _names(values["agents"])
        if "replays" in values:
            values["replays"] = tuple(values["replays"])
        if "data_dir" not in values and not values.get("ephemeral"):  # the default, checked too
            _checker(checked.writable_dir)(DEFAULT_DATA_DIR, "--data-dir")
        return cls(**values)


def shown_host(host: str) -> str:
    """The host to print in a URL for a browser: a loopback or every-address bind is opened
    as localhost."""
    return "localhost" if host in ("127.0.0.1", "0.0.0.0") else host


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def whole_number(raw: Any, said: str, code: str, least: int = 1) -> int:
    """A whole number of at least `least` from a flag or a variable (`said` names it)."""
    try:
        value = int(str(raw).strip())
    except ValueError:
        value = least - 1
    if value < least:
        why = " (MiB: a program's process needs room for its interpreter)" if least > 1 else ""
        raise SettingsError(
            code, f"{said} is a whole number of at least {least}{why}, not {raw!r}"
        )
    return value


def _counted(code: str, least: int = 1) -> Callable[[Any, str], int]:
    return lambda raw, said: whole_number(raw, said, code, least)


# The options whose values argparse leaves as text: checked here, with their own codes.
_FROM_FLAG: dict[str, Callable[[Any, str], Any]] = {
    "max_characters": _counted(codes.BAD_MAX_CHARACTERS),
    "grace_nights": _counted(codes.BAD_GRACE_NIGHTS, least=0),
    "max_connections": _counted(codes.BAD_MAX_CONNECTIONS),
    "programs_kept": _counted(codes.BAD_PROGRAMS_KEPT),
    "programs_memory": _counted(codes.BAD_PROGRAMS_MEMORY),
    "program_memory": _counted(codes.BAD_PROGRAM_MEMORY, MIN_PROGRAM_MEMORY >> 20),
}


def _checker(check: Callable[[str], Any]) -> Callable[[str, str], Any]:
    """One of asiworld.arguments' checkers, for a variable: its code, the variable's name."""

    def parse(raw: str, said: str) -> Any:
        try:
            return check(raw)
        except checked.BadValue as exc:
            code, _, sentence = str(exc).partition(": ")
            raise SettingsError(
                codes.BAD_ENVIRONMENT if code == codes.BAD_ARGUMENT else code, f"{said} {sentence}"
            ) from None

    return parse


def _switch(raw: str, said: str) -> bool:
    word = raw.strip().lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("0", "false", "no", "off"):
        return False
    raise SettingsError(codes.BAD_ENVIRONMENT, f"{said} is 1 or 0 (true or false), not {raw!r}")


def _async_mode(raw: str, said: str) -> str:
    if raw not in ASYNC_MODES:
        raise SettingsError(codes.BAD_ENVIRONMENT, f"{said} is threading or eventlet, not {raw!r}")
    return raw


def _names(raw: str, said: str = "") -> tuple[str, ...]:
    return tuple(name.strip() for name in raw.split(",") if name.strip())


def _text(raw: str, said: str) -> str:
    return raw


# Every setting a variable can give, and how its text is read (flags are read by argparse).
ENVIRONMENT: dict[str, tuple[str, Callable[[str, str], Any]]] = {
    "seed": ("ASIWORLD_SEED", _checker(checked.count)),
    "speed": ("ASIWORLD_SPEED", _checker(checked.positive_number)),
    "agents": ("ASIWORLD_AGENTS", _names),
    "data_dir": ("ASIWORLD_DATA_DIR", _checker(checked.writable_dir)),
    "record_dir": ("ASIWORLD_RECORD_DIR", _checker(checked.writable_dir)),
    "snapshot_every": ("ASIWORLD_SNAPSHOT_EVERY", _checker(checked.positive_int)),
    "fsync": ("ASIWORLD_FSYNC", _switch),
    "admin_token": ("ASIWORLD_ADMIN_TOKEN", _text),
    "spectator_token": ("ASIWORLD_SPECTATOR_TOKEN", _text),
    "join_token": ("ASIWORLD_JOIN_TOKEN", _text),
    "max_characters": ("ASIWORLD_MAX_CHARACTERS", _FROM_FLAG["max_characters"]),
    "grace_nights": ("ASIWORLD_GRACE_NIGHTS", _FROM_FLAG["grace_nights"]),
    "programs_kept": ("ASIWORLD_PROGRAMS_KEPT", _FROM_FLAG["programs_kept"]),
    "programs_memory": ("ASIWORLD_PROGRAMS_MEMORY", _FROM_FLAG["programs_memory"]),
    "program_memory": ("ASIWORLD_PROGRAM_MEMORY", _FROM_FLAG["program_memory"]),
    "max_connections": ("ASIWORLD_MAX_CONNECTIONS", _FROM_FLAG["max_connections"]),
    "message_queue": ("ASIWORLD_MESSAGE_QUEUE", _text),
    "async_mode": ("ASIWORLD_ASYNC_MODE", _async_mode),
}


def _environment(env: Mapping[str, str], skip: set[str] | None = None) -> dict[str, Any]:
    """The settings the variables give; those in `skip` (a flag gave them) are not read."""
    values: dict[str, Any] = {}
    for name, (variable, parse) in ENVIRONMENT.items():
        raw = env.get(variable)
        if raw is None or name in (skip or ()):
            continue
        if raw == "":
            if name == "data_dir":  # ASIWORLD_DATA_DIR= : no data dir
                values["ephemeral"] = True
            continue
        values[name] = parse(raw, variable)
    return values
