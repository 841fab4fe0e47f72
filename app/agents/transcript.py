"""A configuration's transcript: one JSON line per model call, in `transcripts/NAME.jsonl`.

Each line is one request to the model, failed ones included:
    {"call": 7, "turn": 5, "attempt": 2, "tick_sent": 120, "tick_answered": 123,
     "latency_ms": 41.2, "prompt_tokens": 1900, "completion_tokens": 31,
     "tool_calls": [{"name": "move", "arguments": "{\"dir\":\"n\"}"}], "content": null,
     "results": ["move({\"dir\":\"n\"}) -> {\"ok\":true,...}"], "error": null}
`error` is `{"cause", "detail"}` for a call that failed (the cause is the incident's); `content`
is the answer's text (a resumed study gives it back to the harness, app/study/resume.py).

The file is appended to, never rewritten: a resumed study opens it again, learns the last call
written (`last_call`) and numbers on from there; a line for a call already written is skipped,
and a line cut off by a kill is dropped, so a resume neither loses nor repeats a call.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any


class Transcript:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.last_call = self._recover()
        self._lock = threading.Lock()
        self._file = self.path.open("a", encoding="utf-8")

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
