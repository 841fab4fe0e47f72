"""One running program: a greenlet that switches out at each API call and when over budget.

`run_slice(reply)` resumes the program until it next needs the world. What comes back is a
`Slice`: `intent` (an action to submit), `preempted` (per-tick step budget spent), `finished`
(with the outcome value) or `failed`/`stopped` (with an error). The program never sees the host:
API calls look like ordinary blocking functions that return a result dict or raise GameError.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import islice
from types import FrameType, TracebackType
from typing import Any

import greenlet
from asiworld.programs.api import GameError, build_api
from asiworld.programs.compiler import PROGRAM_FILENAME, CompiledProgram
from asiworld.programs.guards import Guards, ProgramLimit
from asiworld.programs.limits import Budget
from asiworld.programs.sizes import log_line, short_text

RUNNING, WAITING, FINISHED, FAILED, STOPPED = "running", "waiting", "finished", "failed", "stopped"
TERMINAL = (FINISHED, FAILED, STOPPED)
MAX_OUTCOME_CHARS = 2000
MAX_OUTCOME_PARTS = 2000  # parts of an outcome value copied out of the sandbox (see plain)


# The outcome codes only the host and the world give (a stop by force, a budget, a crash):
# a program raising GameError with one of them is reported as its own error instead.
SYSTEM_CODES = frozenset({
    "cpu_time_exceeded", "out_of_memory", "host_crashed", "host_unavailable", "too_deep",
    "too_large", "step_budget_exhausted", "interrupted", "cancelled", "replaced", "stopped",
    "direct_action",
})


class ProgramStopped(BaseException):
    """Raised inside a program to end it; a BaseException so `except Exception` cannot catch it.

    Once a program is stopped every guard raises again, so even code that somehow catches this
    cannot keep running.
    """

    def __init__(self, code: str, message: str, status: str = FAILED) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


@dataclass
class Slice:
    kind: str  # "intent" | "observe" | "preempted" | "finished" | "failed" | "stopped"
    action: dict | None = None
    value: Any = None
    error: dict | None = None


class ProgramRandom:
    """The only randomness a program gets: seeded from the world, so re-runs repeat."""

    def __init__(self, seed: str) -> None:
        self._rng = random.Random(seed)

    def random(self) -> float:
        return self._rng.random()

    def randint(self, a: int, b: int) -> int:
        return self._rng.randint(a, b)

    def uniform(self, a: float, b: float) -> float:
        return self._rng.uniform(a, b)

    def choice(self, items: Any) -> Any:
        return self._rng.choice(items)

    def shuffle(self, items: list) -> None:
        if type(items) is not list:
            raise TypeError("shuffle() takes a list")
        self._rng.shuffle(items)


def plain(value: Any, parts: int = MAX_OUTCOME_PARTS) -> Any:
    """A JSON-ready copy of a program's value (outcomes leave the sandbox only as plain data),
    of at most `parts` parts in all: a value built from shared references (`a = [a] * 200`, nine
    times over) is small in memory but astronomically large as a tree, so the copy counts every
    part it makes, shared or not, and cuts the rest off as "..."."""
    left = [parts]

    def copy(value: Any, depth: int) -> Any:
        left[0] -= 1
        if left[0] < 0:
            return "..."
        kind = type(value)
        if value is None or kind is bool or kind is float:
            return value
        if kind is int:
            return str(value) if value.bit_length() > 64 else value
        if kind is str:
            return value[:MAX_OUTCOME_CHARS]
        if depth > 8:
            return "..."
        if kind in (list, tuple, set, frozenset):
            return [copy(v, depth + 1) for v in islice(value, 200) if left[0] > 0]
        if kind is dict:
            return {
                short_text(k, 100): copy(v, depth + 1)
                for k, v in islice(value.items(), 200)
                if left[0] > 0
            }
        return short_text(value, 200)

    return copy(value, 0)


def program_line(frame: FrameType | None) -> int | None:
    """The line the program is on: the innermost frame that belongs to program code."""
    while frame is not None:
        if frame.f_code.co_filename == PROGRAM_FILENAME:
            return frame.f_lineno
        frame = frame.f_back
    return None


def traceback_line(tb: TracebackType | None) -> int | None:
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == PROGRAM_FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


class ProgramRuntime:
    """A program's greenlet, its budget counters, logs and latest observation."""

    def __init__(
        self,
        pid: int,
        char_id: int,
        name: str,
        compiled: CompiledProgram,
        seed: str,
        budget: Budget,
        actions: list[dict],
    ) -> None:
        self.pid = pid
        self.actions = actions  # the engine's action table: the program API is made from it
        self.char_id = char_id
        self.name = name
        self.budget = budget
        self.status = RUNNING
        self.steps = 0  # total steps so far
        self.tick_start = 0  # self.steps when this tick began
        self.limit = budget.steps_per_tick  # next checkpoint: tick budget or total budget
        self.debt = 0  # steps charged past an earlier tick's budget, paid off before it runs
        self.depth = 0
        self.line: int | None = None
        self.logs: list[str] = []
        self.logs_dropped = 0
        self.new_logs: list[str] = []  # since the last slice report
        self.outcome: dict | None = None
        self.observation: dict = {}
        self.uses_observation = False
        self.tick = 0  # the world tick of the current slice
        self.observation_tick = -1  # the tick self.observation was taken at
        self.stop_signal: tuple[str, str, str] | None = None  # (code, message, status)
        self._compiled = compiled
        self._seed = seed
        self._greenlet: greenlet.greenlet | None = None  # made in the thread that runs it

    # -- guards (called from program code) ---------------------------------------------------
    def step(self) -> None:
        self.steps += 1
        if self.steps >= self.limit:
            self._checkpoint()

    def charge(self, n: int) -> None:
        self.steps += n
        if self.steps >= self.limit:
            self._checkpoint()

    def enter(self) -> None:
        if self.depth >= self.budget.max_depth:
            raise RecursionError(f"calls nested deeper than {self.budget.max_depth}")
        self.depth += 1
        self.step()

    def leave(self) -> None:
        self.depth -= 1

    def _raise_stop(self) -> None:
        assert self.stop_signal is not None
        raise ProgramStopped(*self.stop_signal)

    def _checkpoint(self) -> None:
        if self.stop_signal is not None:
            self._raise_stop()
        if self.steps >= self.budget.steps_total:
            self.stop_signal = (
                "step_budget_exhausted",
                f"used its total budget of {self.budget.steps_total} steps",
                FAILED,
            )
            self.limit = 0
            self._raise_stop()
        # Over this tick's budget: park until the next tick, then carry on where it was.
        self._switch_out(Slice("preempted"))

    def _switch_out(self, what: Slice) -> Any:
        assert self._greenlet is not None
        reply = self._greenlet.parent.switch(what)
        if self.stop_signal is not None:
            self._raise_stop()
        return reply

    # -- the handle the API uses -------------------------------------------------------------
    def call(self, action: dict) -> dict:
        self.step()
        reply = self._switch_out(Slice("intent", action=action))
        if reply.get("ok"):
            return dict(reply.get("result") or {})
        refused = GameError(str(reply.get("code", "failed")), str(reply.get("message", "")))
        refused.from_world = True  # the world's refusal, not one the program raised itself
        raise refused

    def latest_observation(self) -> dict:
        self.uses_observation = True
        if self.observation_tick != self.tick:
            # Stale: ask the engine side for this tick's observation (answered in the same tick).
            self._switch_out(Slice("observe"))
        return self.observation

    def log(self, text: str) -> None:
        self.step()
        line = text[: self.budget.max_log_chars]
        self.logs.append(line)
        self.new_logs.append(line)
        if len(self.logs) > self.budget.max_log_lines:
            del self.logs[0]
            self.logs_dropped += 1

    # -- driving it ---------------------------------------------------------------------------
    def begin_tick(self) -> bool:
        """A new tick's budget. -> False when the program sits this tick out: one big charge
        (a million-item build costs 3,906 steps) took it past an earlier tick's budget, and the
        overshoot is paid off a tick's budget per tick, so its work per tick stays bounded."""
        self.tick_start = self.steps
        if self.stop_signal is not None:
            self.limit = 0
            return True
        per_tick = self.budget.steps_per_tick
        self.debt += max(self.steps - self.limit, 0)
        if self.debt >= per_tick:
            self.debt -= per_tick
            self.limit = self.steps
            return False
        self.limit = min(self.steps + per_tick - self.debt, self.budget.steps_total)
        self.debt = 0
        return True

    def run_slice(
        self, reply: dict | None = None, observation: dict | None = None, tick: int | None = None
    ) -> Slice:
        """Resume the program with the reply to its last call; return what it wants next."""
        if self.status in TERMINAL:
            return Slice(self.status, error=self.outcome)
        if tick is not None:
            self.tick = tick
        if observation is not None:
            self.observation = observation
            self.observation_tick = self.tick
        if self._greenlet is None:
            self._greenlet = greenlet.greenlet(self._main)
        self.status = RUNNING
        result: Slice = self._greenlet.switch(reply)
        self._after(result)
        return result

    def stop(self, code: str, message: str, status: str = STOPPED) -> Slice:
        """End the program from outside (cancel, direct action, host shutdown)."""
        if self.status in TERMINAL:
            return Slice(self.status, error=self.outcome)
        self.stop_signal = (code, message, status)
        self.limit = 0
        if self._greenlet is None or not self._greenlet:
            result = self._ended(status, code, message, None)
        else:
            result = self._greenlet.throw(ProgramStopped(code, message, status))
        self._after(result)
        return result

    def _after(self, result: Slice) -> None:
        if result.kind == "intent":
            self.status = WAITING
        elif result.kind in ("preempted", "observe"):
            self.status = RUNNING
        else:
            self.status = result.kind
        if self._greenlet is not None and not self._greenlet.dead:
            self.line = program_line(self._greenlet.gr_frame)

    def _main(self, _first: Any) -> Slice:
        # Nothing may escape the greenlet (it would reach the host's own loop): a stop that
        # lands while an ending is being reported still ends the program, as that stop.
        try:
            return self._run_to_end()
        except ProgramStopped as stop:
            return self._ended(stop.status, stop.code, stop.message, self.line)
        except BaseException as exc:  # noqa: BLE001 - reported, never re-raised
            return self._ended(FAILED, "program_error", type(exc).__name__, self.line)

    def _run_to_end(self) -> Slice:
        names = self.globals()
        try:
            exec(self._compiled.code, names)
            main = names.get("main")
            value = main() if callable(main) else None
            # Copied out under the program's guards: a stop (CPU alarm) is reported as its own.
            self.outcome = {"value": plain(value), "line": None}
        except ProgramStopped as stop:
            return self._ended(
                stop.status, stop.code, stop.message, traceback_line(stop.__traceback__)
            )
        except GameError as exc:
            code, message = exc.code, exc.message
            if code in SYSTEM_CODES and not getattr(exc, "from_world", False):
                # A program may raise GameError, but not pass for the host stopping it.
                code, message = "program_error", f"GameError({exc.code!r}): {exc.message}"
            return self._ended(FAILED, code, message, traceback_line(exc.__traceback__))
        except ProgramLimit as exc:
            return self._ended(FAILED, exc.code, exc.message, traceback_line(exc.__traceback__))
        except RecursionError as exc:
            return self._ended(
                FAILED, "too_deep", f"recursion too deep: {exc}", traceback_line(exc.__traceback__)
            )
        except MemoryError as exc:
            return self._ended(
                FAILED,
                "out_of_memory",
                "the program ran out of memory",
                traceback_line(exc.__traceback__),
            )
        except Exception as exc:  # the program's own bug: report it with its line
            message = f"{type(exc).__name__}: {short_text(exc, MAX_OUTCOME_CHARS)}"
            return self._ended(FAILED, "program_error", message, traceback_line(exc.__traceback__))
        return Slice(FINISHED, value=self.outcome["value"])

    def _ended(self, status: str, code: str, message: str, line: int | None) -> Slice:
        where = f"line {line}: " if line is not None else ""
        self.line = line
        self.outcome = {"error": {"code": code, "message": f"{where}{message}", "line": line}}
        self.status = status
        return Slice(status, error=self.outcome["error"])

    def globals(self) -> dict[str, Any]:
        guards = Guards(self.budget, self.charge, self.step)
        names: dict[str, Any] = dict(guards.names())
        names.update(
            {
                "_step_": self.step,
                "_enter_": self.enter,
                "_leave_": self.leave,
                "_print_": lambda _getattr=None: _LogPrinter(self),
                "__builtins__": safe_builtins(guards),
                "__name__": "program",
                "random": ProgramRandom(self._seed),
                "GameError": GameError,
            }
        )
        names.update(build_api(self, self.actions))
        return names

    def report(self) -> dict:
        """A JSON-ready status line for the engine side."""
        report = {
            "id": self.pid,
            "status": self.status,
            "line": self.line,
            "steps_tick": self.steps - self.tick_start,
            "steps_total": self.steps,
        }
        if self.new_logs:
            report["logs"] = self.new_logs
            self.new_logs = []
        if self.status in TERMINAL:
            report["outcome"] = self.outcome
        return report


