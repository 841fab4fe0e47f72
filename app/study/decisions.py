"""The decisions of a lockstep study's external and human seats, kept as the model seats' answers
are kept in their transcripts: one JSON line per turn in `DIR/decisions/NAME.jsonl`.

A killed lockstep study is played again from tick 0 (resume.py); a model seat's calls are
answered from its transcript, and an outside seat's turns from this log: each turn is decided
as it was (the same action, program or cancel, the same think charge), or passed or missed
again, so the world reaches the tick it stopped at exactly as it did, and the seat's agent is
offered its turns again from there. A line:

    {"turn": T, "due": D, "op": "act", "action": {...}}
    {"turn": T, "due": D, "op": "program", "name": N, "source": S}
    {"turn": T, "due": D, "op": "cancel", "pid": P}
    {"turn": T, "due": D, "op": "pass"}
    {"turn": T, "op": "missed"}

with `"tokens": {"input": I, "output": O}` on a decision the seat reported its model's tokens
with (what charged its think time; the cost table sums them).

A line is written when its decision acts, before it acts (as the store saves an input before it
is applied); a torn last line (a kill mid-write) is cut when the log is opened again.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

FOLDER = "decisions"


class DecisionLog:
    """The decision logs of one study folder, a file per seat, opened as they are written."""

    def __init__(self, out: Path) -> None:
        self.folder = Path(out) / FOLDER
        self._files: dict[str, Any] = {}
        self._lock = threading.Lock()

    def path(self, name: str) -> Path:
        return self.folder / f"{name}.jsonl"

    def read(self, name: str) -> list[dict[str, Any]]:
        """The seat's decisions so far, in turn order (none: no log yet); a torn last line is
        cut from the file, so the next line written starts a line of its own."""
        path = self.path(name)
        if not path.is_file():
            return []
        data = path.read_bytes()
        keep = data if data.endswith(b"\n") or not data else data[: data.rfind(b"\n") + 1]
        if len(keep) != len(data):
            with path.open("r+b") as fh:
                fh.truncate(len(keep))
        return [json.loads(line) for line in keep.splitlines() if line.strip()]

    def write(self, name: str, record: dict[str, Any]) -> None:
        with self._lock:
            out = self._files.get(name)
            if out is None:
                self.folder.mkdir(parents=True, exist_ok=True)
                out = self._files[name] = self.path(name).open("a", encoding="utf-8")
            out.write(json.dumps(record, separators=(",", ":")) + "\n")
            out.flush()

    def reported_tokens(self, name: str) -> tuple[int, int] | None:
        """(input, output) tokens the seat reported with its decisions, summed (None: it
        reported none)."""
        reported = [r["tokens"] for r in self.read(name) if isinstance(r.get("tokens"), dict)]
        if not reported:
            return None
        return (sum(int(t.get("input", 0)) for t in reported),
                sum(int(t.get("output", 0)) for t in reported))

    def close(self) -> None:
        with self._lock:
            for out in self._files.values():
                out.close()
            self._files.clear()
