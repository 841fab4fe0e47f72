"""The LLM harness: a language model behind any OpenAI-compatible chat endpoint plays a character.

Each turn is one chat request with a bounded context: the system prompt (the rules of play and
the program API page, docs/programs.md), then one user message holding the current observation as
text, a summary of what the character remembers, and the feedback of recent turns. The model
answers with tool calls (an action, a program, a wait); the harness runs them through the agent
API and keeps their results as feedback for the next turn. Nothing else is carried over, so the
context never grows.

Model calls that fail for a transient reason (5xx, 429, timeouts, connection errors) are retried
with exponential back-off; each interruption is posted to the server as an incident
`{"kind": "incident", "char", "cause", "start", "end"}` (ticks) so it enters the world's event
stream. In approval mode a person approves each program on stdin; the wait is an incident too.
"""

from __future__ import annotations

import json
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from asiworld.agents.sdk import ApiError, Client
from asiworld.agents.tools import ToolBox, openai_tools
from asiworld.resources import shipped

log = logging.getLogger(__name__)

PROGRAM_DOC = shipped("docs") / "programs.md"
RULES = """You play one character in ASIWorld, a persistent survival sandbox shared with other
agents. The world keeps running while you think. Survive (eat before hunger runs out, shelter and
sleep at night), gather, craft better tools, build a home, explore, and clear dungeons.

Each turn you see your observation as text, a summary of what you remember, and the results of
your recent tool calls. Answer with tool calls: one action tool (move, gather, craft, ...) starts
an operation that replaces your current one; `submit_program` hands the server a script that
keeps acting for you between turns; `wait_for_event` waits for your operation or program to end.
Coordinates are absolute (x grows east, y grows south). Refusals come back with a code and a
sentence: read them and try something else."""


@dataclass
class HarnessConfig:
    model: str
    name: str = "llm"
    label: str = ""
    think_seconds: float = 1.0  # pause between turns (the world keeps ticking)
    max_retries: int = 6  # per turn, for transient model errors
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    request_timeout: float = 60.0
    feedback_kept: int = 12  # recent tool results shown to the model
    max_tokens: int = 1024
    approve_programs: bool = False


@dataclass
class HarnessStats:
    turns: int = 0
    calls: int = 0  # model requests, failed ones included
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tool_calls: int = 0
    incidents: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return dict(vars(self))


TRANSIENT_STATUS = {408, 409, 429, 500, 502, 503, 504}


def transient_cause(err: Exception) -> str | None:
    """The incident cause of a model error worth retrying; None for errors that are not."""
    import openai

    if isinstance(err, openai.APITimeoutError):
        return "model_timeout"
    if isinstance(err, openai.APIConnectionError):
        return "model_unreachable"
    if isinstance(err, openai.RateLimitError):
        return "model_rate_limited"
    if isinstance(err, openai.APIStatusError) and (
        err.status_code in TRANSIENT_STATUS or err.status_code >= 500
    ):
        return "model_error"
    return None


def system_prompt() -> str:
    # The page ships in the wheel (asiworld/docs); a missing one is a packaging bug, so it raises.
    programs = PROGRAM_DOC.read_text(encoding="utf-8")
    return f"{RULES}\n\n# The program API\n\n{programs}"


def memory_summary(memory: dict, limit: int = 12) -> str:
    """A few lines from the character's memory: how much it has seen, what it last saw where."""
    seen = memory.get("seen_tiles", 0)
    remembered = sorted(memory.get("entities", []), key=lambda e: -e.get("tick", 0))[:limit]
    lines = [f"you have seen {seen} tiles"]
    for e in remembered:
        lines.append(f"- {e['kind']} #{e['id']} at ({e['x']}, {e['y']}) seen at tick {e['tick']}")
    return "\n".join(lines)


