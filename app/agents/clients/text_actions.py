"""Actions read from a model's text: the opt-in fallback for models that answer "move north"
instead of calling a tool (a study's `text_actions`).

Two readings, tried in order on the answer's text:
1. a JSON object naming an offered tool: `{"tool": "move", "arguments": {"dir": "n"}}` (also
   `name`/`function`/`action` for the tool and `args`/`parameters` for the arguments, arguments
   given as JSON text, a `<tool_call>` wrapper or a code fence around it, or the action table's
   own form `{"type": "move", "dir": "n"}`);
2. a command line: the first line whose first word is an offered tool (`pick up` and `move to`
   written as two words count), its arguments in the tool's own order, or as `key=value`:
   `move north`, `move_to 70 60`, `craft wooden_pickaxe`, `gather x=64 y=63`.

Nothing else is guessed: a sentence that only mentions a tool ("I will move north") is no
action. What is read is returned with how it was read, so a transcript records it as such.
"""

from __future__ import annotations

import json
import re
from typing import Any

NAME_KEYS = ("tool", "name", "function", "action")
ARGUMENT_KEYS = ("arguments", "args", "parameters", "input")
DIRECTIONS = {"north": "n", "south": "s", "east": "e", "west": "w", "up": "n", "down": "s",
              "right": "e", "left": "w"}
LEAD = re.compile(r"^[\s>*`\-#\d.)]*")  # bullets, quotes, numbering, markdown before a command
WORD = re.compile(r"[A-Za-z_]\w*=[^\s,]+|[A-Za-z_][\w-]*|-?\d+|\S+")


def read_action(text: str | None, tools: dict[str, dict[str, Any]]) -> tuple[str, dict, str] | None:
    """(tool name, arguments, "json" | "command") for the first action in `text` naming one of
    `tools` (name -> its JSON Schema parameters); None when there is none."""
    if not text:
        return None
    found = _json_action(text, tools)
    if found is not None:
        return (*found, "json")
    found = _command_action(text, tools)
    if found is not None:
        return (*found, "command")
    return None


def _json_action(text: str, tools: dict[str, dict]) -> tuple[str, dict] | None:
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, _ = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, dict):
            found = _from_object(value, tools)
            if found is not None:
                return found
        start = text.find("{", start + 1)
    return None


def _from_object(value: dict, tools: dict[str, dict]) -> tuple[str, dict] | None:
    name = next((value[k] for k in NAME_KEYS if isinstance(value.get(k), str)), None)
    if isinstance(value.get("function"), dict):  # the OpenAI tool-call shape
        return _from_object(value["function"], tools)
    if name is None and isinstance(value.get("type"), str):  # the action table's own form
        name = value["type"]
        args = {k: v for k, v in value.items() if k != "type"}
        return (name, args) if name in tools else None
    if name is None or name not in tools:
        return None
    args: Any = next((value[k] for k in ARGUMENT_KEYS if k in value), None)
    if isinstance(args, str):
        try:
            args = json.loads(args or "{}")
        except ValueError:
            return None
    if args is None:
        args = {k: v for k, v in value.items() if k not in NAME_KEYS}
    return (name, args) if isinstance(args, dict) else None


def _command_action(text: str, tools: dict[str, dict]) -> tuple[str, dict] | None:
    for line in text.splitlines():
        words = WORD.findall(LEAD.sub("", line).strip().rstrip(".!;:"))
        if not words:
            continue
        first = words[0].lower()
        if len(words) > 1 and f"{first}_{words[1].lower()}" in tools:  # "pick up", "move to"
            name, rest = f"{first}_{words[1].lower()}", words[2:]
        elif first in tools:
            name, rest = first, words[1:]
        else:
            continue
        args = _arguments(rest, tools[name])
        if args is not None:
            return name, args
    return None


def _arguments(words: list[str], schema: dict) -> dict | None:
    """The tool's arguments from the words after its name: `key=value` pairs, or values in
    the order of its properties (required ones first); None when they do not fit."""
    properties: dict[str, dict] = schema.get("properties") or {}
    required = list(schema.get("required") or [])
    order = required + [k for k in properties if k not in required]
    args: dict[str, Any] = {}
    positional = []
    for word in words:
        key, eq, value = word.partition("=")
        if eq and key in properties:
            args[key] = value
        elif word.strip(",()"):
            positional.append(word.strip(",()"))
    free = [k for k in order if k not in args]
    for key, value in zip(free, positional, strict=False):
        args[key] = value
    if len(positional) > len(free):
        return None  # more words than the tool takes: a sentence, not a command
    out = {}
    for key, value in args.items():
        typed = _typed(value, properties.get(key) or {})
        if typed is None:
            return None
        out[key] = typed
    if any(k not in out for k in required):
        return None
    return out


def _typed(value: str, schema: dict) -> Any:
    kind = schema.get("type")
    if kind == "integer":
        return int(value) if re.fullmatch(r"-?\d+", value) else None
    if kind == "number":
        try:
            return float(value)
        except ValueError:
            return None
    if kind == "array":
        return None
    enum = schema.get("enum")
    if enum is not None:
        value = value.lower()
        value = value if value in enum else DIRECTIONS.get(value, value)
        return value if value in enum else None
    return value
