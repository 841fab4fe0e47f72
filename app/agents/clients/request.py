"""A model request as bytes: built in one place, so the harness that sends it and the
transcript that rebuilds it (`asiworld study turn`) give the very same bytes.

A request is four parts: the system prompt, the tool list, the other messages (the user's turn,
and the earlier turns a configuration keeps) and the settings (model, tool_choice,
response_format, max_tokens, temperature, user), in that order on the wire. A transcript keeps
the first two once each under their sha256 (`transcripts/prompts/HEX.txt`, the prompt's UTF-8
text; `transcripts/tools/HEX.json`, the tool list's encoded bytes), and the last two on every
call's line.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def body(system: str, tools: list[dict] | None, messages: list[dict],
         settings: dict[str, Any]) -> dict[str, Any]:
    """The request's JSON object, its keys in the order they are sent."""
    out: dict[str, Any] = {"model": settings["model"],
                           "messages": [{"role": "system", "content": system}, *messages]}
    if tools is not None:
        out["tools"] = tools
    for key, value in settings.items():
        if key != "model":
            out[key] = value
    return out


def encode(value: Any) -> bytes:
    """The bytes sent: compact JSON, ASCII only (every other character escaped), no NaN."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode()


class Encoder:
    """`encode(body(system, tools, messages, settings))` for one seat's constant system prompt,
    tools and settings, with those encoded once: only the turn's messages are encoded per call
    (the tool list alone is 12 KB of JSON, about half a millisecond a call)."""

    def __init__(self, system: str, tools: list[dict] | None, settings: dict[str, Any]) -> None:
        whole = encode(body(system, tools, [], settings))
        cut = len(encode({"model": settings["model"],
                          "messages": [{"role": "system", "content": system}]})) - 2
        self.head, self.tail = whole[:cut], whole[cut:]  # the messages go between them

    def encode(self, messages: list[dict]) -> bytes:
        return self.head + b"".join(b"," + encode(m) for m in messages) + self.tail


def text_digest(text: str) -> str:
    """The sha256 of a prompt's UTF-8 text (what `sha256sum` of its file prints)."""
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()


def tools_digest(tools: list[dict]) -> str:
    return hashlib.sha256(encode(tools)).hexdigest()
