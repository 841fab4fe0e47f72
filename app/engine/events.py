"""Every kind of event a world's stream holds, and its fields: the contract the evaluation, the
replay viewer, the agents' observations and the docs read.

Events are dicts with `tick` and `kind`; every event about a character carries `char`. The
engine emits the kinds in `ENGINE` (`World.emit`); the layers above add those in `OUTSIDE` to the
same stream (programs' starts and ends from the program manager, agents' incidents from the
harness and the agent API, `resumed` from a resumed study, `refused` from the pipeline and the
program host). `tests/engine/test_event_kinds.py`
holds every `emit`, every comparison with a kind in the evaluation, and docs/engine-interface.md
to these tables.
"""

from __future__ import annotations

from typing import Any

from .text import clean

ENGINE: dict[str, str] = {
    "joined": "char, name, label, x, y",
    "action": "char, op, type, category, args, goal (added by the pipeline when the submitter "
    "named one: a built-in configuration's goal, a model seat's tool call; absent otherwise): an "
    "accepted action started",
    "op_done": 'char, op, type, result (a dict, e.g. {"item": "wood", "count": 1})',
    "op_failed": "char, op, type, code, message",
    "op_cancelled": "char, op, type, reason",
    "gathered": "char, item, count, source",
    "crafted": "char, recipe, item, count, station, category, cooking (bool)",
    "placed": "char, item, x, y, area",
    "dismantled": "char, item, x, y, area",
    "ate": "char, item, hunger, health, in_dungeon (bool), supply (bool)",
    "equipped": "char, slot, item, self_crafted (bool)",
    "unequipped": "char, slot, item, self_crafted (bool)",
    "damaged": "char (a character victim) or entity, amount, source, source_id, health, "
    "in_dungeon",
    "attacked": "char (null when a creature attacks), attacker, attacker_kind, target, "
    "target_kind, damage",
    "killed": "char (the killer), target, target_kind, hostile, boss, in_dungeon",
    "down": "char, x, y, area, in_dungeon, cause",
    "recovered": "char, x, y, at (bed or plaza)",
    "slept": "char, reason",
    "woke": "char, reason (dawn, damage, request)",
    "home": "char, area (0 when none), locked: when it changes",
    "bed": "char, usable: when it changes",
    "day": "day (1-based), phase (day, dusk, night, dawn): at each phase change",
    "night_report": "char, day, damage (taken during that night): at dawn",
    "day_report": "char, day, downs (knockdowns that day): at the end of each full day",
    "dungeon_entered": "char, tier, instance, party, solo, expedition",
    "dungeon_left": "char, tier, instance, expedition, cleared, alive, damage, supplies, coins, "
    "kills, start, end",
    "boss_defeated": "char, tier, boss, instance, expedition (tier 4: the Shadow Sanctum)",
    "boss_phase": "boss, entity, phase, instance (the Shadow King's second phase)",
    "coins": "char, amount, total, source",
    "bought": "char, item, count, cost",
    "gave": "char, target, item, count",
    "dropped": "char, item, count (left on the ground as loot)",
    "picked_up": "char, items (item -> count taken from the bag)",
    "offered": "char (the altar opened for this character)",
    "task_complete": "char, task (production or exploration)",
    "said": "char, text",
}

OUTSIDE: dict[str, str] = {
    "program_started": "char, program, name, source: the program manager",
    "program_finished": "char, program, name, status, line, outcome",
    "program_failed": "char, program, name, status, line, outcome",
    "program_stopped": "char, program, name, status, line, outcome (cancelled, replaced, a "
    "direct action)",
    "program_interrupted": "char, program, name, status, line, outcome (after a restart)",
    "incident": "char, cause, start, end, detail: a harness or the agent API (a model's error, "
    "a lost connection, a budget)",
    "study_ended": "char, tick: the agent API tells each external seat of a study that its "
    "horizon came (only in the seats' event buffers, not in the world's stream)",
    "resumed": "char, how its player came back: a resumed study",
    "refused": "char, type (the action's), code, program (the program's id when a program's call "
    "was refused, else absent): an action the world refused when it was submitted, through the "
    "pipeline (every seat: built-in, python, model, the agent API) or by a hosted program; "
    "nothing in the world changed",
}

KINDS: dict[str, str] = ENGINE | OUTSIDE


def refused_event(char: int, action: Any, code: str) -> dict[str, Any]:
    """The `refused` event of an action the world refused at its submission (without `tick`:
    stamped by whoever adds it to the stream)."""
    kind = action.get("type") if isinstance(action, dict) else None
    # an action's type is a client's text: kept short and valid in the event stream
    kind = clean(kind)[:40] if isinstance(kind, str) else None
    return {"kind": "refused", "char": char, "type": kind, "code": code}
