"""The world on disk: a SQLite file (WAL mode) that lets a killed server resume with nothing lost.

What is saved, and when (all on the runner thread):

* **Accepted inputs, before they are acknowledged or applied.** `flush()` runs after every
  command of the runner and before every step of the pipeline (`Pipeline.durable`). It saves
  whatever the world accepted since the last flush — joins (the engine's input log) and queued actions — and commits.
  Only then does the command's result (the acknowledgement) leave the runner, or the tick run.
* **Inputs outside the engine, the same way** (`journal`): program submissions and ends, and
  agents' incidents (`Pipeline.keep_inputs`), saved by the same `flush()` before the
  submission or the incident is acknowledged. A snapshot notes the last journal row its program
  records include; resuming applies the rows after it (asiworld.programs.manager).
* **Agents' event buffers** (`agent_events`): the events numbered in a tick are saved with that
  tick, so a resumed server's buffers hold them and numbering goes on from the last number.
* **The applied log of each tick.** After a step, `after_tick()` (the pipeline's last observer,
  "store") replaces that tick's journal rows with the engine's own input-log rows (same actions,
  in the order the engine applied them) and records the tick as done.
* **Snapshots** every `snapshot_every` ticks: `World.snapshot()` (the engine's plain-data schema,
  app/engine/snapshot.py) plus the server's state (programs, built-in agents). Only the two newest
  are kept, with the inputs after the older one.

Resuming loads the newest snapshot and re-applies the saved inputs with the engine's own
re-simulation (`asiworld.engine.resim.resimulate`), up to the last tick that was saved.
Character tokens are stored as sha256 hashes only.

With `fsync=False` (the default, `PRAGMA synchronous=NORMAL`) a commit survives the server
process being killed at any moment; a power cut or kernel crash may lose the last commits. With
`fsync=True` (`synchronous=FULL`) each commit is also flushed to the disk before it returns.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from asiworld.engine import Content, World, load_content
from asiworld.engine.frames import FrameBuilder
from asiworld.engine.resim import ResimMismatch, resimulate
from asiworld.pipeline import Tick
from asiworld.realtime import WorldRunner
from asiworld.server import services
from asiworld.server.agent_api import EVENTS_KEPT, AgentSeat
from asiworld.server.auth import token_hash
from asiworld.server.extensions import AGENTS, SERVICES
from asiworld.server.world import engine_world

log = logging.getLogger(__name__)

DB_NAME = "world.sqlite3"
# 2: world snapshots in the engine's schema. A format-1 directory holds pickled snapshots (and
# only the inputs after them), so it cannot be converted without unpickling: it is refused.
FORMAT = 2
SNAPSHOTS_KEPT = 2
# Input-log rows a live world keeps in memory once they are saved here: older ones are forgotten
# (World.forget_inputs) so the log, and every snapshot that carries it, stops growing with time.
# A short run keeps its whole log (a resumed world can then be re-simulated from its seed).
INPUT_LOG_KEPT = 4096

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS inputs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    tick INTEGER NOT NULL,
    char INTEGER,
    action TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS inputs_by_tick ON inputs (tick, seq);
CREATE TABLE IF NOT EXISTS snapshots (
    tick INTEGER PRIMARY KEY,
    world BLOB NOT NULL,
    server TEXT NOT NULL,
    state_hash TEXT NOT NULL,
    saved REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS journal (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    tick INTEGER NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS agent_events (
    seq INTEGER PRIMARY KEY,
    char INTEGER NOT NULL,
    event TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS agent_events_by_char ON agent_events (char, seq);
CREATE TABLE IF NOT EXISTS tokens (
    hash TEXT PRIMARY KEY,
    char INTEGER NOT NULL,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    label TEXT NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0
);
"""


class StoreError(RuntimeError):
    """The data directory cannot be used as asked (another seed, a damaged file)."""


