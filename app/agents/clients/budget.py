"""What a model seat's calls cost, and where it must stop.

Prices are US dollars per million tokens: input (prompt tokens the server had not cached),
cached input (those it had; charged as input when no price is given) and output (completion
tokens). A budget caps a seat's calls, tokens (prompt and completion) and dollars; the seat
stops calling its model at the first call that reaches a cap (that call is paid for and acts,
so a cap may be passed by one call's own size).
"""

from __future__ import annotations

from dataclasses import dataclass

MILLION = 1_000_000


@dataclass(frozen=True)
class Prices:
    input: float = 0.0
    output: float = 0.0
    cached_input: float | None = None

    def dollars(self, prompt: int, completion: int, cached: int = 0) -> float:
        cached = min(max(0, cached), max(0, prompt))
        cached_rate = self.input if self.cached_input is None else self.cached_input
        return ((prompt - cached) * self.input + cached * cached_rate
                + completion * self.output) / MILLION


@dataclass(frozen=True)
class Budget:
    calls: int | None = None
    tokens: int | None = None
    dollars: float | None = None

    def reached(self, calls: int, tokens: int, dollars: float) -> str | None:
        """The cap reached, in words ("calls: 500 of 500"), or None while under every cap."""
        if self.calls is not None and calls >= self.calls:
            return f"calls: {calls} of {self.calls}"
        if self.tokens is not None and tokens >= self.tokens:
            return f"tokens: {tokens:,} of {self.tokens:,}"
        if self.dollars is not None and dollars >= self.dollars:
            return f"dollars: {dollars:.4f} of {self.dollars:g}"
        return None
