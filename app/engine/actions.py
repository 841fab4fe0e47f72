"""Actions: the one road from an action dict to a change in the world.

Every action type registers a Handler: its category, the shape of its arguments, a `check`
that reads the world and raises a Refusal (never changes anything), an optional `begin` that
sets the operation's timing, and an `effect` that makes the change when the operation's time
comes. `check` runs when the action is submitted, again when it is applied at the tick, and
(unless the handler says otherwise) again just before its effect, because the world moves on
while an operation runs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import codes
from . import text as texts
from .errors import Refusal
from .handlers import (  # the table's rows; the rule modules fill it (see _load_rules)
    CATEGORIES,
    HANDLERS,
    Arg,
    Handler,
    cancel,
)
from .model import Character, Op

if TYPE_CHECKING:
    from .world import World

def parse(action: Any) -> dict[str, Any]:
    """Shape-check an action dict: known type, known arguments of the right types."""
    if not isinstance(action, dict):
        raise Refusal(codes.BAD_ARGUMENT, "an action is a JSON object with a 'type'")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in HANDLERS:
        known = ", ".join(sorted(HANDLERS))
        raise Refusal(codes.UNKNOWN_ACTION, f"unknown action {kind!r}; known actions: {known}")
    handler = HANDLERS[kind]
    unknown = sorted(k for k in action if k != "type" and k not in handler.args)
    if unknown:
        raise Refusal(codes.BAD_ARGUMENT, f"{kind} takes no argument {unknown[0]!r}"
                      f" (it takes: {', '.join(handler.args) or 'nothing'})")
    out: dict[str, Any] = {"type": kind}
    for name, spec in handler.args.items():
        if name not in action or action[name] is None:
            if spec.required:
                raise Refusal(codes.BAD_ARGUMENT, f"{kind} needs {name!r}")
            if spec.default is not None:
                out[name] = spec.default
            continue
        out[name] = _coerce(kind, name, spec, action[name])
    if handler.forms and not any(all(n in out for n in form) for form in handler.forms):
        raise Refusal(codes.BAD_ARGUMENT, f"{kind} needs {forms_text(handler.forms)}")
    return out


def forms_text(forms: tuple[tuple[str, ...], ...] | list[list[str]]) -> str:
    """"'x' and 'y', or 'target'"."""
    return ", or ".join(" and ".join(repr(n) for n in form) for form in forms)


def _coerce(kind: str, name: str, spec: Arg, value: Any) -> Any:
    # Exact types only (no bool for a number, no subclass of int or str): what is stored and
    # replayed is plain data.
    if spec.kind == "int":
        if type(value) is not int:
            raise Refusal(codes.BAD_ARGUMENT, f"{kind}: {name!r} must be a whole number")
        if (spec.low is not None and value < spec.low) or (spec.high is not None and value > spec.high):
            raise Refusal(codes.BAD_ARGUMENT,
                          f"{kind}: {name!r} must be between {spec.low} and {spec.high}")
        return value
    if spec.kind == "int_list":
        if type(value) is not list or len(value) > spec.max_items or not all(
                type(v) is int for v in value):
            raise Refusal(codes.BAD_ARGUMENT,
                          f"{kind}: {name!r} must be a list of at most {spec.max_items} ids")
        return list(value)
    if type(value) is not str:
        raise Refusal(codes.BAD_ARGUMENT, f"{kind}: {name!r} must be text")
    if not texts.valid(value):
        raise Refusal(codes.BAD_TEXT, f"{kind}: {name!r} is not valid text (a lone surrogate at "
                      f"position {texts.first_invalid(value)}); nothing was done")
    if len(value) > spec.max_len:
        raise Refusal(codes.BAD_ARGUMENT,
                      f"{kind}: {name!r} is longer than {spec.max_len} characters")
    if spec.choices is not None:
        if value not in spec.choices:
            raise Refusal(codes.BAD_ARGUMENT,
                          f"{kind}: {name!r} must be one of {', '.join(spec.choices)}")
    elif len(value) < spec.min_len:
        raise Refusal(codes.BAD_ARGUMENT, f"{kind}: {name!r} must not be empty")
    return value


def check(world: World, char: Character, action: Any) -> dict[str, Any]:
    """Parse and check against the rules; returns the normalised action. Changes nothing."""
    normal = parse(action)
    handler = HANDLERS[normal["type"]]
    if char.down and not handler.while_down:
        raise Refusal(codes.CHARACTER_DOWN, f"{char.name} is knocked down and cannot act until"
                      f" tick {char.down_until}")
    if char.asleep and not handler.while_asleep:
        raise Refusal(codes.ASLEEP, f"{char.name} is asleep; wake first")
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
    # after this module's body: the rules need the registry it fills, in this order
    from .rules import building, combat, consumption, crafting, gathering, movement, rest, trade

    del building, combat, consumption, crafting, gathering, movement, rest, trade
    from .rules import dungeons, merchant  # the same, after the rules above

    del dungeons, merchant


_load_rules()
