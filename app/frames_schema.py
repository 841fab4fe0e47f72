"""The frame format as data: app/frames_schema.json, a JSON Schema (draft 2020-12) of every frame
`engine.frames.FrameBuilder` emits (keyframes and deltas). The builder, the replay's applier and
the browser's frames.js are tested against it and against golden frames (tests/golden/), and
docs/frames.md's tables are written from it (`asiworld.frames_doc`).

Nothing validates frames at run time: the builder is the only writer, and its tests hold it to
the schema. Reading the file needs no JSON Schema library; validating it does (a test
dependency)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

FILE = "frames_schema.json"


@cache
def _text() -> str:
    return (resources.files("asiworld") / FILE).read_text(encoding="utf-8")


def schema() -> dict[str, Any]:
    """The schema as a fresh dict (callers may change their copy)."""
    return json.loads(_text())
