"""A configuration's transcript: one JSON line per model call, in `transcripts/NAME.jsonl`.

Each line is one request to the model, failed ones included:
    {"call": 7, "turn": 5, "attempt": 2, "tick_sent": 120, "tick_answered": 123,
     "latency_ms": 41.2, "prompt_tokens": 1900, "completion_tokens": 31, "cached_tokens": 1800,
     "dollars": 0.00081, "reply": "tool_call",
     "tool_calls": [{"name": "move", "arguments": "{\"dir\":\"n\"}"}], "content": null,
     "text_action": null, "results": ["move({\"dir\":\"n\"}) -> {\"ok\":true,...}"],
     "error": null,
     "request": {"system": SHA256, "tools": SHA256, "messages": [...], "settings": {...}},
     "prompt": "..."}
`error` is `{"cause", "detail"}` for a call that failed (the cause is the incident's); `content`
is the answer's text (a resumed study gives it back to the harness, app/study/resume.py);
`reply` is the answer's class (asiworld.agents.clients.harness). `request` is the request as sent, but
for the system prompt and the tool list, which are kept once each under their sha256 beside the
transcripts (`prompts/HEX.txt`, `tools/HEX.json`; a JSON action's response_format in
`formats/HEX.json`): `rebuild` gives the request's exact bytes.

The file is appended to, never rewritten: a resumed study opens it again, learns the last call
written (`last_call`) and numbers on from there; a line for a call already written is skipped,
and a line cut off by a kill is dropped, so a resume neither loses nor repeats a call.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

from asiworld.agents.clients import request


class Transcript:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.last_call = self._recover()
        self._lock = threading.Lock()
        self._file = self.path.open("a", encoding="utf-8")

    def keep_prompt(self, text: str) -> str:
        """The system prompt, kept once under its sha256 (`prompts/HEX.txt`, its UTF-8 text)."""
        digest = request.text_digest(text)
        _keep(self.path.parent / "prompts" / f"{digest}.txt",
              text.encode("utf-8", "replace"))
        return digest

    def keep_format(self, value: dict) -> str:
        """A response_format (a JSON action's schema, `text_actions = "json"`: some 10 KB),
        kept once under its sha256 (`formats/HEX.json`) rather than on every line."""
        data = request.encode(value)
        digest = hashlib.sha256(data).hexdigest()
        _keep(self.path.parent / "formats" / f"{digest}.json", data)
        return digest

    def keep_tools(self, tools: list[dict]) -> str:
        """The tool list, kept once under its sha256 (`tools/HEX.json`, the bytes sent)."""
        digest = request.tools_digest(tools)
        _keep(self.path.parent / "tools" / f"{digest}.json", request.encode(tools))
        return digest

    def _recover(self) -> int:
        """The last complete call in the file; a torn last line (a kill mid-write) is cut."""
        if not self.path.exists():
            return 0
        data = self.path.read_bytes()
        keep = data if data.endswith(b"\n") or not data else data[: data.rfind(b"\n") + 1]
        if len(keep) != len(data):
            with self.path.open("r+b") as fh:
                fh.truncate(len(keep))
        last = 0
        for line in keep.splitlines():
            try:
                last = max(last, int(json.loads(line).get("call", 0)))
            except (ValueError, AttributeError):
                continue
        return last

    def write(self, record: dict[str, Any]) -> bool:
        """Append one call; False (and nothing written) for a call number already there."""
        with self._lock:
            call = int(record["call"])
            if call <= self.last_call:
                return False
            self._file.write(json.dumps(record, separators=(",", ":"), default=str) + "\n")
            self._file.flush()
            self.last_call = call
            return True

    def close(self) -> None:
        with self._lock:
            self._file.close()


def _keep(path: Path, data: bytes) -> None:
    """Write `data` to `path` once (content-addressed: an existing file already holds it),
    whole or not at all (a kill mid-write leaves no half file under a hash)."""
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    part.write_bytes(data)
    os.replace(part, path)


class RequestMissing(Exception):
    """A call whose request cannot be rebuilt: a line from before requests were kept, or a
    prompt or tool file that is gone."""


def rebuild(folder: str | Path, line: dict[str, Any]) -> bytes:
    """The exact bytes of the request a transcript line records (`folder`: the transcripts
    folder, where its prompt and tool list are kept)."""
    asked = line.get("request")
    if not isinstance(asked, dict):
        raise RequestMissing(f"call {line.get('call')} was recorded without its request "
                             "(a transcript written before requests were kept)")
    folder = Path(folder)
    prompt = folder / "prompts" / f"{asked['system']}.txt"
    tools_file = folder / "tools" / f"{asked['tools']}.json" if asked.get("tools") else None
    settings = dict(asked["settings"])
    kept = settings.get("response_format")
    try:
        system = prompt.read_bytes().decode("utf-8")
        tools = json.loads(tools_file.read_bytes()) if tools_file is not None else None
        if isinstance(kept, dict) and set(kept) == {"sha256"}:
            settings["response_format"] = json.loads(
                (folder / "formats" / f"{kept['sha256']}.json").read_bytes())
    except FileNotFoundError as exc:
        raise RequestMissing(f"call {line.get('call')}: {exc.filename} is missing") from None
    return request.encode(request.body(system, tools, asked["messages"], settings))


SECTION_KEPT = 700  # characters of each prompt section in a transcript's summary
RECENT_KEPT = 4  # the last tool results the prompt showed


def prompt_summary(messages: list[dict]) -> str:
    """What a model was shown, in short, for its transcript (and the replay viewer): the last
    user message's sections (the observation, the memory, ...), each cut to SECTION_KEPT
    characters, the recent tool results to the last RECENT_KEPT. The system prompt is the same
    every turn and is left out."""
    user = next((m.get("content") for m in reversed(messages) if m.get("role") == "user"), "")
    if not isinstance(user, str):
        return ""
    parts = []
    for section in user.split("\n## "):
        head, _, body = section.partition("\n")
        if head.lower().startswith("your recent tool calls"):
            lines = [line for line in body.splitlines() if line.strip()]
            cut = len(lines) > RECENT_KEPT
            body = ("…\n" if cut else "") + "\n".join(lines[-RECENT_KEPT:])
        elif len(body) > SECTION_KEPT:
            body = body[:SECTION_KEPT] + "…"
        parts.append(f"{head}\n{body}".strip())
    return "\n## ".join(parts)


def read_transcript(path: str | Path) -> list[dict[str, Any]]:
    path = Path(path)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
