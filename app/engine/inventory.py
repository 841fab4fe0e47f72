"""Inventory arithmetic: slots hold stacks up to the item's stack limit."""

from __future__ import annotations

from .content import Content
from .model import Character


def room_for(char: Character, item: str, content: Content) -> int:
    """How many more of `item` fit."""
    limit = content.stack_limit(item)
    room = sum(limit - n for name, n in char.inventory if name == item)
    free_slots = content.character.inventory_slots - len(char.inventory)
    return room + free_slots * limit


def add(char: Character, item: str, count: int, content: Content) -> int:
    """Add up to `count`; returns how many did not fit."""
    limit = content.stack_limit(item)
    for stack in char.inventory:
        if count <= 0:
            break
        if stack[0] == item and stack[1] < limit:
            moved = min(limit - stack[1], count)
            stack[1] += moved
            count -= moved
    while count > 0 and len(char.inventory) < content.character.inventory_slots:
        moved = min(limit, count)
        char.inventory.append([item, moved])
        count -= moved
    return count


def remove(char: Character, item: str, count: int) -> None:
    """Remove exactly `count` (the caller has checked there are enough), last stacks first."""
    for stack in reversed(char.inventory):
        if count <= 0:
            break
        if stack[0] == item:
            taken = min(stack[1], count)
            stack[1] -= taken
            count -= taken
    char.inventory[:] = [s for s in char.inventory if s[1] > 0]
    if count:
        raise AssertionError(f"removed more {item} than held")


def as_list(char: Character) -> list[dict]:
    return [{"item": name, "count": n} for name, n in char.inventory]


def totals(char: Character) -> dict[str, int]:
    out: dict[str, int] = {}
    for name, n in char.inventory:
        out[name] = out.get(name, 0) + n
    return out
