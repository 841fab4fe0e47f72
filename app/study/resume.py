"""A lockstep study survives SIGKILL: its folder keeps what was acknowledged, and a second
`asiworld study run` on it finishes the study with the same result an uninterrupted run gives.

What is kept, and by whom (nothing here is a second persistence):

* **The world's acknowledged inputs**: the server's store (asiworld.server.persistence), a
  SQLite file `world.sqlite3` in the study's folder, on the pipeline's `durable` hook (saved
  before they are applied) and its "store" observer (the applied log of each tick). A study
  keeps the whole log (one snapshot, at tick 0) so that it can be checked from the seed.
* **The models' answers**: the transcripts (asiworld.agents.transcript), one line per call,
  appended as each turn is applied.

A resume cannot start from a snapshot: the built-in agents and the harnesses remember what they
saw, and an agent that starts over plays differently. So it plays the study again from tick 0
with the same seeds, and every model call the transcripts already hold is answered from them
(`ReplayedModel`) instead of asking the model again; the world's inputs are compared tick by tick
with the acknowledged ones (a difference stops the study: `resume_diverged`). At the store's
last tick the store is attached again and the study goes on with the real model; transcripts
number on after their last call, so no line is written twice. A turn that was in flight at the
kill was never applied nor written: it is asked again.

A realtime study is not resumed (its world did not wait for the models, so the answers cannot
be put back at the ticks they acted): `resume_unsupported`, or `--force` to start it again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from asiworld.agents.harness import chat_completion
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
        """As the server's, but a tick that applied no input (about half of a study's) is not a
        transaction of its own: it changes nothing saved but the tick reached, and that is
        written once a minute (a resume goes at least to the last input's tick, and past it
        the study is played again anyway)."""
        if info.inputs or info.tick % 60 == 0 or self._log_applied != self.runner.world.input_log_end:
            super().after_tick(info)

    def begin(self, pipeline: Any, study: dict[str, Any], size: int | None) -> None:
        """A new study's world, before anyone joins: its first snapshot and which study it is;
        from now on every tick is saved."""
        self.runner = pipeline  # flush and after_tick read `.world`
        world = pipeline.world
        with self._lock:
            self._start(world, size)
            self.db.execute("BEGIN IMMEDIATE")
            self._set_meta("study", study)
            self.db.execute("COMMIT")
        self.attach_pipeline(pipeline)

    def attach_pipeline(self, pipeline: Any) -> None:
        """Save from the pipeline's current tick on (a new world, or a resumed one that has
        caught up with what was saved)."""
        self.runner = pipeline
        world = pipeline.world
        self._log_applied = self._log_journaled = world.input_log_end
        self._pending_journaled = len(world.pending)
        self._last_snapshot = self.newest_snapshot_tick() or 0
        pipeline.durable.append(self.flush)
        pipeline.add_observer("store", self.after_tick)


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


def mismatch(folder: Path) -> StudyError:
    return StudyError(
        "resume_mismatch",
        f"{folder} holds an interrupted study of another study file or seed; run that file "
        "again to resume it, or give --force to replace it",
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
            raise StudyError("resume_unreadable", f"{folder}: {exc}") from None
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


def _by_tick(rows: Iterable[tuple[int, int | None, dict]]) -> dict[int, list[str]]:
    """Rows as sorted JSON lines per tick (the order of one tick's rows is the store's, not
    necessarily the engine's)."""
    out: dict[int, list[str]] = {}
    for tick, char, action in rows:
        out.setdefault(int(tick), []).append(json.dumps([char, action], sort_keys=True))
    return {t: sorted(lines) for t, lines in out.items()}


# --- the models' answers, read back --------------------------------------------------------


class ReplayedModel:
    """`.chat.completions.create` that answers a seat's first calls from its transcript (the
    same tool calls, text and token counts; a failed call fails again with the same cause and
    sentence), then asks the real model."""

    def __init__(self, llm: Any, calls: list[dict[str, Any]]) -> None:
        self.llm = llm
        self.calls = calls
        self.used = 0
        self.chat = self
        self.completions = self

    @property
    def replaying(self) -> bool:
        return self.used < len(self.calls)

    def create(self, **body: Any) -> Any:
        if not self.replaying:
            return chat_completion(self.llm, **body)
        record = self.calls[self.used]
        self.used += 1
        return answer(record, str(body.get("model", "")))

    def latencies(self) -> list[float]:
        """The latencies the replayed calls had when they were made."""
        return [float(c.get("latency_ms") or 0.0) for c in self.calls[: self.used]]


class ReplayedFailure(Exception):
    """A model call that failed when it was made, failing again the same way."""

    incident_cause = "model_error"


def answer(record: dict[str, Any], model: str) -> Any:
    """The reply a transcript line records, or the failure it records (raised)."""
    from openai.types.chat import ChatCompletion

    error = record.get("error")
    detail = (error or {}).get("detail", "")
    malformed = detail.startswith("MalformedReply: ")
    if error and not (malformed and "has no message" not in detail):
        name, _, message = detail.partition(": ")
        failure = type(name or "ModelError", (ReplayedFailure,),
                       {"incident_cause": error.get("cause") or "model_error"})
        raise failure(message)
    calls = [{"id": f"call_{record['call']}_{i}", "type": "function",
              "function": {"name": c["name"], "arguments": c.get("arguments") or ""}}
             for i, c in enumerate(record.get("tool_calls") or [])]
    message = {"role": "assistant", "content": record.get("content"), "tool_calls": calls or None}
    choices = [] if "has no choices" in detail else [
        {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}]
    prompt, completion = int(record.get("prompt_tokens") or 0), int(
        record.get("completion_tokens") or 0)
    return ChatCompletion.model_validate({
        "id": f"replayed-{record['call']}", "object": "chat.completion", "created": 0,
        "model": model, "choices": choices,
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                  "total_tokens": prompt + completion},
    })