class WorldStore:
    def __init__(
        self,
        data_dir: str | Path,
        fsync: bool = False,
        snapshot_every: int = 600,
        input_log_kept: int = INPUT_LOG_KEPT,
    ):
        if snapshot_every < 1:
            raise ValueError("snapshot_every must be at least 1 tick")
        self.dir = Path(data_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.path = self.dir / DB_NAME
        self.snapshot_every = int(snapshot_every)
        self.input_log_kept = max(0, int(input_log_kept))
        self._lock = threading.RLock()  # the runner thread writes; request threads read tokens
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(f"PRAGMA synchronous={'FULL' if fsync else 'NORMAL'}")
        # A small page cache: snapshot blobs (about 1.6 MB) would otherwise fill the default
        # 2 MB cache with pages that are only read back on a resume.
        self.db.execute("PRAGMA cache_size=-512")
        self.db.executescript(SCHEMA)
        self.runner: WorldRunner | None = None
        self.app: Any = None
        # Absolute input-log row numbers (World.input_log_end), not list indices: the world
        # forgets saved rows.
        self._log_applied = 0  # rows already in the applied log (or snapshot)
        self._log_journaled = 0  # rows saved by flush (joins between ticks)
        self._pending_journaled = 0  # queued actions of this tick saved by flush
        self._token_hashes: set[str] = set()
        self._seen_live: set[str] = set()  # raw browser tokens already looked at (memory)
        self._last_snapshot = -1
        self.builtin: list[dict] = []
        self._journal: list[tuple[int, dict]] = []  # (tick, entry) not saved yet
        # Closed, its hooks save nothing: a world may still be served after its store closed
        # (a study's on the server, past its horizon), and its agents may still act on it.
        self.closed = False

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write transaction, committed whole or rolled back: a failure inside (a snapshot
        that cannot be encoded, a full disk) never leaves it open, so the next tick's save
        starts clean instead of failing on "cannot start a transaction within a transaction"."""
        with self._lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    # --- meta -------------------------------------------------------------------------------

    def meta(self, key: str, default: Any = None) -> Any:
        with self._lock:
            row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def _set_meta(self, key: str, value: Any) -> None:
        self.db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, json.dumps(value)),
        )

    def check_format(self) -> None:
        """StoreError when the directory was written in another store format."""
        found = self.meta("format", 1)
        if found != FORMAT:
            raise StoreError(
                f"{self.path} was written in store format {found} (world snapshots as Python "
                f"pickles), which this version does not read because loading a pickle can run "
                f"code; start the world in a new --data-dir (this one is left as it is)"
                if found == 1 else
                f"{self.path} was written in store format {found}; this version reads format "
                f"{FORMAT} only"
            )

    def exists(self) -> bool:
        """True when this directory already holds a world (it will be resumed)."""
        return self.meta("seed") is not None and self.newest_snapshot_tick() is not None

    def newest_snapshot_tick(self) -> int | None:
        with self._lock:
            row = self.db.execute("SELECT MAX(tick) FROM snapshots").fetchone()
        return row[0] if row else None

    # --- reading back -----------------------------------------------------------------------

    def inputs(self, since_tick: int = 0) -> list[tuple[int, int | None, dict]]:
        """Saved input rows from `since_tick` on, in the engine's order within a tick: the joins
        made before the step, then the actions in the order they were queued."""
        with self._lock:
            rows = self.db.execute(
                "SELECT tick, char, action FROM inputs WHERE tick >= ? "
                "ORDER BY tick, char IS NOT NULL, seq",
                (since_tick,),
            ).fetchall()
        return [(tick, char, json.loads(action)) for tick, char, action in rows]

    def last_tick(self) -> int:
        """The tick the world reaches when resumed: every saved tick, and the tick of any
        acknowledged input that was saved before the server could apply it."""
        with self._lock:
            row = self.db.execute("SELECT MAX(tick) FROM inputs").fetchone()
        pending = row[0] + 1 if row and row[0] is not None else 0
        return max(int(self.meta("last_tick", 0)), pending, self.newest_snapshot_tick() or 0)

    def load_world(self, content: Content | None = None) -> World:
        """The newest snapshot brought forward with the saved inputs (falls back to the older
        snapshot when the newest cannot be read)."""
        content = content or load_content()
        self.check_format()
        with self._lock:
            snaps = self.db.execute(
                "SELECT tick, world, state_hash FROM snapshots ORDER BY tick DESC"
            ).fetchall()
        if not snaps:
            raise StoreError(f"{self.path} holds no snapshot to resume from")
        target = self.last_tick()
        problems = []
        for tick, blob, digest in snaps:
            try:
                world = World.restore(blob, content)
                if world.state_hash() != digest:
                    raise StoreError(f"snapshot at tick {tick} does not match its state hash")
                replay_onto(world, self.inputs(since_tick=tick), target)
                return world
            except Exception as exc:  # try the older snapshot before giving up
                problems.append(f"snapshot at tick {tick}: {exc}")
                log.warning("cannot resume from the snapshot at tick %d: %s", tick, exc)
        raise StoreError("cannot resume the world: " + "; ".join(problems))

    def world_factory(self, config: dict) -> tuple[World, FrameBuilder]:
        """A WORLD_FACTORY for create_app: the saved world when there is one, else a new one."""
        if not self.exists():
            return engine_world(config)
        world = self.load_world()
        return world, FrameBuilder(world)

    # --- attaching to a live server ---------------------------------------------------------

    def attach(self, app: Any) -> None:
        """Start saving a server made by create_app(config with WORLD_FACTORY=world_factory).

        A new world gets its first snapshot now (with its built-in agents' seats); a resumed one
        gets its built-in agents, agent seats and program records back."""
        self.app = app
        self.runner = runner = services(app).runner
        world = runner.world
        runner.pipeline.keep_inputs(self._note)
        service = app.extensions.get(AGENTS)
        if service is not None:
            service.unsaved = []
        with self._lock:
            if self.exists():
                self._resume_server_state(app)
            else:
                self.builtin = services(app).builtin.records()
                self._start(world, app.config.get("WORLD_SIZE"))
            self._log_applied = self._log_journaled = world.input_log_end
            self._pending_journaled = len(world.pending)
            self._token_hashes = {
                row[0] for row in self.db.execute("SELECT hash FROM tokens").fetchall()
            }
            self._save_tokens()
        runner.pipeline.durable.append(self.flush)
        runner.pipeline.add_observer("store", self.after_tick)

    def _start(self, world: World, size: Any) -> None:
        with self._transaction():
            self._set_meta("format", FORMAT)
            self._set_meta("seed", world.seed)
            self._set_meta("size", size)
            self._set_meta("builtin", self.builtin)
            self._set_meta("created", time.time())
            self._set_meta("last_tick", world.tick)
            self._write_snapshot(world)

    def _resume_server_state(self, app: Any) -> None:
        saved = self.meta("builtin", [])
        last_saved = int(self.meta("last_tick", 0))  # the last tick whose events were seen
        world = self.runner.world
        with self._lock:
            with self._transaction():
                self._set_meta("last_tick", world.tick)
                self._set_meta("resumed", {"tick": world.tick, "at": time.time()})
            row = self.db.execute(
                "SELECT server FROM snapshots ORDER BY tick DESC LIMIT 1"
            ).fetchone()
        server = json.loads(row[0]) if row else {}
        self._last_snapshot = self.newest_snapshot_tick() or 0
        builtin = services(app).builtin
        pipeline = self.runner.pipeline
        for seat in saved:  # new agents, same configuration and seed (an agent's memory is
            if seat["char"] in world.entities:  # not saved: it starts over from what it sees)
                builtin.seat(pipeline, seat["char"], seat["config"], seat["seed"],
                             seat.get("think_ticks"))
        self.builtin = builtin.records()
        programs = pipeline.programs
        if programs is not None:
            entries = self.journal_rows(after_seq=int(server.get("journal_seq", 0)))
            saved_programs = [body for _, _, kind, body in entries if kind.startswith("program_")]
            state = server.get("programs") or {}
            self.runner.call(lambda: programs.restore_state(state, saved_programs))
        self._requeue_events(pipeline, last_saved, world.tick)
        service = app.extensions.get(AGENTS)
        if service is not None:
            restore_agent_seats(service, self.tokens(kind="agent"))
            self._restore_agent_events(service)

    def _requeue_events(self, pipeline: Any, last_saved: int, now: int) -> None:
        """Durable outside events (incidents) saved after the last tick whose events were seen
        join the resumed world's next tick; their rows move to the resumed tick, so a second
        crash before that tick queues them again."""
        rows = [row for row in self.journal_rows(since_tick=last_saved) if row[2] == "event"]
        for _, _, _, body in rows:
            pipeline.add_event(body["event"])
        if rows:
            with self._lock:
                self.db.executemany(
                    "UPDATE journal SET tick = ? WHERE seq = ?", [(now, row[0]) for row in rows]
                )

    def _restore_agent_events(self, service: Any) -> None:
        """Each agent's saved events back in its buffer; numbering goes on after the last."""
        with self._lock:
            last = self.db.execute("SELECT MAX(seq) FROM agent_events").fetchone()[0]
            for char, seat in service.seats.items():
                rows = self.db.execute(
                    "SELECT event FROM agent_events WHERE char = ? ORDER BY seq DESC LIMIT ?",
                    (char, EVENTS_KEPT),
                ).fetchall()
                seat.events.extend(json.loads(row[0]) for row in reversed(rows))
        service.seq = max(service.seq, last or 0)

    def journal_rows(
        self, after_seq: int = 0, since_tick: int | None = None
    ) -> list[tuple[int, int, str, dict]]:
        query, args = "SELECT seq, tick, kind, body FROM journal WHERE seq > ?", [after_seq]
        if since_tick is not None:
            query += " AND tick >= ?"
            args.append(since_tick)
        with self._lock:
            rows = self.db.execute(query + " ORDER BY seq", args).fetchall()
        return [(seq, tick, kind, json.loads(body)) for seq, tick, kind, body in rows]

    def _note(self, entry: dict) -> None:
        """The pipeline's journal sink (runner thread): saved by the next flush or tick."""
        self._journal.append((self.runner.world.tick, entry))

    # --- the runner's hooks (runner thread) -------------------------------------------------

    def flush(self) -> None:
        """Save what the world accepted since the last flush; commit before returning."""
        if self.closed:
            return
        world = self.runner.world
        log_rows = world.inputs_since(self._log_journaled)
        pending = world.pending
        queued = pending[self._pending_journaled :]
        tokens = self._new_tokens()
        if not log_rows and not queued and not tokens and not self._journal:
            return
        rows = [(tick, char, action) for tick, char, action in log_rows]
        rows += [(world.tick, char, action) for char, action, *_ in queued]
        with self._lock:
            with self._transaction():
                self._insert_inputs(rows)
                self._insert_journal()
                self._insert_tokens(tokens)
        self._log_journaled = world.input_log_end
        self._pending_journaled = len(pending)
        self._token_hashes.update(t[0] for t in tokens)

    def after_tick(self, info: Tick) -> None:
        """The tick is applied: its rows become the engine's own log rows; maybe a snapshot."""
        if self.closed:
            return
        world = self.runner.world
        applied = world.inputs_since(self._log_applied)
        ticks = {row[0] for row in applied} | {info.tick - 1}
        with self._lock:
            with self._transaction():
                self.db.executemany("DELETE FROM inputs WHERE tick = ?", [(t,) for t in ticks])
                self._insert_inputs(applied)
                self._insert_journal()
                events = self._insert_agent_events()
                self._set_meta("last_tick", info.tick)
                if info.tick - self._last_snapshot >= self.snapshot_every:
                    self._write_snapshot(world)
        if events:  # agents see them once saved
            self.app.extensions[AGENTS].publish(events)
        self._log_applied = self._log_journaled = world.input_log_end
        self._pending_journaled = len(world.pending)
        self._forget_saved_inputs(world)

    def _forget_saved_inputs(self, world: World) -> None:
        """Let the world forget saved log rows beyond the newest `input_log_kept`, in batches
        (a quarter of the bound at a time, so the list is not shifted every tick)."""
        if len(world.input_log) <= self.input_log_kept + self.input_log_kept // 4:
            return
        world.forget_inputs(min(self._log_applied, world.input_log_end - self.input_log_kept))

    def rebase(self, world: World, builtin: list[dict]) -> None:
        """Start the saved history again from `world`: a replay fork replaced the live world,
        so the old inputs, snapshots and tokens no longer lead anywhere. Runner thread only."""
        with self._lock:
            with self._transaction():
                for table in ("inputs", "snapshots", "tokens", "journal", "agent_events"):
                    self.db.execute(f"DELETE FROM {table}")  # noqa: S608 - fixed table names
                self.builtin = builtin
                self._set_meta("seed", world.seed)
                self._set_meta("builtin", builtin)
                self._set_meta("last_tick", world.tick)
                self._set_meta("forked", {"tick": world.tick, "at": time.time()})
                self._journal = []  # the old world's programs and incidents
                self._write_snapshot(world)
        self._log_applied = self._log_journaled = world.input_log_end
        self._pending_journaled = len(world.pending)
        self._token_hashes = set()

    def snapshot_now(self) -> int:
        """Write a snapshot of the current tick (admin); returns its tick."""

        def save() -> int:
            with self._lock:
                with self._transaction():
                    self._write_snapshot(self.runner.world)
            return self.runner.world.tick

        return self.runner.call(save)

    # --- tokens -----------------------------------------------------------------------------

    def tokens(self, kind: str | None = None) -> list[dict]:
        query = "SELECT hash, char, kind, name, label FROM tokens WHERE revoked = 0"
        args: tuple = ()
        if kind is not None:
            query += " AND kind = ?"
            args = (kind,)
        with self._lock:
            rows = self.db.execute(query, args).fetchall()
        keys = ("hash", "char", "kind", "name", "label")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def player_for(self, token: str) -> dict | None:
        """The saved browser seat of a token (after a restart), or None."""
        digest = token_hash(token)
        for row in self.tokens(kind="player"):
            if row["hash"] == digest:
                return row
        return None

    def revoke(self, char: int) -> int:
        """Revoke every token of a character (kick); returns how many."""
        with self._lock:
            cur = self.db.execute(
                "UPDATE tokens SET revoked = 1 WHERE char = ? AND revoked = 0", (char,)
            )
        return cur.rowcount

    def _new_tokens(self) -> list[tuple[str, int, str, str, str]]:
        """Token hashes the live rooms and the agent API handed out since the last look."""
        app = self.app
        live = app.extensions[SERVICES].live
        service = app.extensions.get(AGENTS)
        found = []
        for token, seat in list(live.seats.items()):
            if token in self._seen_live:  # cheap set test per seat: this runs after every command
                continue
            self._seen_live.add(token)
            digest = token_hash(token)
            if digest not in self._token_hashes:
                found.append((digest, seat.char, "player", seat.name, "human"))
        if service is not None:
            for seat in list(service.seats.values()):
                if seat.token_hash not in self._token_hashes:
                    found.append((seat.token_hash, seat.char, "agent", seat.name, seat.label))
        return found

    def _save_tokens(self) -> None:
        tokens = self._new_tokens()
        if tokens:
            self._insert_tokens(tokens)
            self._token_hashes.update(t[0] for t in tokens)

    # --- writing (callers hold the lock and a transaction) ----------------------------------

    def _insert_inputs(self, rows: Iterable[tuple[int, int | None, dict]]) -> None:
        self.db.executemany(
            "INSERT INTO inputs (tick, char, action) VALUES (?, ?, ?)",
            [(tick, char, json.dumps(action, sort_keys=True)) for tick, char, action in rows],
        )

    def _insert_journal(self) -> None:
        rows, self._journal = self._journal, []
        self.db.executemany(
            "INSERT INTO journal (tick, kind, body) VALUES (?, ?, ?)",
            [
                (tick, entry["kind"], json.dumps(entry, sort_keys=True, default=str))
                for tick, entry in rows
            ],
        )

    def _insert_agent_events(self) -> list[dict]:
        service = self.app.extensions.get(AGENTS) if self.app is not None else None
        if service is None or not service.unsaved:
            return []
        events, service.unsaved = service.unsaved, []
        self.db.executemany(
            "INSERT OR REPLACE INTO agent_events (seq, char, event) VALUES (?, ?, ?)",
            [(e["seq"], e["char"], json.dumps(e, sort_keys=True, default=str)) for e in events],
        )
        return events

    def _insert_tokens(self, tokens: list[tuple[str, int, str, str, str]]) -> None:
        self.db.executemany(
            "INSERT OR IGNORE INTO tokens (hash, char, kind, name, label) VALUES (?, ?, ?, ?, ?)",
            tokens,
        )

    def _write_snapshot(self, world: World) -> None:
        blob = world.snapshot()
        self._insert_journal()  # the records saved below include every journal row so far
        state = self._server_state()
        state["journal_seq"] = self.db.execute("SELECT MAX(seq) FROM journal").fetchone()[0] or 0
        server = json.dumps(state, sort_keys=True, default=str)
        self.db.execute(
            "INSERT OR REPLACE INTO snapshots (tick, world, server, state_hash, saved) "
            "VALUES (?, ?, ?, ?, ?)",
            (world.tick, blob, server, world.state_hash(), time.time()),
        )
        self._last_snapshot = world.tick
        kept = [
            row[0]
            for row in self.db.execute(
                "SELECT tick FROM snapshots ORDER BY tick DESC LIMIT ?", (SNAPSHOTS_KEPT,)
            ).fetchall()
        ]
        oldest = min(kept)
        self.db.execute("DELETE FROM snapshots WHERE tick < ?", (oldest,))
        self.db.execute("DELETE FROM inputs WHERE tick < ?", (oldest,))
        # journal rows from before the older snapshot are in both snapshots' records
        self.db.execute("DELETE FROM journal WHERE tick < ?", (oldest,))
        self.db.execute(
            "DELETE FROM agent_events WHERE seq IN (SELECT seq FROM (SELECT seq, ROW_NUMBER() "
            "OVER (PARTITION BY char ORDER BY seq DESC) AS newer FROM agent_events) "
            "WHERE newer > ?)",
            (EVENTS_KEPT,),
        )

    def _server_state(self) -> dict:
        state: dict[str, Any] = {"builtin": self.builtin}
        service = self.app.extensions.get(AGENTS) if self.app is not None else None
        if service is not None:
            state["programs"] = service.programs.to_state()
        return state

    def close(self) -> None:
        with self._lock:
            self.closed = True
            self.db.close()


def replay_onto(world: World, rows: list[tuple[int, int | None, dict]], until_tick: int) -> None:
    """Bring a restored world forward with the engine's re-simulation; saved inputs from before
    the snapshot, or a join that makes another character id, are a damaged store."""
    stale = [int(row[0]) for row in rows if int(row[0]) < world.tick]
    if stale:
        raise StoreError(f"saved inputs at tick {min(stale)} come before the snapshot")
    try:
        resimulate(world, rows, until_tick)
    except ResimMismatch as exc:
        raise StoreError(str(exc)) from None


def restore_agent_seats(service: Any, rows: list[dict]) -> None:
    """Agents reconnect with the tokens they had: put their hashed seats back."""
    for row in rows:
        seat = AgentSeat(
            char=row["char"], name=row["name"], label=row["label"], token_hash=row["hash"]
        )
        service.seats[row["char"]] = seat
        service.by_token[row["hash"]] = row["char"]
