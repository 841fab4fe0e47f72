"""A study's language-model seats: one LLM harness per `openai` configuration, playing its
character through an in-process agent port (asiworld.agent_port.PipelinePort), on one of
the two clocks.

- `LockstepSeats` is a pipeline driver. Before a tick it finishes every turn whose answer is due
  (its tool calls act now) and begins the turns of seats that are ready (observation now, the
  model asked on a worker thread). The world keeps stepping while calls are in flight, but never
  past an answer it has not received: a call sent at tick T is waited for at T + the clock's
  least charge, and acts at T + its full charge. Seats are handled in the study's order and the
  answers depend only on the prompts, so a deterministic model gives the same world every run.
- `RealtimeSeats` runs each harness on a thread of its own against a running WorldRunner: the
  world does not wait, a model's latency is its think time.
"""

from __future__ import annotations

import logging
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from asiworld.agent_port import PipelinePort
from asiworld.agents.clients.budget import Budget, Prices
from asiworld.agents.clients.endpoint import Endpoint
from asiworld.agents.clients.harness import Harness, HarnessConfig, Pending
from asiworld.agents.clients.transcript import Transcript
from asiworld.engine import codes

from .spec import Lockstep, OpenAIConfiguration, Study, StudyError, render_prompt

log = logging.getLogger(__name__)


def make_llm(conf: OpenAIConfiguration) -> Endpoint:
    # Local servers (vLLM, llama.cpp, Ollama, the fake model) accept any key.
    key = os.environ.get(conf.api_key_env) or "not-needed"
    return Endpoint(conf.model_url, key, timeout=conf.request_timeout)


def check_endpoints(study: Study, timeout: float = 10.0) -> None:
    """StudyError `model_unreachable` when a model seat's endpoint does not answer HTTP at all:
    said before the study writes anything, rather than as a study of failed calls."""
    asked: dict[str, str | None] = {}
    for conf in study.configurations:
        if not isinstance(conf, OpenAIConfiguration):
            continue
        if conf.model_url not in asked:
            asked[conf.model_url] = make_llm(conf).reachable(timeout)
        why = asked[conf.model_url]
        if why is not None:
            raise StudyError(codes.MODEL_UNREACHABLE, f"configuration {conf.name!r}: {why}; start "
                             "the model server first (for the packaged local model: asiworld "
                             "model serve) or correct its model_url")


def harness_config(study: Study, conf: OpenAIConfiguration, horizon: int,
                   session: str | None = None) -> HarnessConfig:
    price, budget = conf.price, conf.budget
    return HarnessConfig(
        model=conf.model, name=conf.name, label=conf.label or conf.name, session=session,
        max_retries=conf.max_retries, backoff_base=conf.backoff_seconds,
        request_timeout=conf.request_timeout, feedback_kept=conf.history,
        history_turns=conf.history_turns, max_tokens=conf.max_tokens,
        temperature=conf.temperature, tool_choice=conf.tool_choice,
        text_actions=conf.text_actions, observation=conf.observation,
        tool_schemas=conf.tool_schemas, programs=conf.programs,
        system=render_prompt(study, conf), prompt_source=conf.prompt or "default",
        horizon_tick=horizon, clock=study.clock.describe(),
        prices=None if price is None else Prices(price.input, price.output, price.cached_input),
        budget=None if budget is None else Budget(budget.calls, budget.tokens, budget.dollars),
    )


@dataclass
class ModelSeat:
    conf: OpenAIConfiguration
    char: int
    client: PipelinePort
    harness: Harness
    transcript: Transcript
    next_turn: int = 0
    pending: Pending | None = None
    future: Future | None = None
    thread: threading.Thread | None = None
    errors: list[str] = field(default_factory=list)

    def prompt_record(self) -> dict[str, Any]:
        """What the seat's model was told and how (results.json `meta.prompts`, Table 2)."""
        conf, harness = self.conf, self.harness
        return {
            "name": conf.name, "model": conf.model, "source": harness.config.prompt_source,
            "sha256": harness.system_sha256, "characters": len(harness.system),
            "tools_sha256": harness.tools_sha256, "tool_schemas": conf.tool_schemas,
            "observation": conf.observation,
            "history": conf.history, "history_turns": conf.history_turns,
            "tool_choice": conf.tool_choice, "text_actions": conf.text_actions,
            "max_tokens": conf.max_tokens, "temperature": conf.temperature,
            "instructions": conf.instructions,
        }

    def cost(self) -> dict[str, Any]:
        """The seat's row of the report's cost table."""
        harness = self.harness
        stats = harness.stats
        return {
            "name": self.conf.name, "kind": "openai", "model": self.conf.model,
            "turns": stats.turns, "calls": stats.calls, "failures": stats.failures,
            "prompt_tokens": stats.prompt_tokens, "completion_tokens": stats.completion_tokens,
            "cached_tokens": stats.cached_tokens,
            "dollars": round(stats.dollars, 6) if self.conf.price is not None else None,
            "tool_calls": stats.tool_calls, "replies": dict(stats.replies),
            "latencies_ms": list(stats.latencies_ms),
            "incidents": len(stats.incidents), "budget_exhausted": stats.exhausted,
            "prompt": {"source": harness.config.prompt_source, "sha256": harness.system_sha256,
                       "characters": len(harness.system)},
        }


