"""A built-in configuration playing on a remote server through the SDK: observe, decide, act,
then think (the world keeps ticking meanwhile) — the loop an outside agent runs, until it is
stopped or told its study ended."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from asiworld.agents.bots.base import Agent
from asiworld.agents.clients.sdk import ApiError, Client, ServerUnreachable, StudyEnded

log = logging.getLogger(__name__)


@dataclass
class RemoteSeat:
    client: Client
    agent: Agent
    think_seconds: float = 0.5
    decisions: int = 0
    refusals: int = 0
    errors: int = 0

    def decide_once(self) -> dict | None:
        """One observe-decide-act round; the answer to the action (or None). On a lockstep
        study the round is the seat's turn (it waits for it)."""
        if self.client.await_turn() is None and self.client.takes_turns:
            return None  # no turn came within the wait: ask again
        obs = self.client.observe()
        action = self.agent.decide(obs)
        self.decisions += 1
        if action is None:
            return None
        result = self.client.act(action)
        if not result.get("ok"):
            self.refusals += 1
        self.agent.feedback(result)
        return result

    def run(self, decisions: int | None = None, sleep: Callable[[float], None] = time.sleep):
        done = 0
        while decisions is None or done < decisions:
            try:
                self.decide_once()
            except StudyEnded:  # the study's horizon: nothing more to play
                break
            except ServerUnreachable as err:  # the server restarts or the network blips
                self.errors += 1
                log.warning("%s; retrying", err)
                sleep(min(30.0, 2.0 ** min(self.errors, 5)))
                continue
            except ApiError as err:
                self.errors += 1
                log.warning("the server refused: %s", err)
            done += 1
            if not self.client.takes_turns:  # in turns the clock charges the think time
                sleep(self.think_seconds)
        return self
