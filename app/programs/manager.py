"""The engine-side bridge between a World and its hosted programs.

A runner calls `before_step()` and `after_step(events)` around every `world.step()`:

- `before_step` resumes the programs that have something to do (new, preempted, or whose
  operation just ended) in character-id order, and submits each program's next action through
  `world.submit` — exactly the validation a direct action gets. A refused call is answered at
  once (the program sees GameError) and the program may try again, up to
  `budget.max_calls_per_tick` calls per tick.
- `after_step` reads `op_done` / `op_failed` / `op_cancelled` for the programs' operations and
  queues the replies for the next `before_step`.

A program parked on a long operation is in no per-tick list at all, so it costs nothing.

Program ids count per character (a character's first program is 1, whoever else submits), so
an id tells nothing about other characters' programs; the program host knows each program by a
key that counts for the whole world and is never reused (it also seeds the program's `random`).
A character's ended programs beyond the newest `ended_kept` are forgotten, so the records a
long-lived world holds stay bounded.

Durability: every submission and every end (finished, failed, stopped, cancelled, replaced,
interrupted) is handed to `journal` when one is set (a server's store saves it before the
submission is acknowledged); `restore_state(state, journal)` brings the records back after a
restart from a snapshot's `to_state()` and the journal entries saved after it.

The direct-action rule: a character has at most one program. A direct action other than `say`
stops that character's program (status `stopped`, code `direct_action`); the server should call
`direct_action(char_id, action)` (or `submit_direct`) before submitting it, and an `action` event
for an operation the program did not start stops it too, one tick later.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from asiworld.engine import ActionResult, Refusal, World, actions, codes
from asiworld.engine.events import refused_event
from asiworld.engine.seeding import program_seed
from asiworld.engine.text import clean, first_invalid
from asiworld.engine.text import valid as valid_text
from asiworld.programs.host import HostCrashed, LocalHost, SliceRow, green_threads
from asiworld.programs.limits import (
    DEFAULT_BUDGET,
    ENDED_KEPT,
    HOST_MEMORY_BYTES,
    PROGRAMS_MEMORY_BYTES,
    Budget,
)
from asiworld.programs.pool import HostPool

log = logging.getLogger(__name__)

ACTIVE = ("running", "waiting")
OP_ENDS = ("op_done", "op_failed", "op_cancelled")
NEVER_INTERRUPTS = ("say",)
MAX_NAME = 64
FEEDBACK_EVENTS = 50  # recent program events kept per character
LOG_LINES = 200


def action_table() -> list[dict]:
    """The engine's action table as plain data, read at each submit (never a stale copy)."""
    return actions.describe()


@dataclass
class ProgramRecord:
    """What the engine side knows about one program (the host holds the running code)."""

    id: int  # counts per character
    char: int
    name: str
    submitted: int  # tick
    status: str = "running"
    line: int | None = None
    steps_tick: int = 0
    steps_total: int = 0
    logs: list[str] = field(default_factory=list)
    outcome: dict | None = None
    action: dict | None = None  # the call it is blocked on
    op: int | None = None
    uses_observation: bool = True  # the first slice always gets an observation
    ended: int | None = None  # tick
    key: int = 0  # the host's name for it: unique in the world, never reused

    def status_dict(self) -> dict:
        out = {
            "id": self.id,
            "char": self.char,
            "name": self.name,
            "status": self.status,
            "line": self.line,
            "steps_tick": self.steps_tick,
            "steps_total": self.steps_total,
            "submitted": self.submitted,
        }
        if self.status == "waiting" and self.action is not None:
            out["waiting_for"] = {"op": self.op, **self.action}
        if self.outcome is not None:
            out["outcome"] = self.outcome
            out["ended"] = self.ended
        return out


def _refused_text(name: Any, source: Any) -> dict | None:
    """A program's name and source as a submission needs them, or the refusal."""
    if type(name) is not str or not name.strip() or len(name) > MAX_NAME:
        return _refusal(codes.BAD_ARGUMENT, f"a program name is 1 to {MAX_NAME} characters")
    if type(source) is not str:
        return _refusal(codes.BAD_ARGUMENT, "program source must be text")
    for what, value in (("name", name), ("source", source)):
        if not valid_text(value):  # it is journaled, recorded and shown: UTF-8 only
            return _refusal(codes.BAD_TEXT, f"the program's {what} is not valid text (a lone "
                            f"surrogate at position {first_invalid(value)})")
    return None


