"""Model turns in a replay (chunk kind T): what each language-model configuration was shown,
what it answered and what the world made of it, from the study's transcripts.

A transcript (asiworld.agents.clients.transcript) has one line per model call; a turn is the calls of
one question (retries included) and ends with the answer the world applied. The replay keeps one
T chunk per configuration, `{"config", "char", "turns": [turn, ...]}` over the ticks its turns
span, a turn being::

    {"turn": 5, "tick_sent": 120, "tick_answered": 123, "calls": 2, "errors": ["5xx"],
     "prompt_tokens": 1900, "completion_tokens": 31, "latency_ms": 82.4,
     "prompt": "## Clock ...", "text": "...", "tool_calls": [{"name", "arguments"}],
     "results": ["move({...}) -> {...}"]}

`prompt` is the transcript's summary of the question (asiworld.agents.clients.transcript.prompt_summary),
`results` the world's answer to each tool call, in order. Readers that predate T skip it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

TURN = "T"


def turns_of(calls: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """A transcript's calls grouped into turns, in turn order."""
    turns: dict[int, dict[str, Any]] = {}
    for call in calls:
        number = int(call.get("turn") or 0)
        turn = turns.get(number)
        if turn is None:
            turn = turns[number] = {
                "turn": number, "tick_sent": call.get("tick_sent"), "tick_answered": None,
                "calls": 0, "errors": [], "prompt_tokens": 0, "completion_tokens": 0,
                "latency_ms": 0.0, "prompt": call.get("prompt", ""), "text": "",
                "tool_calls": [], "results": [],
            }
        turn["calls"] += 1
        turn["prompt_tokens"] += int(call.get("prompt_tokens") or 0)
        turn["completion_tokens"] += int(call.get("completion_tokens") or 0)
        turn["latency_ms"] = round(turn["latency_ms"] + float(call.get("latency_ms") or 0), 3)
        if call.get("prompt") and not turn["prompt"]:
            turn["prompt"] = call["prompt"]
        error = call.get("error")
        if error:
            turn["errors"].append(str(error.get("cause", "error")))
            continue
        turn["tick_answered"] = call.get("tick_answered", turn["tick_answered"])
        turn["text"] = call.get("content") or call.get("text") or ""  # the answer's text
        turn["tool_calls"] = list(call.get("tool_calls") or [])
        turn["results"] = list(call.get("results") or [])
    for turn in turns.values():
        if turn["tick_answered"] is None:
            turn["tick_answered"] = turn["tick_sent"]
    return [turns[n] for n in sorted(turns)]


def transcript_chunks(
    folder: Path, characters: dict[str, int]
) -> list[tuple[int, int, dict[str, Any]]]:
    """(t0, t1, T chunk body) for each configuration with a transcript in `folder`
    (`NAME.jsonl`); `characters` maps configuration names to their character ids."""
    out = []
    for name, char in characters.items():
        turns = turns_of(_calls(Path(folder) / f"{name}.jsonl"))
        ticks = [t["tick_sent"] for t in turns if t["tick_sent"] is not None]
        ticks += [t["tick_answered"] for t in turns if t["tick_answered"] is not None]
        if not turns:
            continue
        t0, t1 = (min(ticks), max(ticks)) if ticks else (0, 0)
        out.append((t0, t1, {"config": name, "char": char, "turns": turns}))
    return out


def _calls(path: Path) -> list[dict[str, Any]]:
    """A transcript's lines (read here: the replay package does not import the agents); a line
    cut off by a kill is left out, as the transcript itself does on a resume."""
    if not path.is_file():
        return []
    calls = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            call = json.loads(line)
        except ValueError:
            continue
        if isinstance(call, dict):
            calls.append(call)
    return calls


def _failed(turn: dict[str, Any]) -> bool:
    """No answer from the model: errors, and neither a tool call nor text."""
    return bool(turn["errors"]) and not turn["tool_calls"] and not turn["text"]


def marker(turn: dict[str, Any]) -> dict[str, Any]:
    """What the timeline needs of a turn (the rest is read when one is selected): its lane's
    mark is coloured by the turn's outcome."""
    return {
        "turn": turn["turn"],
        "tick_sent": turn["tick_sent"],
        "tick_answered": turn["tick_answered"],
        "tools": [c.get("name") for c in turn["tool_calls"]],
        "failed": _failed(turn),
        "outcome": outcome(turn)["kind"],
    }


def answer_of(result: str) -> Any:
    """The world's answer in a result line `name(args) -> {json}`: the JSON when it is JSON,
    else the text after the arrow."""
    text = str(result).split(" -> ", 1)[-1]
    try:
        return json.loads(text)
    except ValueError:
        return text


def outcome(turn: dict[str, Any]) -> dict[str, Any]:
    """How a turn went, for the reader's chips and filters: `failed` (no answer from the model),
    `text-only` (an answer without a tool call), `refused` (the world refused a call: its
    codes), else `ok`."""
    codes = []
    for result in turn["results"]:
        answer = answer_of(result)
        if isinstance(answer, dict) and answer.get("ok") is False:
            codes.append(str(answer.get("code") or (answer.get("error") or {}).get("code") or "refused"))
    if _failed(turn):
        kind = "failed"
    elif not turn["tool_calls"]:
        kind = "text-only"
    elif codes:
        kind = "refused"
    else:
        kind = "ok"
    return {"kind": kind, "codes": codes}


def readable(turn: dict[str, Any]) -> dict[str, Any]:
    """A turn for the turn reader's list: everything but the prompt (read with the turn), and
    its outcome."""
    body = {k: v for k, v in turn.items() if k != "prompt"}
    body["outcome"] = outcome(turn)
    return body
