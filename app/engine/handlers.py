"""The action table's rows: each rule module registers a `Handler` for its action types here.

A module of its own so that the rules (asiworld.engine.rules.*) depend on the table and not on
`actions`, which loads them: the one road from an action dict to a change in the world
(asiworld.engine.actions) imports the rules, never the other way round."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .model import Character, Op

if TYPE_CHECKING:
    from .world import World

CATEGORIES = ("movement", "gathering", "crafting", "building", "combat", "consumption", "trade",
              "rest", "dungeon", "communication", "idle")


@dataclass(frozen=True)
class Arg:
    """One argument of an action: the single description every outside form is made from
    (the server's checks, the OpenAPI document, the program API, the LLM and MCP tools)."""

    kind: str  # "int", "str", "dir", "slot", "int_list"
    required: bool = True
    default: Any = None
    low: int | None = None
    high: int | None = None
    max_len: int = 64  # str only
    min_len: int = 1
    help: str = ""
    max_items: int = 8  # int_list only

    @property
    def choices(self) -> tuple[str, ...] | None:
        """The words a `dir` or `slot` argument may be; None for other kinds."""
        return {"dir": tuple(DIRECTIONS), "slot": SLOTS}.get(self.kind)


@dataclass
class Handler:
    type: str
    category: str
    args: dict[str, Arg]
    check: Callable[[World, Character, dict], None]
    effect: Callable[[World, Character, Op], bool]
    begin: Callable[[World, Character, Op], None] | None = None
    cancel: Callable[[World, Character, Op], None] | None = None
    # Argument sets of which one must be given whole (gather: x and y, or target).
    forms: tuple[tuple[str, ...], ...] = ()
    recheck: bool = True  # run `check` again just before the effect
    interrupts: bool = True  # replaces the ongoing operation (say does not)
    while_asleep: bool = False
    while_down: bool = False
    help: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


HANDLERS: dict[str, Handler] = {}


def register(handler: Handler) -> Handler:
    assert handler.category in CATEGORIES, handler.category
    HANDLERS[handler.type] = handler
    return handler


def category_of(action_type: str) -> str:
    return HANDLERS[action_type].category


DIRECTIONS = {"n": (0, -1), "s": (0, 1), "e": (1, 0), "w": (-1, 0)}
SLOTS = ("weapon", "armor", "outfit", "light")


def cancel(world: World, char: Character, reason: str) -> None:
    op = char.op
    if op is None:
        return
    char.op = None
    handler = HANDLERS[op.type]
    if handler.cancel:
        handler.cancel(world, char, op)
    world.emit("op_cancelled", char=char.id, op=op.id, type=op.type, reason=reason)