def _refusal(code: str, message: str) -> dict:
    return {"ok": False, "code": code, "message": message}


class ProgramManager:
    """Programs for one world. Not thread-safe: call it from the thread that steps the world."""

    def __init__(
        self,
        world: World,
        *,
        budget: Budget = DEFAULT_BUDGET,
        in_process: bool = False,
        host_factory: Callable[[], Any] | None = None,
        slice_deadline: float | None = None,
        ended_kept: int = ENDED_KEPT,
        memory_budget: int | None = PROGRAMS_MEMORY_BYTES,
        program_memory: int = HOST_MEMORY_BYTES,
    ) -> None:
        """`slice_deadline`: seconds a live world waits each tick for its programs (see
        asiworld.programs.pool); None, for headless and lockstep runs, waits for every answer.
        `ended_kept`: ended programs kept per character (at least 1). `memory_budget`: bytes
        all programs' processes may hold together (None: no budget); past it the largest are
        ended `out_of_memory` (checked every 10 ticks live, every 100 headless). `program_memory`: the
        address space of each program's process. Neither applies to the in-process host."""
        if type(ended_kept) is not int or ended_kept < 1:
            raise ValueError("ended_kept is a whole number of at least 1")
        self.world = world
        self.budget = budget
        self.ended_kept = ended_kept
        # Internally every table is keyed by the program's key (see the module docstring).
        self.records: dict[int, ProgramRecord] = {}
        self.active: dict[int, int] = {}  # char id -> program key
        self.runnable: set[int] = set()  # program keys to resume before the next step
        self.replies: dict[int, dict] = {}  # program key -> reply to its pending call
        self.waiting_ops: dict[int, int] = {}  # op id -> program key
        self.feedback: dict[int, deque] = {}  # char id -> recent program events
        self.next_key = 1
        self.next_ids: dict[int, int] = {}  # char id -> its next program id
        # char id -> its programs on record by program id, in the order of their ids
        self._mine: dict[int, dict[int, ProgramRecord]] = {}
        # Where submissions and ends go to be saved (a server's store), or None.
        self.journal: Callable[[dict], Any] | None = None
        self._host_factory = host_factory or (
            LocalHost
            if in_process
            else partial(
                HostPool,
                slice_deadline=slice_deadline,
                memory_budget=memory_budget,
                program_memory=program_memory,
            )
        )
        self._host: Any = None
        self._host_lock = threading.Lock()  # the host is made by the clock or by `prepare`
        self._prepares = not in_process and host_factory is None  # a process pool compiles
        self.host_restarts = 0
        self._drops: list[int] = []  # ended programs the host should forget
        self._streaming = False  # slices are being read from the host
        # Where program lifecycle events also go (a server passes runner.add_event), so the
        # world's event stream, its replays and evaluations see programs start and end.
        self.sink: Callable[[dict], Any] | None = None

    # -- lifecycle ------------------------------------------------------------------------
    def prepare(self, name: Any, source: Any) -> Any:
        """Check and compile a program before its submission, on the caller's thread (not the
        world's clock: compiling a large program takes a second). The ticket to hand `submit`;
        a refusal (a dict) when the program is refused; None when nothing could be prepared
        (the submission then compiles it). Safe off the clock's thread: it touches only the
        host pool's spare process."""
        refused = _refused_text(name, source)
        if refused is not None:
            return refused
        if not self._prepares or green_threads():
            # in-process hosts compile at the submission, on the clock's thread; so does a
            # server under eventlet, whose green threads would all wait on the host's pipe
            return None
        prepare = getattr(self._ensure_host(), "prepare", None)
        if prepare is None:
            return None
        reply = prepare(source)
        if isinstance(reply, dict):  # it does not compile: said now, the clock untouched
            error = reply.get("error") or {}
            out = _refusal(error.get("code", codes.FORBIDDEN), error.get("message", "refused"))
            out["line"] = error.get("line")
            return out
        return reply

    def submit(self, char_id: int, name: str, source: str, prepared: Any = None) -> dict:
        """Start a program for a character. -> {"ok": True, "id"} or {"ok": False, code, message}.
        `prepared`: the ticket `prepare` gave for this source (its compile is done)."""
        if isinstance(prepared, dict):
            return prepared
        if type(char_id) is not int or self._observe(char_id) is None:
            if prepared is not None:
                prepared.close()
            return _refusal(codes.UNKNOWN_CHARACTER, f"there is no character {char_id!r}")
        refused = _refused_text(name, source)
        if refused is not None:
            return refused
        key = self.next_key
        seed = program_seed(self.world.seed, char_id, key)
        msg = {
            "op": "submit",
            "pid": key,
            "char": char_id,
            "name": name,
            "source": source,
            "seed": seed,
            "budget": self.budget.to_dict(),
            "actions": action_table(),
        }
        try:
            host = self._ensure_host()
            reply = host.request(msg, prepared) if prepared is not None else host.request(msg)
        except HostCrashed as exc:
            return _refusal(codes.HOST_UNAVAILABLE, f"the program host is unavailable: {exc}")
        if not reply.get("ok"):
            error = reply.get("error") or {}
            out = _refusal(error.get("code", codes.FORBIDDEN), error.get("message", "refused"))
            out["line"] = error.get("line")
            return out
        self.next_key += 1
        pid = self.next_ids.get(char_id, 1)
        self.next_ids[char_id] = pid + 1
        previous = self.active.get(char_id)
        if previous is not None:
            self._stop(previous, codes.REPLACED, f"replaced by program {pid} ({name})")
        record = ProgramRecord(
            id=pid, char=char_id, name=name, submitted=self.world.tick, key=key
        )
        self._add(record)
        self.active[char_id] = key
        self.runnable.add(key)
        self._note(
            # the source too: a resumed study's events give the start back as it was
            "program_submitted", record, name=name, submitted=record.submitted, source=source
        )
        self._feedback(record, "program_started")
        self._publish(record, "program_started", source=source)
        return {"ok": True, "id": pid}

    def record(self, char_id: int, pid: int) -> ProgramRecord | None:
        """Character `char_id`'s program `pid`, or None (never another character's)."""
        return self._mine.get(char_id, {}).get(pid)

    def programs_of(self, char_id: int) -> list[ProgramRecord]:
        """A character's programs still on record, oldest first."""
        return list(self._mine.get(char_id, {}).values())

    def status(self, char_id: int, pid: int) -> dict | None:
        record = self.record(char_id, pid)
        return record.status_dict() if record else None

    def logs(self, char_id: int, pid: int) -> list[str] | None:
        record = self.record(char_id, pid)
        return list(record.logs) if record else None

    def outcome(self, char_id: int, pid: int) -> dict | None:
        record = self.record(char_id, pid)
        return record.outcome if record else None

    def cancel(self, char_id: int, pid: int) -> dict:
        """Stop a program. The character's current operation is left to finish."""
        record = self.record(char_id, pid)
        if record is None:
            return _refusal(codes.UNKNOWN_PROGRAM, f"this character has no program {pid!r}")
        if record.status not in ACTIVE:
            return _refusal(codes.NOT_RUNNING, f"program {pid} already {record.status}")
        self._stop(record.key, codes.CANCELLED, "cancelled on request")
        return {"ok": True, "id": pid, "status": record.status}

    def direct_action(self, char_id: int, action: Any) -> None:
        """Apply the direct-action rule before a direct action is submitted for a character."""
        kind = action.get("type") if isinstance(action, dict) else None
        key = self.active.get(char_id)
        if key is not None and kind not in NEVER_INTERRUPTS:
            self._stop(key, codes.DIRECT_ACTION, f"stopped by a direct {kind} action")

    def submit_direct(self, char_id: int, action: Any) -> ActionResult:
        """A direct action with the rule applied: the program stops, then the world checks it."""
        result = self.world.submit(char_id, action)
        if result.ok:
            self.direct_action(char_id, action)
        return result

    # -- the tick -------------------------------------------------------------------------
    def before_step(self) -> None:
        """Resume programs with work to do and submit their actions (before `world.step()`)."""
        if self.active:
            due = getattr(self._host, "memory_check_due", None)  # the process host's
            if due is not None and due(self.world.tick):
                self._keep_to_memory_budget()
        if not self.runnable:
            return
        due = sorted(self.runnable, key=self._order)
        self.runnable = set()
        self._streaming = True
        try:
            self._run_slices(due)
        except HostCrashed as exc:
            self._host_crashed(str(exc))
        finally:
            self._streaming = False
        self._flush_drops()

    def after_step(self, events: list[dict]) -> None:
        """Read the operations' endings from a tick's events (after `world.step()`)."""
        waiting, active = self.waiting_ops, self.active
        for event in events:
            kind = event.get("kind")
            if kind in OP_ENDS:
                key = waiting.pop(event.get("op"), None)
                if key is not None:
                    self._op_ended(key, kind, event)
            elif kind == "action" and event.get("char") in active:
                key = active[event["char"]]
                record = self.records[key]
                if event.get("op") != record.op and event.get("type") not in NEVER_INTERRUPTS:
                    self._stop(
                        key, codes.DIRECT_ACTION, f"stopped by a direct {event.get('type')} action"
                    )

    def _keep_to_memory_budget(self) -> None:
        """End the programs that hold the most memory until the rest fit the world's budget
        together: one process per program, each under its own cap, can still add up to more
        than the machine has."""
        over = getattr(self._host, "over_memory", None)
        if over is None:  # no host yet, or the in-process host
            return
        budget = self._host.memory_budget
        for key, held in over():
            record = self.records.get(key)
            if record is None or record.status not in ACTIVE:
                continue
            self._stop(
                key,
                codes.OUT_OF_MEMORY,
                f"all programs together held more than the world's budget of "
                f"{budget >> 20} MiB; this one held the most ({held >> 20} MiB)",
                status="failed",
            )

    def _order(self, key: int) -> tuple[int, int]:
        return (self.records[key].char, key)

    def _run_slices(self, due: list[int]) -> None:
        """Run the due programs' slices and submit their actions as the slices stream in.

        A refused call, or a request for this tick's observation, is answered at once: the
        program's next run is queued behind the others (in the order the answers were read, so
        the order is fixed), up to `2 * max_calls_per_tick` runs per program per tick; past that
        it is answered next tick.
        """
        host = self._ensure_host()
        runs = dict.fromkeys(due, 1)  # runs per program this tick
        most = 2 * self.budget.max_calls_per_tick
        self._send_runs(host, due, new_tick=True)
        pending = len(due)
        while pending:
            piece = SliceRow(*host.next_slice())
            pending -= 1
            key = piece.pid
            if piece.kind == "thinking":  # a live world's deadline passed: it answers later
                self.runnable.add(key)
                continue
            record = self.records[key]
            self._apply_slice(record, piece)
            if piece.kind == "intent":
                again = not self._submit_intent(record, piece.action)
            elif piece.kind == "observe":
                record.uses_observation = True
                again = True
            else:
                again = False
                if piece.kind == "preempted":
                    self.runnable.add(key)
                else:
                    self._ended(record)
            if not again:
                continue
            if runs[key] >= most:
                self.runnable.add(key)
                continue
            runs[key] += 1
            self._send_runs(host, [key], new_tick=False)
            pending += 1

    def _send_runs(self, host: Any, keys: list[int], new_tick: bool) -> None:
        replies, records = self.replies, self.records
        runs = []
        for key in keys:
            record = records[key]
            observation = self._observe(record.char) if record.uses_observation else None
            runs.append([key, replies.pop(key, None), observation])
        host.send_runs({"op": "run", "tick": self.world.tick, "new_tick": new_tick, "runs": runs})

    def _submit_intent(self, record: ProgramRecord, action: dict) -> bool:
        """Submit a program's call; False (and the refusal queued as its reply) if refused."""
        result = self.world.submit(record.char, action)
        record.action = action
        if result.ok:
            record.op = result.op
            record.status = "waiting"
            self.waiting_ops[result.op] = record.key
            return True
        record.op = None
        record.status = "running"
        self.replies[record.key] = _refusal(result.code, result.message)
        if self.sink is not None:  # counted with every seat's refusals (the `refused` event)
            self.sink({**refused_event(record.char, action, result.code), "program": record.id})
        self._feedback(
            record,
            "program_call",
            action=action,
            ok=False,
            code=result.code,
            message=result.message,
        )
        return False

    def _op_ended(self, key: int, kind: str, event: dict) -> None:
        record = self.records[key]
        if record.status not in ACTIVE:
            return
        if kind == "op_done":
            reply = {"ok": True, "result": event.get("result") or {}}
            self._feedback(
                record, "program_call", action=record.action, ok=True, result=reply["result"]
            )
        elif kind == "op_failed":
            reply = _refusal(event.get("code", "failed"), event.get("message", ""))
            self._feedback(
                record,
                "program_call",
                action=record.action,
                ok=False,
                code=reply["code"],
                message=reply["message"],
            )
        else:
            reason = event.get("reason", "cancelled")
            reply = _refusal(
                codes.CANCELLED, f"the {event.get('type')} operation was cancelled: {reason}"
            )
            self._feedback(
                record,
                "program_call",
                action=record.action,
                ok=False,
                code=codes.CANCELLED,
                message=reply["message"],
            )
        record.op = None
        record.status = "running"
        self.replies[key] = reply
        self.runnable.add(key)

    def _stop(self, key: int, code: str, message: str, status: str = "stopped") -> None:
        record = self.records[key]
        if record.status not in ACTIVE:
            return
        try:
            reply = self._request(
                {"op": "stop", "pid": key, "code": code, "message": message, "status": status}
            )
            self._apply_report(record, reply["report"])
        except HostCrashed as exc:
            self._host_crashed(str(exc))
        if record.status in ACTIVE:  # the host lost it: end it here
            record.status = status
            record.outcome = {"error": {"code": code, "message": message, "line": record.line}}
        self._ended(record)

    def _ended(self, record: ProgramRecord) -> None:
        key = record.key
        record.ended = self.world.tick
        self.runnable.discard(key)
        self.replies.pop(key, None)
        if record.op is not None:
            self.waiting_ops.pop(record.op, None)
        if self.active.get(record.char) == key:
            del self.active[record.char]
        self._note_end(record)
        self._feedback(record, f"program_{record.status}", outcome=record.outcome)
        self._forget_ended(record.char)
        self._drops.append(key)
        if not self._streaming:  # mid-stream the pipe carries slices: drop afterwards
            self._flush_drops()

    def _add(self, record: ProgramRecord) -> None:
        self.records[record.key] = record
        mine = self._mine.setdefault(record.char, {})
        mine[record.id] = record
        if len(mine) > 1 and next(reversed(mine)) != max(mine):  # restored out of order
            self._mine[record.char] = dict(sorted(mine.items()))

    def _forget_ended(self, char_id: int) -> None:
        """Keep a character's newest `ended_kept` ended programs; forget the older ones."""
        mine = self._mine.get(char_id, {})
        if len(mine) <= self.ended_kept:  # at most one of them is still running
            return
        ended = [r for r in mine.values() if r.status not in ACTIVE]
        for record in ended[: len(ended) - self.ended_kept]:
            del self.records[record.key]
            del mine[record.id]

    def _note(self, kind: str, record: ProgramRecord, **fields: Any) -> None:
        if self.journal is not None:
            self.journal(
                {"kind": kind, "key": record.key, "id": record.id, "char": record.char, **fields}
            )

    def _note_end(self, record: ProgramRecord) -> None:
        self._note(
            "program_ended",
            record,
            status=record.status,
            outcome=record.outcome,
            line=record.line,
            ended=record.ended,
            steps_total=record.steps_total,
        )

    def _flush_drops(self) -> None:
        """Tell the host to forget ended programs."""
        if not self._drops or self._host is None:
            return
        keys, self._drops = self._drops, []
        try:
            self._request({"op": "drop", "pids": keys})
        except HostCrashed:
            pass

    def _host_crashed(self, why: str) -> None:
        """Every program of the dead host fails; the next request starts a fresh host."""
        host, self._host = self._host, None
        if host is not None:
            try:
                host.close()  # what is left of it (a pool's zygote and other processes)
            except Exception:  # noqa: BLE001 - it is being discarded anyway
                log.debug("closing a crashed host failed", exc_info=True)
        self.host_restarts += 1
        for key in sorted(self.active.values()):
            record = self.records[key]
            record.status = "failed"
            record.outcome = {
                "error": {
                    "code": codes.HOST_CRASHED,
                    "line": record.line,
                    "message": f"the program host crashed ({why}); the program was stopped",
                }
            }
            record.ended = self.world.tick
            self._note_end(record)
            self._feedback(record, "program_failed", outcome=record.outcome)
            if record.op is not None:
                self.waiting_ops.pop(record.op, None)
        for char_id in list(self.active):
            self._forget_ended(char_id)
        self.active.clear()
        self.runnable.clear()
        self.replies.clear()
        self._drops.clear()

    def _apply_slice(self, record: ProgramRecord, piece: SliceRow) -> None:
        record.status = piece.status
        record.line = piece.line
        record.steps_tick = piece.steps_tick
        record.steps_total = piece.steps_total
        record.uses_observation = piece.uses_observation
        if piece.extra:
            self._apply_logs_and_outcome(record, piece.extra)

    def _apply_report(self, record: ProgramRecord, report: dict) -> None:
        record.status = report["status"]
        record.line = report.get("line")
        record.steps_tick = report.get("steps_tick", 0)
        record.steps_total = report.get("steps_total", 0)
        record.uses_observation = report.get("uses_observation", record.uses_observation)
        self._apply_logs_and_outcome(record, report)

    def _apply_logs_and_outcome(self, record: ProgramRecord, report: dict) -> None:
        for line in report.get("logs", ()):
            line = clean(line)  # a program's own text: repaired, never refused after the fact
            record.logs.append(line)
            self._feedback(record, "program_log", text=line)
        if len(record.logs) > LOG_LINES:
            del record.logs[: len(record.logs) - LOG_LINES]
        if "outcome" in report:
            record.outcome = clean(report["outcome"])

    # -- observations ---------------------------------------------------------------------
    def observation_extra(self, char_id: int, consume: bool = True) -> dict:
        """Program status and recent program events to merge into a character's observation."""
        mine = self.programs_of(char_id)
        current = [r.status_dict() for r in mine if r.status in ACTIVE]
        last_ended = [r for r in mine if r.status not in ACTIVE]
        if last_ended:
            current.append(max(last_ended, key=lambda r: (r.ended or 0, r.id)).status_dict())
        events = self.feedback.get(char_id, deque())
        out = {"programs": current, "program_events": list(events)}
        if consume:
            events.clear()
        return out

    def _publish(self, record: ProgramRecord, kind: str, **fields: Any) -> None:
        if self.sink is not None:
            self.sink(
                {
                    "kind": kind,
                    "char": record.char,
                    "program": record.id,
                    "name": record.name,
                    **fields,
                }
            )

    def _feedback(self, record: ProgramRecord, kind: str, **fields: Any) -> None:
        if kind not in ("program_started", "program_call", "program_log"):
            self._publish(record, kind, status=record.status, line=record.line, **fields)
        events = self.feedback.get(record.char)
        if events is None:
            events = self.feedback[record.char] = deque(maxlen=FEEDBACK_EVENTS)
        events.append(
            {
                "tick": self.world.tick,
                "kind": kind,
                "program": record.id,
                "name": record.name,
                **fields,
            }
        )

    def _observe(self, char_id: int) -> dict | None:
        try:
            return self.world.observe(char_id, consume=False)
        except Refusal:  # not a character of this world
            return None

    # -- persistence ----------------------------------------------------------------------
    def to_state(self) -> dict:
        """JSON-ready records (not the running code: programs do not survive a restart)."""
        return {
            "next_key": self.next_key,
            "next_ids": {str(char): n for char, n in sorted(self.next_ids.items())},
            "records": [vars(r) | {"logs": list(r.logs)} for r in self.records.values()],
        }

    def restore_state(self, state: dict, journal: list[dict] = ()) -> None:
        """After a restart: the records of `state` (a snapshot's `to_state()`), then the journal
        entries saved after it, in order (submissions and ends: nothing acknowledged is lost);
        programs that were running or waiting are marked `interrupted`, and that end is journaled
        too. A state written when ids were global (`next_id`, records without a key) reads as
        keys equal to those ids."""
        self.next_key = max(self.next_key, int(state.get("next_key", state.get("next_id", 1))))
        for char, n in (state.get("next_ids") or {}).items():
            self.next_ids[int(char)] = max(self.next_ids.get(int(char), 1), int(n))
        for data in state.get("records", ()):
            record = ProgramRecord(**({"key": data["id"]} | data))
            self._restored(record)
        for entry in journal:
            self._replay(entry)
        for record in sorted(self.records.values(), key=lambda r: r.key):
            if record.status in ACTIVE:
                self._interrupted(record)
        for char_id in {r.char for r in self.records.values()}:
            self._forget_ended(char_id)

    def _restored(self, record: ProgramRecord) -> None:
        self._add(record)
        self.next_key = max(self.next_key, record.key + 1)
        self.next_ids[record.char] = max(self.next_ids.get(record.char, 1), record.id + 1)

    def _replay(self, entry: dict) -> None:
        """One saved journal entry (idempotent: a snapshot may already hold its effect)."""
        key = int(entry["key"])
        record = self.records.get(key)
        if entry["kind"] == "program_submitted" and record is None:
            self._restored(
                ProgramRecord(
                    id=int(entry["id"]),
                    char=int(entry["char"]),
                    name=entry["name"],
                    submitted=int(entry["submitted"]),
                    key=key,
                )
            )
        elif entry["kind"] == "program_ended" and record is not None:
            record.status = entry["status"]
            record.outcome = entry.get("outcome")
            record.line = entry.get("line")
            record.ended = entry.get("ended")
            record.steps_total = entry.get("steps_total", record.steps_total)
            record.action = record.op = None

    def _interrupted(self, record: ProgramRecord) -> None:
        where = f" at line {record.line}" if record.line else ""
        record.status = "interrupted"
        record.ended = self.world.tick
        record.action = record.op = None
        record.outcome = {
            "error": {
                "code": codes.INTERRUPTED,
                "line": record.line,
                "message": f"the world restarted at tick {self.world.tick} (its server or "
                f"study was stopped and resumed) while program "
                f"{record.name!r} was running{where}; it did not resume — submit it again",
            }
        }
        self._note_end(record)
        self._feedback(record, "program_interrupted", outcome=record.outcome)

    def rebind(self, world: Any) -> None:
        """Host programs for `world` from now on (a fork replaced the live world): the old
        world's programs are forgotten with their host process (their character ids name other
        characters now); program ids and keys keep counting, so an id is never reused."""
        self.close()
        self.world = world
        self.records.clear()
        self._mine.clear()
        self.active.clear()
        self.runnable.clear()
        self.replies.clear()
        self.waiting_ops.clear()
        self.feedback.clear()
        self._drops.clear()

    def close(self) -> None:
        if self._host is not None:
            self._host.close()
            self._host = None

    def start_host(self, wait: bool = False) -> None:
        """Start the program host now rather than at the first submission (a study, before its
        clock: the host's start-up would otherwise hold the tick of the first program);
        `wait`: until it can take a program (a pool's spare process is up)."""
        host = self._ensure_host()
        ready = getattr(host, "ready", None)
        if wait and ready is not None:
            ready()

    def _ensure_host(self) -> Any:
        with self._host_lock:
            if self._host is None:
                self._host = self._host_factory()
            return self._host

    def _request(self, msg: dict) -> dict:
        return self._ensure_host().request(msg)
