"""The ASIWorld engine: pure, deterministic rules. Nothing here imports the server."""

from .actions import CATEGORIES, HANDLERS, category_of
from .content import Content, ContentError, load_content
from .errors import ActionResult, Refusal
from .world import World

__all__ = ["World", "Content", "ContentError", "load_content", "ActionResult", "Refusal",
           "CATEGORIES", "HANDLERS", "category_of"]
