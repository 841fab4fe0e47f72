"""A study's progress on stderr: where the clock is, how long is left, and what each seat is doing.

On a terminal one line is rewritten in place (at most twice a second); otherwise (a log file, a
pipe, CI) a line is written every simulated minute, or every few minutes past an hour, so a
long study writes about sixty lines. It watches the pipeline and only reads: the counts it
shows are the ones the cost table will hold (calls, failures, incidents), read without a lock
from the seats' threads, so a line may be a call behind.
"""

from __future__ import annotations

import math
import os
import sys
import time
from typing import Any, TextIO

TERMINAL_EVERY_SECONDS = 0.5
LINES_PER_STUDY = 60  # past this many simulated minutes, a line every few minutes


def _duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


class StudyProgress:
    """`on_tick` is a pipeline watch; `done()` ends the terminal's line."""

    def __init__(self, run: Any, stream: TextIO | None = None,
                 clock: Any = time.perf_counter) -> None:
        self.run = run
        self.stream = stream
        self.clock = clock
        self.tty = self._stream().isatty()
        per_minute = run.content.time.ticks_per_minute
        self.per_minute = per_minute
        minutes = run.study.world.minutes
        self.every = per_minute * max(1, math.ceil(minutes / LINES_PER_STUDY))
        self.first: tuple[int, float] | None = None  # (tick, wall time) the clock started at
        self.last_shown = -math.inf
        self.shown = False

    def _stream(self) -> TextIO:
        return self.stream if self.stream is not None else sys.stderr

    def on_tick(self, tick: Any) -> None:
        now = self.clock()
        if self.first is None:
            self.first = (tick.tick - 1, now)
        if self.tty:
            if now - self.last_shown < TERMINAL_EVERY_SECONDS and tick.tick < self.run.horizon:
                return
            self.last_shown = now
            self._write("\r\x1b[K" + self.line(tick.tick, now)[: self._width() - 1])
        elif tick.tick % self.every == 0 or tick.tick == self.run.horizon:
            self._write(self.line(tick.tick, now) + "\n")

    def _width(self) -> int:
        """The terminal's columns (a longer line would wrap, and \\r rewrite only its end)."""
        try:
            columns = os.get_terminal_size(self._stream().fileno()).columns
        except (OSError, ValueError, AttributeError):
            columns = 0
        return columns if columns >= 40 else 120

    def done(self) -> None:
        if self.tty and self.shown:
            self._write("\n")

    def _write(self, text: str) -> None:
        stream = self._stream()
        stream.write(text)
        stream.flush()
        self.shown = True

    # --- the line -------------------------------------------------------------------------

    def line(self, tick: int, now: float) -> str:
        horizon = self.run.horizon
        head = (f"tick {tick}/{horizon} minute {tick // self.per_minute}/"
                f"{horizon // self.per_minute}")
        start_tick, start_wall = self.first or (tick, now)
        done, wall = tick - start_tick, now - start_wall
        if done > 0 and wall > 0:
            rate = done / wall
            head += f" {rate:.1f} ticks/s ETA {_duration((horizon - tick) / rate)}"
        else:
            head += " ETA ?"
        return " | ".join([head, *self.seats(tick)])

    def seats(self, tick: int) -> list[str]:
        run = self.run
        model = {seat.conf.name: seat for seat in run.model_seats}
        users = {seat.config: seat for seat in run.users.seats}
        out = []
        for conf in run.study.configurations:
            name = conf.name
            if name in model:
                seat = model[name]
                stats = seat.harness.stats
                out.append(f"{name}: {stats.calls} calls {stats.failures} failed "
                           f"{len(stats.incidents)} incidents, {self._model_state(seat, tick)}")
            elif name in users:
                seat = users[name]
                out.append(f"{name}: {seat.decisions + seat.failures} calls {seat.failures} "
                           f"failed, {'its turn' if tick >= seat.next_decision else 'idle'}")
            elif conf.kind in ("external", "human") and run.external is not None:
                calls = run.external.api_calls(name)
                state = "playing" if calls else "not called yet"
                out.append(f"{name}: {calls} calls {run.external.api_failures(name)} failed, "
                           f"{state}")
            else:
                out.append(f"{name}: built-in")
        return out

    @staticmethod
    def _model_state(seat: Any, tick: int) -> str:
        harness = seat.harness
        if harness.exhausted:
            return "budget spent"
        if seat.pending is not None:  # lockstep: a call sent, answered at a charged tick
            future = seat.future
            if future is not None and not future.done():
                return "waiting for its model"
            answered = seat.pending.tick_answered
            return f"thinking until tick {answered}" if answered is not None else "thinking"
        if seat.thread is not None:  # realtime: the harness says
            return harness.phase
        return "its turn" if tick >= seat.next_turn else "pausing"
