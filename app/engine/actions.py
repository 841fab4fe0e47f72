"""Actions: the one road from an action dict to a change in the world.

Every action type registers a Handler: its category, the shape of its arguments, a `check`
that reads the world and raises a Refusal (never changes anything), an optional `begin` that
sets the operation's timing, and an `effect` that makes the change when the operation's time
comes. `check` runs when the action is submitted, again when it is applied at the tick, and
(unless the handler says otherwise) again just before its effect, because the world moves on
while an operation runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import text as texts
from .errors import Refusal
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


def parse(action: Any) -> dict[str, Any]:
    """Shape-check an action dict: known type, known arguments of the right types."""
    if not isinstance(action, dict):
        raise Refusal("bad_argument", "an action is a JSON object with a 'type'")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in HANDLERS:
        known = ", ".join(sorted(HANDLERS))
        raise Refusal("unknown_action", f"unknown action {kind!r}; known actions: {known}")
    handler = HANDLERS[kind]
    unknown = sorted(k for k in action if k != "type" and k not in handler.args)
    if unknown:
        raise Refusal("bad_argument", f"{kind} takes no argument {unknown[0]!r}"
                      f" (it takes: {', '.join(handler.args) or 'nothing'})")
    out: dict[str, Any] = {"type": kind}
    for name, spec in handler.args.items():
        if name not in action or action[name] is None:
            if spec.required:
                raise Refusal("bad_argument", f"{kind} needs {name!r}")
            if spec.default is not None:
                out[name] = spec.default
            continue
        out[name] = _coerce(kind, name, spec, action[name])
    if handler.forms and not any(all(n in out for n in form) for form in handler.forms):
        raise Refusal("bad_argument", f"{kind} needs {forms_text(handler.forms)}")
    return out


def forms_text(forms: tuple[tuple[str, ...], ...] | list[list[str]]) -> str:
    """"'x' and 'y', or 'target'"."""
    return ", or ".join(" and ".join(repr(n) for n in form) for form in forms)


def _coerce(kind: str, name: str, spec: Arg, value: Any) -> Any:
    # Exact types only (no bool for a number, no subclass of int or str): what is stored and
    # replayed is plain data.
    if spec.kind == "int":
        if type(value) is not int:
            raise Refusal("bad_argument", f"{kind}: {name!r} must be a whole number")
        if (spec.low is not None and value < spec.low) or (spec.high is not None and value > spec.high):
            raise Refusal("bad_argument",
                          f"{kind}: {name!r} must be between {spec.low} and {spec.high}")
        return value
    if spec.kind == "int_list":
        if type(value) is not list or len(value) > spec.max_items or not all(
                type(v) is int for v in value):
            raise Refusal("bad_argument",
                          f"{kind}: {name!r} must be a list of at most {spec.max_items} ids")
        return list(value)
    if type(value) is not str:
        raise Refusal("bad_argument", f"{kind}: {name!r} must be text")
    if not texts.valid(value):
        raise Refusal("bad_text", f"{kind}: {name!r} is not valid text (a lone surrogate at "
                      f"position {texts.first_invalid(value)}); nothing was done")
    if len(value) > spec.max_len:
        raise Refusal("bad_argument", f"{kind}: {name!r} is longer than {spec.max_len} characters")
    if spec.choices is not None:
        if value not in spec.choices:
            raise Refusal("bad_argument",
                          f"{kind}: {name!r} must be one of {', '.join(spec.choices)}")
    elif len(value) < spec.min_len:
        raise Refusal("bad_argument", f"{kind}: {name!r} must not be empty")
    return value


def check(world: World, char: Character, action: Any) -> dict[str, Any]:
    """Parse and check against the rules; returns the normalised action. Changes nothing."""
    normal = parse(action)
    handler = HANDLERS[normal["type"]]
    if char.down and not handler.while_down:
        raise Refusal("character_down", f"{char.name} is knocked down and cannot act until"
                      f" tick {char.down_until}")
    if char.asleep and not handler.while_asleep:
        raise Refusal("asleep", f"{char.name} is asleep; wake first")
    handler.check(world, char, normal)
    return normal


def start(world: World, char: Character, action: dict[str, Any], op_id: int) -> None:
    handler = HANDLERS[action["type"]]
    args = {k: v for k, v in action.items() if k != "type"}
    world.emit("action", char=char.id, op=op_id, type=action["type"],
               category=handler.category, args=args)
    op = Op(id=op_id, type=action["type"], args=args, started=world.tick)
    if not handler.interrupts:
        _run_effect(world, char, handler, op, standalone=True)
        return
    cancel(world, char, "replaced")
    if handler.begin:
        handler.begin(world, char, op)
    char.op = op


def cancel(world: World, char: Character, reason: str) -> None:
    op = char.op
    if op is None:
        return
    char.op = None
    handler = HANDLERS[op.type]
    if handler.cancel:
        handler.cancel(world, char, op)
    world.emit("op_cancelled", char=char.id, op=op.id, type=op.type, reason=reason)


def advance(world: World, char: Character) -> None:
    """One tick of the character's operation."""
    op = char.op
    if op is None:
        return
    op.wait -= 1
    if op.wait > 0:
        return
    _run_effect(world, char, HANDLERS[op.type], op, standalone=False)


def _run_effect(world: World, char: Character, handler: Handler, op: Op, standalone: bool) -> None:
    try:
        # Checked again even in the tick it started: others act between its start and its effect.
        if handler.recheck and not standalone:
            handler.check(world, char, {"type": op.type, **op.args})
        done = handler.effect(world, char, op)
    except Refusal as refusal:
        if char.op is op:
            char.op = None
        world.emit("op_failed", char=char.id, op=op.id, type=op.type, code=refusal.code,
                   message=refusal.message)
        return
    if done:
        if char.op is op:
            char.op = None
        world.emit("op_done", char=char.id, op=op.id, type=op.type, result=dict(op.result))


def describe_arg(arg: Arg) -> dict[str, Any]:
    """One argument as plain data; only what applies to its kind."""
    out: dict[str, Any] = {"kind": arg.kind, "required": arg.required, "default": arg.default,
                           "help": arg.help}
    if arg.kind == "int":
        out.update(low=arg.low, high=arg.high)
    elif arg.kind == "str":
        out.update(min_len=arg.min_len, max_len=arg.max_len)
    elif arg.kind == "int_list":
        out["max_items"] = arg.max_items
    if arg.choices is not None:
        out["choices"] = list(arg.choices)
    return out


def describe() -> list[dict[str, Any]]:
    """The action table as plain data: what the server checks and documents, what the program
    API, the LLM tools and the MCP tools are made from. Read at each call, never copied."""
    return [{"type": h.type, "category": h.category, "help": h.help,
             "args": {n: describe_arg(a) for n, a in h.args.items()},
             "forms": [list(form) for form in h.forms]}
            for h in sorted(HANDLERS.values(), key=lambda h: CATEGORIES.index(h.category))]


# The rule modules register their handlers on import.
def _load_rules() -> None:
    from .rules import building, combat, consumption, crafting, gathering, movement, rest, trade

    del building, combat, consumption, crafting, gathering, movement, rest, trade
    from .rules import dungeons, merchant

    del dungeons, merchant


_load_rules()