def seat_model(pipeline: Any, study: Study, conf: OpenAIConfiguration, char: int, out: Path,
               horizon: int, call: Any = None) -> ModelSeat:
    clock = study.clock
    lockstep = isinstance(clock, Lockstep)
    client = PipelinePort(pipeline, char, call=call, lockstep=lockstep, tool_calls=True)
    transcript = Transcript(out / "transcripts" / f"{conf.name}.jsonl")
    charge = (lambda tokens: clock.charge(tokens or 0)) if lockstep else None
    if lockstep:
        pause = None
    else:
        speed = clock.speed
        stop = threading.Event()
        pause = (lambda: stop.wait(conf.pause_ticks / speed)) if conf.pause_ticks else (lambda: None)
    # the seat's game: its world's seed and its name (a study's seeds may share one endpoint)
    session = f"seed{pipeline.world.seed}/{conf.name}"
    config = harness_config(study, conf, horizon, session)
    harness = Harness(client, make_llm(conf), config, pause=pause,
                      transcript=transcript, charge=charge,
                      approver=lambda prompt: "n")
    return ModelSeat(conf, char, client, harness, transcript, next_turn=pipeline.world.tick)


class LockstepSeats:
    """The pipeline driver of a lockstep study's model seats (see the module docstring)."""

    def __init__(self, seats: list[ModelSeat], clock: Lockstep, workers: int = 8) -> None:
        self.seats = seats
        self.least = clock.charge(0)  # no call is answered sooner than this
        self.pool = ThreadPoolExecutor(max_workers=max(1, min(workers, len(seats) or 1)),
                                       thread_name_prefix="model")

    def before_step(self, pipeline: Any) -> None:
        tick = pipeline.world.tick
        for seat in self.seats:
            if seat.pending is not None:
                if tick < seat.pending.tick_sent + self.least:
                    continue
                seat.future.result()  # the answer decides when it acts: wait for it now
                if tick < seat.pending.tick_answered:
                    continue
                seat.harness.finish(seat.pending)
                seat.pending = seat.future = None
                seat.next_turn = tick + seat.conf.pause_ticks
            if seat.harness.exhausted:
                continue  # its budget is spent: it calls its model no more
            if tick >= seat.next_turn and seat.client.ready(tick) and self._alive(pipeline, seat):
                seat.pending = seat.harness.begin()
                seat.future = self.pool.submit(seat.harness.ask, seat.pending)

    def deliver(self, events: list[dict]) -> None:
        for seat in self.seats:
            seat.client.deliver(events)

    @staticmethod
    def _alive(pipeline: Any, seat: ModelSeat) -> bool:
        return seat.char in pipeline.world.entities

    def close(self) -> None:
        """At the horizon: answers still in flight are dropped (their calls are in the
        transcript as sent, never acted on)."""
        for seat in self.seats:
            if seat.future is not None:
                seat.future.result()
                seat.harness.abandon(seat.pending)
        self.pool.shutdown(wait=True)
        for seat in self.seats:
            seat.transcript.close()


class RealtimeSeats:
    """Each model seat on a thread of its own; the runner's world never waits for them."""

    def __init__(self, seats: list[ModelSeat]) -> None:
        self.seats = seats
        self.stop = threading.Event()

    def start(self) -> None:
        for seat in self.seats:
            seat.thread = threading.Thread(target=self._play, args=(seat,), daemon=True,
                                           name=f"seat-{seat.conf.name}")
            seat.thread.start()

    def _play(self, seat: ModelSeat) -> None:
        while not self.stop.is_set() and not seat.harness.exhausted:
            try:
                seat.harness.turn()
            except Exception as exc:  # a harness bug must not end the study
                log.exception("seat %s: turn failed", seat.conf.name)
                seat.errors.append(f"{type(exc).__name__}: {exc}")
                self.stop.wait(0.5)
            if not self.stop.is_set():
                seat.harness.pause()

    def deliver(self, events: list[dict]) -> None:
        for seat in self.seats:
            seat.client.deliver(events)

    def close(self, timeout: float = 10.0) -> None:
        self.stop.set()
        for seat in self.seats:
            seat.client.stop()  # a seat waiting for an event is told at once
        for seat in self.seats:
            if seat.thread is not None:
                seat.thread.join(timeout)
        for seat in self.seats:
            if seat.thread is not None and seat.thread.is_alive():
                # still in a model request past the timeout: it writes nothing more
                log.warning("seat %s did not stop in %g s", seat.conf.name, timeout)
                seat.harness.transcript = None
            seat.transcript.close()
