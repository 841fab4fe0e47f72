"""The ASIWorld engine: pure, deterministic rules. Nothing here imports the server.

The package's names are imported when first used (PEP 562): `asiworld.engine.errors`, the error
type every command and client shares, is imported without the rules, numpy and tcod, so
`asiworld mcp` answers its client before it has loaded a world it does not run."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .actions import CATEGORIES, HANDLERS, category_of
    from .content import Content, ContentError, load_content
    from .errors import ActionResult, Refusal
    from .world import World

_HOME = {"World": "world", "Content": "content", "ContentError": "content",
         "load_content": "content", "ActionResult": "errors", "Refusal": "errors",
         "CATEGORIES": "actions", "HANDLERS": "actions", "category_of": "actions"}
__all__ = ["World", "Content", "ContentError", "load_content", "ActionResult", "Refusal",
           "CATEGORIES", "HANDLERS", "category_of"]


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value  # asked once
    return value
