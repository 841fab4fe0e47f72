"""The app for given settings, and `wsgi_app()`: the same app for gunicorn-like servers.

    gunicorn -k gthread --threads 50 -w 1 -b 127.0.0.1:8000 'asiworld.server.wsgi:wsgi_app()'

(`asiworld.server.commands:wsgi_app()`, the path documented before, names the same function.)
"""

from __future__ import annotations

import gc
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from asiworld.engine import codes
from asiworld.server import create_app, datalock, services
from asiworld.server.extensions import DATA_LOCK, STORE
from asiworld.server.fanout import QueueUnavailable, check_queue
from asiworld.server.persistence import StoreError, WorldStore
from asiworld.server.replay_library import DEFAULT_DIR
from asiworld.server.settings import ServerSettings, SettingsError
from flask import Flask


def build_app(settings: ServerSettings, live_study: Any = None) -> tuple[Flask, Any]:
    """The app for these settings, with its world store attached when there is a data dir.
    The live world is recorded only into an explicit `settings.record_dir` (serve and
    wsgi_app() choose the default first). `live_study` (an asiworld.study.live.LiveStudy)
    brings its own world, seats and replay, and nothing is saved.

    Returns (app, store or None). Raises StoreError when the data dir holds a world of another
    seed than the one asked for, ValueError for an unknown built-in configuration."""
    if live_study is not None:  # its own world on the server's clock, store and replay (in --out)
        config = {**_config(settings, 7, [], False), **live_study.prepare()}
        config["REPLAY_DIRS"] = [*_replay_dirs(settings), str(live_study.out)]
        config.pop("RECORD_DIR", None)
        app = create_app(config)
        live_study.attach(app)
        return app, None

    store = None
    seed = settings.seed
    resumed = False
    if settings.world_dir is not None:
        store = WorldStore(
            settings.world_dir, fsync=settings.fsync, snapshot_every=settings.snapshot_every
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
    config = _config(settings, seed, list(settings.agents), resumed)
    if store is not None:
        config["WORLD_FACTORY"] = store.world_factory
        if resumed:
            config["WORLD_SIZE"] = store.meta("size")
    app = create_app(config)
    if store is not None:
        app.extensions[STORE] = store
        store.attach(app)
    return app, store


def _replay_dirs(settings: ServerSettings) -> list[str]:
    return [str(d) for d in settings.replays or [DEFAULT_DIR]]


def _config(settings: ServerSettings, seed: int, agents: list[str], resumed: bool) -> dict:
    config = {
        "SEED": seed,
        "SPEED": settings.speed,
        "AGENTS": [] if resumed else agents,  # a resumed world brings its own
        "DATA_DIR": None if settings.world_dir is None else str(settings.world_dir),
        "ASYNC_MODE": settings.async_mode,
        "ADMIN_TOKEN": settings.admin_token,
        "SPECTATOR_TOKEN": settings.spectator_token,
        "JOIN_TOKEN": settings.join_token,
        "MAX_CHARACTERS": settings.max_characters,
        "GRACE_NIGHTS": settings.grace_nights,
        "PROGRAMS_KEPT": settings.programs_kept,
        "PROGRAMS_MEMORY": settings.programs_memory << 20,
        "PROGRAM_MEMORY": settings.program_memory << 20,
    }
    if settings.message_queue:
        config["MESSAGE_QUEUE"] = settings.message_queue
    if settings.replays:
        config["REPLAY_DIRS"] = [str(d) for d in settings.replays]
    if settings.record_dir is not None and not settings.no_record:
        config["RECORD_DIR"] = str(settings.record_dir)
    return config


def wsgi_app() -> Flask:
    """For production servers. Settings come from ASIWORLD_* environment variables
    (docs/operations.md); the admin token is required here (ASIWORLD_ADMIN_TOKEN). Raises
    SettingsError for a bad or missing variable, before anything is written."""
    settings = ServerSettings.from_env()
    if not settings.admin_token:
        raise SettingsError(
            codes.ADMIN_TOKEN_REQUIRED, "set ASIWORLD_ADMIN_TOKEN: the admin token for /admin"
        )
    if settings.record_dir is None:  # no temp folder here: a supervisor's restart keeps it
        base = settings.world_dir if settings.world_dir is not None else Path(".")
        settings = replace(settings, record_dir=base / "replays")
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if settings.message_queue:
        try:
            check_queue(settings.message_queue)
        except QueueUnavailable as exc:
            raise RuntimeError(f"ASIWORLD_MESSAGE_QUEUE: {exc.code}: {exc.message}") from None
    lock = None
    if settings.world_dir is not None:
        lock = datalock.acquire(settings.world_dir)  # DataInUse: another server has it
    app, _store = build_app(settings)
    app.extensions[DATA_LOCK] = lock  # held for the process's life

    gc.freeze()  # as in `serve`: start-up's objects out of the collector's sight
    services(app).runner.start()
    return app
