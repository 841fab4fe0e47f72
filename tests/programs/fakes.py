"""A small stand-in world with the contract's submit/step/observe, for API-shape tests."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Result:
    ok: bool
    code: str
    message: str
    op: int | None = None


class FakeWorld:
    """Accepts every action except type 'craft' with recipe 'nothing'; each op lasts `ticks`."""

    def __init__(self, ticks: int = 1) -> None:
        self.tick = 0
        self.seed = 1
        self.ticks = ticks
        self.next_op = 1
        self.submitted: list[tuple[int, dict]] = []
        self.running: dict[int, tuple[int, dict, int]] = {}  # op -> (char, action, ends)

    def observe(self, char_id: int, consume: bool = True) -> dict:
        if char_id != 1:
            raise KeyError(char_id)
        return {
            "tick": self.tick,
            "self": {"id": 1, "x": 5, "y": 6, "inventory": [{"item": "wood", "count": 2}]},
            "entities": [{"id": 9, "kind": "sheep", "x": 6, "y": 6}],
        }

    def submit(self, char_id: int, action: dict) -> Result:
        if action.get("recipe") == "nothing":
            return Result(False, "unknown_recipe", "there is no recipe 'nothing'")
        op = self.next_op
        self.next_op += 1
        self.submitted.append((char_id, action))
        self.running[op] = (char_id, action, self.tick + self.ticks)
        return Result(True, "accepted", "accepted", op)

    def step(self) -> list[dict]:
        events = []
        for op, (char, action, ends) in sorted(self.running.items()):
            if ends == self.tick:
                events.append(
                    {
                        "tick": self.tick,
                        "kind": "action",
                        "char": char,
                        "op": op,
                        "type": action["type"],
                    }
                )
            if ends <= self.tick + 1:
                events.append(
                    {
                        "tick": self.tick,
                        "kind": "op_done",
                        "char": char,
                        "op": op,
                        "type": action["type"],
                        "result": {"echo": action["type"]},
                    }
                )
                del self.running[op]
        self.tick += 1
        return events