class _LogPrinter:
    """What RestrictedPython's `print(...)` rewrite calls: print goes to the program's log."""

    def __init__(self, rt: ProgramRuntime) -> None:
        self._rt = rt

    def _call_print(self, *values: Any, **_kwargs: Any) -> None:
        self._rt.log(log_line(values, self._rt.budget.max_log_chars))

    def __call__(self) -> str:
        return ""


def safe_builtins(guards: Guards) -> dict[str, Any]:
    # Every built-in that builds a value or walks one in C is wrapped: sizes are checked before
    # anything is built, and iterators charge a step per item (see guards.Guards).
    return {
        "len": len,
        "range": guards.range,
        "min": guards.charged(min),
        "max": guards.charged(max),
        "sorted": guards.sorted_,
        "sum": guards.sum,
        "abs": abs,
        "round": round,
        "divmod": divmod,
        "enumerate": guards.lazy(enumerate),
        "zip": guards.lazy(zip),
        "reversed": guards.lazy(reversed),
        "map": guards.lazy(map),
        "filter": guards.lazy(filter),
        "any": guards.charged(any),
        "all": guards.charged(all),
        "list": guards.collection(list),
        "dict": guards.dict_(),
        "set": guards.collection(set),
        "tuple": guards.collection(tuple),
        "str": guards.str_(),
        "int": guards.int_(),
        "float": float,
        "bool": bool,
        "chr": chr,
        "ord": ord,
        "repr": guards.repr_,
        "isinstance": guards.isinstance_,
        "True": True,
        "False": False,
        "None": None,
        "Exception": Exception,
        "ValueError": ValueError,
        "KeyError": KeyError,
        "IndexError": IndexError,
        "TypeError": TypeError,
        "ZeroDivisionError": ZeroDivisionError,
    }
