"""A lockstep study survives SIGKILL: its folder keeps what was acknowledged, and a second
`asiworld study run` on it finishes the study with the same result an uninterrupted run gives.

What is kept, and by whom (nothing here is a second persistence):

* **The world's acknowledged inputs**: the server's store (asiworld.server.persistence), a
  SQLite file `world.sqlite3` in the study's folder, on the pipeline's `durable` hook (saved
  before they are applied) and its "store" observer (the applied log of each tick). A study
  keeps the whole log (one snapshot, at tick 0) so that it can be checked from the seed.
* **The models' answers**: the transcripts (asiworld.agents.clients.transcript), one line per call,
  appended as each turn is applied.

A resume cannot start from a snapshot: the built-in agents and the harnesses remember what they
saw, and an agent that starts over plays differently. So it plays the study again from tick 0
with the same seeds, and every model call the transcripts already hold is answered from them
(`ReplayedModel`) instead of asking the model again; the world's inputs are compared tick by tick
with the acknowledged ones (a difference stops the study: `resume_diverged`). At the store's
last tick the store is attached again and the study goes on with the real model; transcripts
number on after their last call, so no line is written twice. A turn that was in flight at the
kill was never applied nor written: it is asked again.

A realtime study is resumed the other way, as the live server resumes (its world did not wait
for the models, so a replay of the agents would not put their answers back at the ticks they
acted): its store also keeps the journal (program submissions and ends, the seats' incidents),
and the resume applies every tick's acknowledged inputs again through the pipeline
(`Catchup`), with the journal's incidents and program ends as that tick's events, so the
events, the recording and the world up to the kill are the ones the killed run had. Then the
players come back as a restarted server's do: built-in and python agents start anew from what
their characters remember, programs that were running end `interrupted`, and each model seat
goes on from its transcript (its counts, and its recent results as feedback,
`Harness.restore`). results.json says where the study was resumed (`meta.resumed`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from asiworld.agents.clients.endpoint import ModelError, Reply, Usage
from asiworld.agents.clients.harness import tool_call_of
from asiworld.engine import codes
from asiworld.engine.resim import inputs_by_tick
from asiworld.server.persistence import DB_NAME, WorldStore

from .spec import StudyError

STORE_NAME = DB_NAME
# Enough rows kept in memory that the world never forgets one (a study's log is its record).
LOG_KEPT = 1 << 40


def identity(text: str, seed: int) -> dict[str, Any]:
    """What makes an interrupted study this study: its file's text and its world's seed."""
    return {"study_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(), "seed": int(seed)}


class StudyStore(WorldStore):
    """The server's world store for a study's world: no server around it, no tokens, one
    snapshot (tick 0) and the whole input log."""

    def __init__(self, folder: Path, horizon: int) -> None:
        super().__init__(folder, snapshot_every=max(1, horizon + 1), input_log_kept=LOG_KEPT)

    def _new_tokens(self) -> list[tuple[str, int, str, str, str]]:
        return []

    def after_tick(self, info: Any) -> None:
        """As the server's, but a tick that applied no input and noted nothing in the journal
        (about half of a study's) is not a transaction of its own: it changes nothing saved but
        the tick reached, and that is written once a minute (a resume goes at least to the last
        input's tick, and past it the study is played again anyway)."""
        if (info.inputs or self._journal or info.tick % 60 == 0
                or self._log_applied != self.runner.world.input_log_end):
            super().after_tick(info)

    def begin(self, pipeline: Any, study: dict[str, Any], size: int | None,
              journal: bool = False) -> None:
        """A new study's world, before anyone joins: its first snapshot and which study it is;
        from now on every tick is saved (`journal`: the program host's and the seats' inputs
        outside the engine too, which a realtime resume needs)."""
        self.runner = pipeline  # flush and after_tick read `.world`
        world = pipeline.world
        with self._lock:
            self._start(world, size)
            with self._transaction():
                self._set_meta("study", study)
        self.attach_pipeline(pipeline, journal)

    def attach_pipeline(self, pipeline: Any, journal: bool = False) -> None:
        """Save from the pipeline's current tick on (a new world, or a resumed one that has
        caught up with what was saved)."""
        self.runner = pipeline
        world = pipeline.world
        self._log_applied = self._log_journaled = world.input_log_end
        self._pending_journaled = len(world.pending)
        self._last_snapshot = self.newest_snapshot_tick() or 0
        if journal:
            pipeline.keep_inputs(self._note)
        pipeline.durable.append(self.flush)
        pipeline.add_observer("store", self.after_tick)

    def keep_meta(self, key: str, value: Any) -> None:
        """One meta value saved now (the external seats' call counts, once a minute)."""
        if self.closed:
            return
        with self._lock:
            with self._transaction():
                self._set_meta(key, value)

    def resumed(self, tick: int) -> list[int]:
        """Note that the study went on from `tick` after an interruption; every such tick."""
        ticks = [*self.meta("resumed", []), int(tick)]
        with self._lock:
            with self._transaction():
                self._set_meta("resumed", ticks)
        return ticks


def saved_study(folder: Path) -> dict[str, Any] | None:
    """The identity of the study whose store is in `folder` (None: no store there)."""
    path = Path(folder) / STORE_NAME
    if not path.is_file():
        return None
    store = WorldStore(folder)
    try:
        return store.meta("study") if store.exists() else None
    finally:
        store.close()


def mismatch(folder: Path, remedy: str = "give --force to replace it") -> StudyError:
    return StudyError(
        codes.RESUME_MISMATCH,
        f"{folder} holds an interrupted study of another study file or seed; run that file "
        f"again to resume it, or {remedy}",
    )


class Resume:
    """What a folder's store says of an interrupted study, and the check that a replay made
    the same inputs."""

    def __init__(self, folder: Path, horizon: int, expected: dict[str, Any]) -> None:
        self.store = StudyStore(folder, horizon)
        try:
            self.store.check_format()
        except Exception as exc:
            self.store.close()
            raise StudyError(codes.RESUME_UNREADABLE, f"{folder}: {exc}") from None
        if self.store.meta("study") != expected:
            self.store.close()
            raise mismatch(folder)
        self.target = self.store.last_tick()
        self.saved = _by_tick(self.store.inputs(0))
        self.inputs = sum(len(rows) for rows in self.saved.values())
        self.diverged: str | None = None

    def check(self, tick: Any) -> None:
        """A watch on the replayed pipeline: the inputs of the tick just stepped are the ones
        the store acknowledged (the last saved tick may hold only what was flushed before the
        kill: those must be among them)."""
        if self.diverged is not None or tick.tick > self.target:
            return
        step = tick.tick - 1
        made = _by_tick(tick.inputs)
        ticks = {step} | set(made)
        for t in sorted(ticks):
            want = self.saved.get(t, [])
            got = made.get(t, [])
            complete = t < self.target - 1
            if (want != got) if complete else any(row not in got for row in want):
                self.diverged = (
                    f"at tick {t} the replay made {len(got)} inputs where {len(want)} were "
                    "acknowledged; the code, the content or a python agent changed since the "
                    "study was interrupted"
                )
                return

    def done(self, tick: int) -> bool:
        return self.diverged is not None or tick >= self.target


class Catchup:
    """A realtime study's acknowledged past, put back through the pipeline. Before the step of
    each tick: the outside events its journal saved at that tick (the seats' incidents, stamped
    with the next tick as they were) and the program host's events of that tick (a program's
    start and end, rebuilt from the journal, since no program runs again). The step applies
    the tick's saved inputs. Nobody decides meanwhile: the drivers are held aside, so only what
    was acknowledged happens."""

    def __init__(self, store: WorldStore, target: int) -> None:
        self.target = target
        rows = store.inputs(0)
        self.joins = [_line(row) for row in rows if row[1] is None]
        self.actions = inputs_by_tick(row for row in rows if row[1] is not None)
        self.programs: list[dict[str, Any]] = []  # journal entries for restore_state
        self.outside: dict[int, list[dict[str, Any]]] = {}  # add_event before a tick's step
        self.hosted: dict[int, list[dict[str, Any]]] = {}  # the program host's, likewise
        names: dict[int, str] = {}
        for _, tick, kind, body in store.journal_rows():
            if kind == "event":
                self._at(self.outside, tick, body["event"])
            elif kind == "program_submitted":
                names[int(body["key"])] = name = str(body.get("name", ""))
                self.programs.append(body)
                self._at(self.hosted, int(body.get("submitted", tick)), {
                    "kind": "program_started", "char": body["char"], "program": body["id"],
                    "name": name, "source": body.get("source")})
            elif kind == "program_ended":
                self.programs.append(body)
                self._at(self.hosted, int(body.get("ended") or tick), {
                    "kind": f"program_{body['status']}", "char": body["char"],
                    "program": body["id"], "name": names.get(int(body["key"]), ""),
                    "status": body["status"], "line": body.get("line"),
                    "outcome": body.get("outcome")})

    def _at(self, when: dict[int, list[dict[str, Any]]], tick: int, event: dict) -> None:
        # what was saved after the last tick applied joins the first tick after the resume
        when.setdefault(min(int(tick), self.target), []).append(dict(event))

    @property
    def inputs(self) -> int:
        return sum(len(rows) for rows in self.actions.values())

    def run(self, pipeline: Any) -> None:
        """Bring the pipeline's world (its configurations joined at tick 0, as the study's were)
        to the target tick; StudyError `resume_diverged` when its joins are not the saved ones.
        What was saved at the target tick itself is queued for the first tick after."""
        world = pipeline.world
        made = [_line(row) for row in world.inputs_since(0) if row[1] is None]
        if made != self.joins:
            raise StudyError(codes.RESUME_DIVERGED, f"the study's characters joined as {len(made)} "
                             f"inputs where {len(self.joins)} were acknowledged; the study "
                             "file's configurations changed since it was interrupted")
        held, pipeline.drivers = pipeline.drivers, []
        try:
            while world.tick < self.target:
                self._queue(pipeline, world.tick)
                pipeline.step(list(self.actions.get(world.tick, ())))
        finally:
            pipeline.drivers = held
        self._queue(pipeline, self.target)

    def _queue(self, pipeline: Any, tick: int) -> None:
        for event in self.outside.get(tick, ()):
            pipeline.add_event(event)
        sink = getattr(pipeline.programs, "sink", None)
        for event in self.hosted.get(tick, ()) if sink is not None else ():
            sink(event)  # stamped with this tick, as the host stamps its events


def _line(row: tuple[int, int | None, dict]) -> str:
    return json.dumps(list(row), sort_keys=True)


def _by_tick(rows: Iterable[tuple[int, int | None, dict]]) -> dict[int, list[str]]:
    """Rows as sorted JSON lines per tick (the order of one tick's rows is the store's, not
    necessarily the engine's)."""
    out: dict[int, list[str]] = {}
    for tick, char, action in rows:
        out.setdefault(int(tick), []).append(json.dumps([char, action], sort_keys=True))
    return {t: sorted(lines) for t, lines in out.items()}


# --- the models' answers, read back --------------------------------------------------------


class ReplayedModel:
    """An endpoint that answers a seat's first calls from its transcript (the same tool calls,
    text and token counts; a failed call fails again with the same cause and sentence), then
    asks the real model."""

    def __init__(self, llm: Any, calls: list[dict[str, Any]]) -> None:
        self.llm = llm
        self.calls = calls
        self.used = 0

    @property
    def replaying(self) -> bool:
        return self.used < len(self.calls)

    def complete(self, body: bytes, timeout: float | None = None) -> Reply:
        if not self.replaying:
            return self.llm.complete(body, timeout)
        record = self.calls[self.used]
        self.used += 1
        return answer(record)

    def latencies(self) -> list[float]:
        """The latencies the replayed calls had when they were made."""
        return [float(c.get("latency_ms") or 0.0) for c in self.calls[: self.used]]


def answer(record: dict[str, Any]) -> Reply:
    """The reply a transcript line records, or the failure it records (raised). A call the
    harness refused after reading it (a tool call cut off, or naming no offered tool) is given
    back as it came, so the harness counts its tokens and refuses it again."""
    error = record.get("error")
    if error and not record.get("tool_calls"):
        raise ModelError(error.get("cause") or "model_error", error.get("detail") or "")
    calls = [tool_call_of(record, i) for i in range(len(record.get("tool_calls") or []))]
    return Reply(
        content=record.get("content"), tool_calls=calls,
        usage=Usage(int(record.get("prompt_tokens") or 0),
                    int(record.get("completion_tokens") or 0),
                    int(record.get("cached_tokens") or 0)),
        finish_reason="tool_calls" if calls else "stop",
    )
