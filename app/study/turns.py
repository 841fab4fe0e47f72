"""Turn-taking for a lockstep study's external seats: an outside agent is offered a turn at its
decision ticks, as a model seat is, and the world waits for it.

At a seat's decision tick T the world stops before stepping and the seat's turn is open (its
observation says `"turn": {"tick": T, ...}`, `GET .../next_turn` returns it). The seat's one
decision of the turn (an action, a `wait`, a program or a cancel; or a pass: asking for a turn
after T, `next_turn?after=T`) closes it; the decision is
charged the clock's think time, like a model call: it acts at T + `clock.charge(output)`,
`output` being the completion tokens the seat reported with its decision (`tokens: {input,
output}`; none reported: 0), and the seat's next turn opens then. On the `fixed` rule every
decision costs the same; on `tokens` the same reported tokens give the same ticks. A seat that has not decided
within its `turn_seconds` (wall seconds) misses the turn: an incident `turn_missed`, and its
character idles on until its next decision tick, T + the same charge. A world-changing call
outside the seat's open turn is refused with 409 `not_your_turn`.

A decision's answer carries the seat's next turn when it opens at the tick the decision acted
(`"turn": {...}`, or null: the character died, the study ended), so an agent in a hurry makes
one round trip a turn: the next turn is already in hand, `next_turn` need not be asked.

Everything the seats decide reaches the world at a tick fixed by the turns alone, never by when
the calls arrived: the same study, agents and answers give the same state hash.

Each decision is told to `on_decided` as it acts (the study keeps it: asiworld.study.decisions),
and a killed study played again is handed them back (`replay`): a turn whose decision is in
hand is decided with it at once (`redo` makes the call again), passed or missed again, and
offered to the seat's agent only once the kept decisions run out.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from asiworld.engine import codes
from asiworld.server.errors import ApiError


def _pass() -> None:
    """The decision of a turn passed: nothing."""


@dataclass
class Turn:
    tick: int
    deadline: float  # wall clock (time.time()) by which the seat decides
    decision: Callable[[], Any] | None = None  # run on the world's thread at the due tick
    due: int | None = None  # the tick the decision acts at (T + the think charge)
    charge: int | None = None  # the decision's think charge (None: the clock's least)
    record: dict[str, Any] | None = None  # what the decision was (asiworld.study.decisions)
    replayed: bool = False  # decided from a killed study's kept decisions, not by the seat
    result: Any = None
    error: BaseException | None = None
    done: threading.Event = field(default_factory=threading.Event)

    def offer(self) -> dict[str, Any]:
        return {"tick": self.tick, "deadline": round(self.deadline, 3),
                "seconds_left": round(max(0.0, self.deadline - time.time()), 3)}


@dataclass
class TurnSeat:
    name: str
    char: int
    turn_seconds: float
    next_turn: int = 0
    absent: bool = False  # never came within the entry deadline: no turn is offered
    turn: Turn | None = None


class ExternalTurns:
    """The turns of a lockstep study's external seats (see the module docstring). The agent
    API's request threads call `offer`, `wait_for_turn` and `decide`; the study's thread calls
    `before_tick` between ticks, with the world's thread idle."""

    def __init__(self, charge: int, charge_tokens: Callable[[int], int] | None = None) -> None:
        """`charge`: the think ticks of a decision that reports no tokens (a pass, a missed
        turn); `charge_tokens`: the clock's rule for one that reports its completion tokens."""
        self.charge = charge
        self.charge_tokens = charge_tokens or (lambda output: charge)
        self.seats: dict[int, TurnSeat] = {}
        self.ended = False
        self.opened_through = -1  # the last tick whose turns are open (or were not offered)
        self._changed = threading.Condition()
        # called (off the lock, on the study's thread) with each seat whose turn just opened
        self.on_open: Callable[[int, dict[str, Any]], None] | None = None
        # called on the study's thread with each decision as it acts, before it acts
        self.on_decided: Callable[[TurnSeat, dict[str, Any]], None] | None = None
        # a resumed study's kept decisions by character, and the call that makes one again
        self.replay: dict[int, deque[dict[str, Any]]] = {}
        self.redo: Callable[[int, dict[str, Any]], Callable[[], Any]] | None = None

    def add(self, name: str, char: int, turn_seconds: float, tick: int) -> None:
        self.seats[char] = TurnSeat(name, char, turn_seconds, next_turn=tick)

    # --- the agent API's side ---------------------------------------------------------------

    def offer(self, char: int) -> dict[str, Any] | None:
        """The seat's open turn (None: none is open, or it has decided already)."""
        with self._changed:
            seat = self.seats.get(char)
            turn = seat.turn if seat is not None else None
            return turn.offer() if turn is not None and turn.decision is None else None

    def wait_for_turn(self, char: int, timeout: float,
                      after: int = -1) -> dict[str, Any] | None:
        """Block until the seat has an open turn at a tick after `after` (its offer), the
        study ends or `timeout` passes (None)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not self.ended:
                seat = self.seats.get(char)
                turn = seat.turn if seat is not None else None
                if turn is not None and turn.decision is None:
                    if turn.tick > after:
                        return turn.offer()
                    # waiting past its open turn: the seat passes it (its decision is none)
                    turn.decision, turn.record = _pass, {"op": "pass"}
                    self._changed.notify_all()
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._changed.wait(left)
        return None

    def decide(self, char: int, run: Callable[[], Any],
               tokens: dict[str, int] | None = None, answer_turn: bool = False,
               record: dict[str, Any] | None = None) -> Any:
        """The seat's decision of its open turn: `run` is done on the world's thread at the
        due tick, and its answer returned then. 409 not_your_turn outside an open turn.
        `tokens` (`{input, output}`, reported by the seat) set its think charge by the
        clock's rule, as a model call's. `answer_turn`: an answer that is a dict carries the
        seat's next turn (`turn`, see the module docstring). `record`: the call, as
        `redo` makes it again (asiworld.study.decisions)."""
        with self._changed:
            seat = self.seats.get(char)
            turn = seat.turn if seat is not None else None
            if turn is None or turn.decision is not None:
                taken = turn is not None
                raise ApiError(codes.NOT_YOUR_TURN, (
                    f"this turn (tick {turn.tick}) is decided already: one decision per turn"
                    if taken else "it is not your turn: on the lockstep clock a seat acts in "
                    "its turn (GET next_turn waits for it)"))
            turn.decision, turn.record = run, record
            if tokens is not None:  # kept with the decision: the cost table sums them
                turn.record = {**(record or {}), "tokens": {
                    "input": int(tokens.get("input", 0)), "output": int(tokens.get("output", 0))}}
                turn.charge = self.charge_tokens(int(tokens.get("output", 0)))
            self._changed.notify_all()
        turn.done.wait()
        if turn.error is not None:
            raise turn.error
        if answer_turn and isinstance(turn.result, dict) and turn.due is not None:
            return {**turn.result, "turn": self.turn_after(char, turn.due)}
        return turn.result

    def turn_after(self, char: int, tick: int, timeout: float = 10.0) -> dict[str, Any] | None:
        """Once the turns at `tick` are open (the study's thread does it right after running
        the decisions due then): the seat's open turn after `tick`, or None."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self.opened_through < tick and not self.ended:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._changed.wait(left)
            seat = self.seats.get(char)
            turn = seat.turn if seat is not None else None
            if turn is None or turn.decision is not None or turn.tick < tick:
                return None
            return turn.offer()

    # --- the study's side -------------------------------------------------------------------

    def before_tick(self, tick: int, world_call: Callable[[Callable[[], Any]], Any],
                    alive: Callable[[int], bool],
                    missed: Callable[[TurnSeat, Turn], None],
                    clock: Callable[[], float] = time.time) -> None:
        """Run the decisions due at `tick`, open the turns that fall on it, and wait until each
        of those is decided or its deadline has passed."""
        for seat in self.seats.values():
            turn = seat.turn
            if turn is not None and turn.due is not None and turn.due <= tick:
                if self.on_decided is not None and not turn.replayed:
                    self.on_decided(seat, {"turn": turn.tick, "due": turn.due,
                                           **(turn.record or {"op": "pass"})})
                try:
                    turn.result = world_call(turn.decision)
                except Exception as exc:  # the answer of the call (an ApiError, a refusal)
                    turn.error = exc
                with self._changed:
                    seat.turn = None
                    seat.next_turn = tick
                turn.done.set()
        opened = []
        with self._changed:
            for seat in self.seats.values():
                if (seat.turn is None and not seat.absent and tick >= seat.next_turn
                        and alive(seat.char)):
                    seat.turn = Turn(tick, clock() + seat.turn_seconds)
                    self._decide_as_kept(seat, tick)
                    opened.append(seat)
            self.opened_through = tick
            self._changed.notify_all()
        if self.on_open is not None:  # pushed to the seat (its Socket.IO room), off the lock
            for seat, turn in [(s, s.turn) for s in opened]:
                if turn is not None and not turn.replayed:
                    self.on_open(seat.char, turn.offer())
        with self._changed:
            while True:
                waiting = [s for s in opened if s.turn is not None and s.turn.decision is None]
                for seat in [s for s in waiting if clock() >= s.turn.deadline]:
                    turn, seat.turn = seat.turn, None
                    seat.next_turn = tick + self.charge
                    waiting.remove(seat)
                    self._changed.release()  # the incident goes through the world's thread
                    try:
                        if self.on_decided is not None and not turn.replayed:
                            self.on_decided(seat, {"turn": turn.tick, "op": "missed"})
                        missed(seat, turn)
                    finally:
                        self._changed.acquire()
                if not waiting:
                    break
                left = min(s.turn.deadline for s in waiting) - clock()
                self._changed.wait(max(0.001, min(left, 0.5)))
            for seat in opened:
                if seat.turn is not None and seat.turn.due is None:
                    charge = seat.turn.charge
                    seat.turn.due = tick + (self.charge if charge is None else charge)

    def _decide_as_kept(self, seat: TurnSeat, tick: int) -> None:
        """A turn just opened at `tick` (under the lock): decided at once from a resumed
        study's kept decision of it, if there is one; a kept miss is missed again now."""
        kept = self.replay.get(seat.char)
        while kept and kept[0]["turn"] < tick:  # a turn this replay does not offer
            kept.popleft()
        if not kept or kept[0]["turn"] != tick:
            return
        record, turn = kept.popleft(), seat.turn
        turn.replayed = True
        if record["op"] == "missed":
            turn.deadline = 0.0  # past: the loop below misses it, as it was missed
            return
        if record["op"] == "pass" or self.redo is None:
            turn.decision = _pass
        else:
            turn.decision = self.redo(seat.char, record)
        turn.record = record
        turn.charge = int(record["due"]) - tick

    def end(self, tick: int) -> None:
        """The horizon: decisions not yet due never act (their calls answer study_ended)."""
        with self._changed:
            self.ended = True
            for seat in self.seats.values():
                turn, seat.turn = seat.turn, None
                if turn is not None:
                    turn.error = ApiError(codes.STUDY_ENDED, f"the study ended at tick {tick}",
                                          tick=tick)
                    turn.done.set()
            self._changed.notify_all()
