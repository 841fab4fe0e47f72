"""`asiworld study estimate`: what a study's model seats will cost at most, before it starts.

Bounds, per seat and seed:
- calls: on the lockstep clock every call costs at least the clock's least charge in ticks and
  a turn (at most max_retries + 1 calls) is followed by pause_ticks, so a seat makes at most
  the fewer of horizon / least calls and horizon / (least + pause_ticks) turns of
  max_retries + 1 calls; a budget's `calls` lowers that. The realtime clock
  bounds nothing (a fast model calls as often as it answers): only a budget does.
- prompt tokens per call: the largest prompt the seat's settings allow (its system prompt, its
  tool list, the first observation of this study's world, every result line `history` keeps at
  its longest, every turn `history_turns` keeps), counted at 2 characters per token: BPE
  tokenizers give English and JSON 3-4 characters a token, so this overstates.
- completion tokens per call: `max_tokens`.
- tokens and dollars: calls times the per-call bounds; a budget cap lowers them to the cap
  plus one call (the call that reaches a cap is paid for).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from asiworld.agents.clients.harness import PROGRAM_TOOLS, clock_line
from asiworld.agents.clients.tools import openai_tools
from asiworld.engine import World, load_content

from .spec import Lockstep, OpenAIConfiguration, Study, render_prompt

CHARACTERS_PER_TOKEN = 2
RESULT_LINE_CHARS = 640  # a tool result as the prompt shows it: name, arguments and answer, cut


@dataclass
class SeatEstimate:
    name: str
    calls: int | None  # None: no bound (realtime without a budget)
    prompt_tokens: int  # per call, at most
    completion_tokens: int  # per call, at most
    tokens: int | None
    dollars: float | None  # None: no price (or no bound)
    priced: bool


def estimate(study: Study) -> list[SeatEstimate]:
    content = load_content()
    horizon = study.world.minutes * content.time.ticks_per_minute
    seeds = len(study.world.seed_list())
    world = World.create(seed=study.world.seed_list()[0], content=content, size=study.world.size)
    chars = {c.name: world.add_character(c.name, label=c.label or c.name)
             for c in study.configurations}
    out = []
    for conf in study.configurations:
        if not isinstance(conf, OpenAIConfiguration):
            continue
        tools = [t for t in openai_tools(compact=conf.tool_schemas == "compact")
                 if conf.programs or t["function"]["name"] not in PROGRAM_TOOLS]
        if conf.observation == "json":
            seen = json.dumps(world.observe(chars[conf.name]), separators=(",", ":"))
        else:
            seen = world.observe_text(chars[conf.name])
        turn = len(clock_line(horizon, horizon)) + len(seen) + 400 \
            + conf.history * RESULT_LINE_CHARS
        kept = conf.history_turns * (turn + 4 * conf.max_tokens + RESULT_LINE_CHARS)
        prompt_chars = len(render_prompt(study, conf)) + len(json.dumps(tools)) + turn + kept
        prompt = math.ceil(prompt_chars / CHARACTERS_PER_TOKEN)
        out.append(_bounds(conf, study, horizon, seeds, prompt))
    return out


def _bounds(conf: OpenAIConfiguration, study: Study, horizon: int, seeds: int,
            prompt: int) -> SeatEstimate:
    per_call = prompt + conf.max_tokens
    calls = None
    if isinstance(study.clock, Lockstep):
        least = study.clock.charge(0)
        tries = conf.max_retries + 1  # a turn's calls; each costs at least `least` ticks
        turns = math.ceil(horizon / (least + conf.pause_ticks))  # sent before the horizon
        calls = min(math.ceil(horizon / least), turns * tries)
    budget = conf.budget
    if budget is not None and budget.calls is not None:
        calls = budget.calls if calls is None else min(calls, budget.calls)
    calls = None if calls is None else calls * seeds
    tokens = None if calls is None else calls * per_call
    if budget is not None and budget.tokens is not None:
        capped = (budget.tokens + per_call) * seeds
        tokens = capped if tokens is None else min(tokens, capped)
    price = conf.price
    dollars = None
    if price is not None:
        rate_in = max(price.input, price.cached_input or 0.0)
        call_dollars = (prompt * rate_in + conf.max_tokens * price.output) / 1_000_000
        if calls is not None:
            dollars = calls * call_dollars
        if budget is not None and budget.dollars is not None:
            capped = (budget.dollars + call_dollars) * seeds
            dollars = capped if dollars is None else min(dollars, capped)
    return SeatEstimate(conf.name, calls, prompt, conf.max_tokens, tokens, dollars,
                        price is not None)


def report(seats: list[SeatEstimate], where: Path | str) -> str:
    if not seats:
        return f"{where}: no model seats; the study calls no model"
    rows = [["seat", "calls", "prompt tokens/call", "completion tokens/call", "tokens",
             "dollars"]]
    for s in seats:
        rows.append([s.name, _at_most(s.calls), f"<= {s.prompt_tokens:,}",
                     f"<= {s.completion_tokens:,}", _at_most(s.tokens),
                     ("no price" if not s.priced else _at_most(s.dollars, money=True))])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [f"{where}: what its model seats cost at most (every seed together)"]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
              for r in rows]
    unbounded = [s.name for s in seats if s.calls is None and s.tokens is None]
    if unbounded:
        lines.append(f"no bound for {', '.join(unbounded)}: the realtime clock lets a model call "
                     "as often as it answers; set [configuration.budget] calls, tokens or "
                     "dollars")
    else:
        total_calls = sum(s.calls or 0 for s in seats)
        total_tokens = sum(s.tokens or 0 for s in seats)
        priced = [s.dollars for s in seats if s.priced]
        money = f", <= ${sum(d or 0 for d in priced):,.2f}" if priced and all(
            d is not None for d in priced) else ""
        lines.append(f"all seats: <= {total_calls:,} calls, <= {total_tokens:,} tokens{money}")
    lines.append("bounds: calls from the clock (a call costs at least its least charge in "
                 "ticks) or the seat's budget; prompt tokens at 2 characters per token over the "
                 "largest prompt the settings allow; a budget cap plus the one call that "
                 "reaches it. The endpoint's own counts are in the cost table after the run.")
    return "\n".join(lines)


def _at_most(value: float | None, money: bool = False) -> str:
    if value is None:
        return "no bound"
    return f"<= ${value:,.2f}" if money else f"<= {int(value):,}"
