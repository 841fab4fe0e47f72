"""Errors people see: a stable code and a sentence. Refusals are raised by rule checks and caught at
the edge; `CodedError` is the one base of every such error in the project (server, programs,
replays, evaluation), so one handler turns any of them into the same JSON answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import codes


class CodedError(Exception):
    """A stable snake_case `code` and a `message` (a sentence for people); `extra` holds plain
    fields that go with them (a line number, a limit). `http_status` is the HTTP answer a server
    gives it, None when the server decides by the code."""

    http_status: int | None = None
    says_code = False  # str() is "code: message" (errors printed as they are, e.g. by a CLI)

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra

    def __str__(self) -> str:
        return f"{self.code}: {self.message}" if self.says_code else self.message

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.extra}


class Refusal(CodedError):
    """The world says no: a rule check refused an action; nothing changed."""


class WorldFull(CodedError):
    """No tile is left for a body to stand on (a join into a packed world); nothing changed."""

    http_status = 409

    def __init__(self, message: str) -> None:
        super().__init__(codes.WORLD_FULL, message)


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
