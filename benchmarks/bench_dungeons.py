"""Engine ticks per second with dungeons active: 9 armed characters (three per tier) walk to
their gates, enter, fight through their instances toward the boss, leave, and go again.
Only `World.step` is timed, in CPU time of this process (steadier than the wall clock on a
shared machine); the little bots that choose actions read the world directly.

    python benchmarks/bench_dungeons.py [ticks] [characters] [think_ticks]

think_ticks: a bot decides only every this many ticks (like `asiworld bench engine`'s agents,
which think for 3 ticks); 1 makes every bot act on every tick.
"""

from __future__ import annotations

import sys
import time

from asiworld.engine import World, load_content
from asiworld.engine.model import SURFACE, Character, Creature


def bot_action(world: World, char: Character) -> dict | None:
    """Walk to the gate and enter; inside, strike an adjacent enemy, else head for the boss
    (or the exit once the boss is down)."""
    if char.down:
        return None
    area = world.areas[char.area]
    if char.area == SURFACE:
        gate = world.landmarks.gates[char.id % 3]
        if (char.x, char.y) == gate:
            return {"type": "enter"}
        if char.op is None:
            return {"type": "move_to", "x": gate[0], "y": gate[1]}
        return None
    if char.next_attack <= world.tick:
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                eid = area.occupant.get((char.x + dx, char.y + dy))
                ent = world.entities.get(eid) if eid is not None else None
                if isinstance(ent, Creature) and ent.hostile:
                    return {"type": "attack", "target": ent.id}
    if area.instance.cleared:
        px, py = area.instance.portal
        if (char.x, char.y) == (px, py):
            return {"type": "leave"}
        return {"type": "move_to", "x": px, "y": py} if char.op is None else None
    if char.health < 50 and char.count("healing_potion"):
        return {"type": "eat", "item": "healing_potion"}
    foe = _nearest_foe(world, char, 5)
    if foe is not None:  # close in step by step, as a player would
        return _step_toward(world, char, foe.x, foe.y)
    if char.op is None:  # the boss waits by the exit portal
        px, py = area.instance.portal
        return {"type": "move_to", "x": px, "y": py}
    return None


def _nearest_foe(world: World, char: Character, radius: int) -> Creature | None:
    area = world.areas[char.area]
    best = None
    for dy in range(-radius, radius + 1):
        for dx in range(-radius, radius + 1):
            eid = area.occupant.get((char.x + dx, char.y + dy))
            ent = world.entities.get(eid) if eid is not None else None
            if isinstance(ent, Creature) and ent.hostile:
                d = max(abs(dx), abs(dy))
                if best is None or d < best[0]:
                    best = (d, ent)
    return best[1] if best else None


def _step_toward(world: World, char: Character, x: int, y: int) -> dict | None:
    area = world.areas[char.area]
    for d, (dx, dy) in sorted(
        {"e": (1, 0), "w": (-1, 0), "s": (0, 1), "n": (0, -1)}.items(),
        key=lambda kv: abs(char.x + kv[1][0] - x) + abs(char.y + kv[1][1] - y),
    ):
        if world.walkable(area, char.x + dx, char.y + dy, char):
            return {"type": "move", "dir": d} if char.op is None else None
    return None


def main(ticks: int = 3000, characters: int = 9, think_ticks: int = 3) -> dict:
    world = World.create(seed=7, content=load_content())
    for i in range(characters):
        char = world.entities[world.add_character(f"bench{i}")]
        char.equipment.update(weapon="iron_sword", armor="iron_armor", light="torch")
        char.light_ticks = 10**9
        char.inventory += [["outer_sigil", 1], ["inner_sigil", 1], ["healing_potion", 50]]
    step_seconds = 0.0
    entries = 0
    busiest = 0
    for _ in range(ticks):
        for char in world.characters():
            if (world.tick + char.id) % think_ticks:
                continue
            action = bot_action(world, char)
            if action is not None:
                world.submit(char.id, action)
        t0 = time.process_time()
        events = world.step()
        step_seconds += time.process_time() - t0
        entries += sum(1 for e in events if e["kind"] == "dungeon_entered")
        busiest = max(busiest, sum(1 for a in world.areas.values() if a.kind != "surface"))
    row = {
        "characters": characters,
        "ticks": ticks,
        "think_ticks": think_ticks,
        "entries": entries,
        "most_instances_at_once": busiest,
        "ticks_per_second": round(ticks / step_seconds, 1),
        "ms_per_tick": round(1000 * step_seconds / ticks, 3),
    }
    print(row)
    return row


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:4]))
