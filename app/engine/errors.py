"""Refusals: a stable code and a sentence for people. Raised by rule checks, caught at the edge."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class Refusal(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class ActionResult:
    ok: bool
    code: str
    message: str
    op: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "code": self.code, "message": self.message, "op": self.op}

    @classmethod
    def refused(cls, refusal: Refusal) -> ActionResult:
        return cls(False, refusal.code, refusal.message)


class SnapshotError(ValueError):
    """World snapshot bytes that cannot be restored: a stable code (`bad_snapshot`,
    `snapshot_version`, `snapshot_pickled`) and a sentence. Nothing in them was run."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