class Harness:
    def __init__(
        self,
        client: Client,
        llm: Any,
        config: HarnessConfig,
        approver: Callable[[str], str] = input,
        pause: Callable[[], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.client = client
        self.llm = llm  # an openai.OpenAI (or anything with .chat.completions.create)
        self.config = config
        self.tools = ToolBox(client)
        self.tool_specs = openai_tools()
        self.approver = approver
        self.pause = pause or (lambda: sleep(config.think_seconds))
        self.sleep = sleep
        self.feedback: deque[str] = deque(maxlen=config.feedback_kept)
        self.stats = HarnessStats()
        self.system = system_prompt()

    # --- one turn ---------------------------------------------------------------------------

    def context(self) -> list[dict]:
        obs = self.client.observe("text")
        recent = "\n".join(self.feedback) or "(nothing yet)"
        user = (
            f"## Now\n{obs['text']}\n\n## Memory\n{memory_summary(obs.get('memory') or {})}\n\n"
            f"## Your recent tool calls and their results\n{recent}\n\nWhat do you do?"
        )
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]

    def turn(self) -> bool:
        """One model request and its tool calls. False when the model could not be reached
        (after retries); the harness goes on with the next turn either way."""
        self.stats.turns += 1
        messages = self.context()
        reply = self._complete(messages)
        if reply is None:
            return False
        message = reply.choices[0].message
        calls = message.tool_calls or []
        if not calls and message.content:
            self.feedback.append(f"you said (no tool call): {message.content.strip()[:300]}")
        for call in calls:
            self.stats.tool_calls += 1
            self.feedback.append(self._run_tool(call.function.name, call.function.arguments))
        return True

    def run(self, turns: int | None = None) -> HarnessStats:
        done = 0
        while turns is None or done < turns:
            self.turn()
            done += 1
            if turns is None or done < turns:
                self.pause()
        return self.stats

    # --- the model, with back-off and incidents ------------------------------------------------

    def _complete(self, messages: list[dict]) -> Any:
        cfg = self.config
        started: int | None = None
        cause = ""
        detail = ""
        for attempt in range(cfg.max_retries + 1):
            self.stats.calls += 1
            try:
                reply = self.llm.chat.completions.create(
                    model=cfg.model,
                    messages=messages,
                    tools=self.tool_specs,
                    max_tokens=cfg.max_tokens,
                    timeout=cfg.request_timeout,
                )
            except Exception as err:  # sorted below: transient ones are retried
                kind = transient_cause(err)
                self.stats.failures += 1
                if kind is None:
                    if started is not None:
                        self._incident(cause, started, detail)
                    self._incident("model_refused", self._tick(), str(err))
                    self.feedback.append(f"(the model request failed: {str(err)[:200]})")
                    return None
                if started is None:
                    started = self._tick()
                cause, detail = kind, f"{type(err).__name__}: {str(err)[:200]}"
                log.warning("model call failed (%s), attempt %d", detail, attempt + 1)
                if attempt < cfg.max_retries:
                    self.sleep(min(cfg.backoff_max, cfg.backoff_base * 2**attempt))
                continue
            if started is not None:
                self._incident(cause, started, detail)
            usage = getattr(reply, "usage", None)
            if usage is not None:
                self.stats.prompt_tokens += usage.prompt_tokens or 0
                self.stats.completion_tokens += usage.completion_tokens or 0
            return reply
        self._incident(cause, started, detail + f" (gave up after {cfg.max_retries + 1} tries)")
        return None

    def _tick(self) -> int | None:
        try:
            return self.client.tick()
        except ApiError:
            return None

    def _incident(self, cause: str, start: int | None, detail: str) -> None:
        end = self._tick()
        if start is None or end is None:
            start = end = start if start is not None else end
        incident = {"cause": cause, "start": start, "end": end, "detail": detail}
        self.stats.incidents.append(incident)
        try:
            self.client.incident(cause, start, end, detail)
        except ApiError as err:  # the record stays in the stats even if the server is away
            log.warning("could not post the incident: %s", err)

    # --- tools ---------------------------------------------------------------------------------

    def _run_tool(self, name: str, raw_args: str | None) -> str:
        try:
            args = json.loads(raw_args or "{}")
        except ValueError:
            return f"{name}({raw_args}) -> bad_argument: the arguments are not JSON"
        if name == "submit_program" and self.config.approve_programs:
            refusal = self._approve(args)
            if refusal:
                return f"{name}({args.get('name')}) -> {refusal}"
        result = self.tools.call(name, args)
        shown = json.dumps(args, separators=(",", ":"))[:200]
        return f"{name}({shown}) -> {json.dumps(result, separators=(',', ':'))[:400]}"

    def _approve(self, args: dict) -> str | None:
        """Ask a person on the terminal; the wait is recorded as an `approval_wait` incident."""
        start = self._tick()
        prompt = (
            f"\n--- program {args.get('name')!r} ---\n{args.get('source', '')}\n---\n"
            "approve this program? [y/N] "
        )
        try:
            answer = self.approver(prompt)
        except EOFError:
            answer = ""
        self._incident("approval_wait", start, f"program {args.get('name')!r}")
        if answer.strip().lower() in ("y", "yes"):
            return None
        return "not_approved: the operator did not approve this program"
