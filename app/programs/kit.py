"""A set-up for program authors: a character already inside a dungeon tier, geared for it.

This is a scenario outside the rules (items are handed over, not crafted), for trying a dungeon
program without playing the hours before it: `asiworld program run FILE --start-in-tier 2`. Like
the engine's own tests, it sets the character up directly and then enters through the normal
`enter` action, so the instance, the expedition record and everything after follow the rules.
"""

from __future__ import annotations

from typing import Any

from asiworld.engine.model import SURFACE

TIERS = (1, 2, 3)
NEEDS = {1: [], 2: ["outer_sigil"], 3: ["outer_sigil", "inner_sigil"]}  # sigils to enter
GEAR = {"weapon": "iron_sword", "armor": "iron_armor"}


def start_in_tier(pipeline: Any, char_id: int, tier: int) -> None:
    """In `pipeline`'s world (asiworld.pipeline): gear the character (iron sword and armor, the sigils the tier needs, a lit torch for the
    dark Tier 3), put it on the tier's gate and enter. Raises ValueError for a tier that does not
    exist and RuntimeError when the engine refuses the entry."""
    if tier not in TIERS:
        raise ValueError(f"there is no tier {tier!r}; tiers are 1, 2 and 3")

    world = pipeline.world
    char = world.entities[char_id]
    for sigil in NEEDS[tier]:
        char.inventory.append([sigil, 1])
    char.equipment.update(GEAR)
    gate = world.landmarks.gates[tier - 1]
    world.move_entity(char, gate[0], gate[1], SURFACE)
    if tier == 3:
        char.inventory.append(["torch", 1])
        _submit(world, char_id, {"type": "equip", "item": "torch"})
        pipeline.step()
    _submit(world, char_id, {"type": "enter"})
    pipeline.step()


def _submit(world: Any, char_id: int, action: dict) -> None:
    result = world.submit(char_id, action)
    if not result.ok:
        raise RuntimeError(f"{action['type']} refused: {result.code}: {result.message}")
