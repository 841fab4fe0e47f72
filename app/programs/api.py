"""The game API as programs see it: one function per action, plus observation helpers.

Every action function checks its arguments' types locally (so only plain ints, strings and lists
of ints ever leave the sandbox), builds the action dict exactly as in docs/engine-interface.md,
and blocks until the operation ends. The character is always the program's own: no argument can
name another acting character.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from asiworld.programs.sizes import log_line, short_text

DIRECTIONS = ("n", "s", "e", "w")
SLOTS = ("weapon", "armor", "outfit", "light")
MAX_NAME = 64
MAX_SAY = 200
MAX_PARTY = 8
MAX_CODE = 64
MAX_MESSAGE = 1000


class GameError(Exception):
    """A refused or failed game action; programs may catch it (`except GameError as e`)."""

    def __init__(self, code: str, message: str) -> None:
        # A program may raise its own: whatever it passes is kept as bounded text.
        code, message = short_text(code, MAX_CODE), short_text(message, MAX_MESSAGE)
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ProgramHandle(Protocol):
    def call(self, action: dict) -> dict: ...
    def latest_observation(self) -> dict: ...
    def log(self, text: str) -> None: ...


def _int(name: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    if type(value) is not int:
        raise GameError(
            "bad_argument", f"{name} must be a whole number, got {type(value).__name__}"
        )
    if (low is not None and value < low) or (high is not None and value > high):
        raise GameError("bad_argument", f"{name} must be between {low} and {high}, got {value}")
    return value


def _name(name: str, value: Any) -> str:
    if type(value) is not str or not value or len(value) > MAX_NAME:
        raise GameError(
            "bad_argument", f"{name} must be a non-empty name of at most {MAX_NAME} characters"
        )
    return str(value)


def _choice(name: str, value: Any, allowed: tuple[str, ...]) -> str:
    if type(value) is not str or value not in allowed:
        raise GameError("bad_argument", f"{name} must be one of {', '.join(allowed)}")
    return str(value)


def build_api(rt: ProgramHandle) -> dict[str, Callable[..., Any]]:
    """The functions visible to one program, bound to its runtime."""
    call = rt.call

    def move(dir: str) -> dict:
        return call({"type": "move", "dir": _choice("dir", dir, DIRECTIONS)})

    def move_to(x: int, y: int) -> dict:
        return call({"type": "move_to", "x": _int("x", x), "y": _int("y", y)})

    def gather(x: int | None = None, y: int | None = None, target: int | None = None) -> dict:
        if target is not None:
            return call({"type": "gather", "target": _int("target", target)})
        return call({"type": "gather", "x": _int("x", x), "y": _int("y", y)})

    def attack(target: int) -> dict:
        return call({"type": "attack", "target": _int("target", target)})

    def craft(recipe: str, count: int = 1) -> dict:
        return call(
            {
                "type": "craft",
                "recipe": _name("recipe", recipe),
                "count": _int("count", count, 1, 1000),
            }
        )

    def place(item: str, x: int, y: int) -> dict:
        return call(
            {"type": "place", "item": _name("item", item), "x": _int("x", x), "y": _int("y", y)}
        )

    def at_tile(kind: str) -> Callable[[int, int], dict]:
        def action(x: int, y: int) -> dict:
            return call({"type": kind, "x": _int("x", x), "y": _int("y", y)})

        action.__name__ = kind
        return action

    def with_item(kind: str) -> Callable[[str], dict]:
        def action(item: str) -> dict:
            return call({"type": kind, "item": _name("item", item)})

        action.__name__ = kind
        return action

    def bare(kind: str) -> Callable[[], dict]:
        def action() -> dict:
            return call({"type": kind})

        action.__name__ = kind
        return action

    def unequip(slot: str) -> dict:
        return call({"type": "unequip", "slot": _choice("slot", slot, SLOTS)})

    def enter(party: list | None = None) -> dict:
        if party is None:
            return call({"type": "enter"})
        if type(party) not in (list, tuple) or len(party) > MAX_PARTY:
            raise GameError(
                "bad_argument", f"party must be a list of at most {MAX_PARTY} character ids"
            )
        return call({"type": "enter", "party": [_int("party member", p) for p in party]})

    def buy(item: str, count: int = 1) -> dict:
        return call(
            {"type": "buy", "item": _name("item", item), "count": _int("count", count, 1, 1000)}
        )

    def give(target: int, item: str, count: int = 1) -> dict:
        return call(
            {
                "type": "give",
                "target": _int("target", target),
                "item": _name("item", item),
                "count": _int("count", count, 1, 1000),
            }
        )

    def drop(item: str, count: int = 1) -> dict:
        return call(
            {"type": "drop", "item": _name("item", item), "count": _int("count", count, 1, 1000)}
        )

    def say(text: Any) -> dict:
        text = str(text)[:MAX_SAY] if type(text) in (str, int, float, bool) else None
        if text is None:
            raise GameError("bad_argument", "say() takes text")
        return call({"type": "say", "text": text})

    def wait(ticks: int = 1) -> dict:
        return call({"type": "wait", "ticks": _int("ticks", ticks, 1, 600)})

    # -- reading the world (never blocks) -------------------------------------------------
    def observe() -> dict:
        return rt.latest_observation()

    def me() -> dict:
        return rt.latest_observation().get("self", {})

    def position() -> tuple:
        own = me()
        return (own.get("x"), own.get("y"))

    def inventory() -> dict:
        return {slot["item"]: slot["count"] for slot in me().get("inventory", [])}

    def count(item: str) -> int:
        return inventory().get(item, 0)

    def tick() -> int:
        return rt.latest_observation().get("tick", 0)

    def entities(kind: str | None = None) -> list:
        seen = rt.latest_observation().get("entities", [])
        return [e for e in seen if kind is None or e.get("kind") == kind]

    def log(*values: Any) -> None:
        rt.log(log_line(values, MAX_MESSAGE))

    api: dict[str, Callable[..., Any]] = {
        "move": move,
        "move_to": move_to,
        "gather": gather,
        "attack": attack,
        "craft": craft,
        "place": place,
        "dismantle": at_tile("dismantle"),
        "install_lock": at_tile("install_lock"),
        "lock": at_tile("lock"),
        "unlock": at_tile("unlock"),
        "eat": with_item("eat"),
        "use": with_item("use"),
        "equip": with_item("equip"),
        "unequip": unequip,
        "sleep": bare("sleep"),
        "wake": bare("wake"),
        "enter": enter,
        "leave": bare("leave"),
        "offer": bare("offer"),
        "pick_up": bare("pick_up"),
        "buy": buy,
        "give": give,
        "drop": drop,
        "say": say,
        "wait": wait,
        "observe": observe,
        "me": me,
        "position": position,
        "inventory": inventory,
        "count": count,
        "tick": tick,
        "entities": entities,
        "log": log,
        "print": log,
    }
    return api
