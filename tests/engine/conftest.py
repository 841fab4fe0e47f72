"""A test arena: a patch of plain grass carved into a generated world, so a rule test sets up
exactly the tiles it talks about. Setup may change the world directly; the rules under test run
through `submit` and `step`."""

from __future__ import annotations

import pytest
from asiworld.engine import World, load_content
from asiworld.engine.model import SURFACE, Character, Creature

CONTENT = load_content()
ARENA = (10, 10, 30, 30)  # x0, y0, x1, y1 (exclusive)


class Arena:
    def __init__(self, seed: int = 7):
        self.world = World.create(seed=seed, content=CONTENT, size=64)
        w = self.world
        x0, y0, x1, y1 = ARENA
        area = w.areas[SURFACE]
        area.terrain[y0:y1, x0:x1] = CONTENT.tile_code["grass"]
        area.amount[y0:y1, x0:x1] = 0
        for ent in list(w.entities.values()):
            if isinstance(ent, Creature) and x0 - 12 <= ent.x < x1 + 12 and y0 - 12 <= ent.y < y1 + 12:
                w.remove_entity(ent)
        area.version += 1

    def hero(self, name: str = "ada", at: tuple[int, int] = (20, 20), items: dict | None = None,
             **equipment: str) -> Character:
        w = self.world
        char = w.entities[w.add_character(name)]
        w.move_entity(char, at[0], at[1], SURFACE)
        for item, n in (items or {}).items():
            char.inventory.append([item, n])
        for slot, item in equipment.items():
            char.equipment[slot] = item
        return char

    def tile(self, x: int, y: int, name: str, amount: int = 0) -> None:
        area = self.world.areas[SURFACE]
        area.terrain[y, x] = CONTENT.tile_code[name]
        src = CONTENT.sources.get(name, {})
        area.amount[y, x] = amount or src.get("amount", 0)
        area.version += 1

    def creature(self, kind: str, at: tuple[int, int]) -> Creature:
        return self.world.add_creature(kind, SURFACE, at)

    def act(self, char: Character, action: dict, ticks: int = 1) -> list[dict]:
        result = self.world.submit(char.id, action)
        assert result.ok, result
        return self.run(ticks)

    def run(self, ticks: int) -> list[dict]:
        events = []
        for _ in range(ticks):
            events.extend(self.world.step())
        return events

    def refused(self, char_id, action) -> str:
        before = self.world.state_hash()
        result = self.world.submit(char_id, action)
        assert not result.ok, f"{action} was accepted"
        assert result.message and result.code != "accepted"
        assert self.world.state_hash() == before, "a refused action changed the world"
        return result.code


@pytest.fixture
def arena() -> Arena:
    return Arena()
