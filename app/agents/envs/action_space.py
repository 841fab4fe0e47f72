"""Every action of the game as three small integers, generated from the one action table.

`TableActions.space()` is `MultiDiscrete([1 + len(types), WINDOW * WINDOW, choices])`:

- `verb`: 0 lets the ongoing operation run (nothing is sent); `k` is the k-th action type of
  `asiworld.protocol.actions()` (TableActions.types), so a new action in the engine shows here.
- `cell`: a tile of the character's WINDOW x WINDOW view window, row-major, the character at
  the centre (`CENTRE`). Arguments `x`, `y` are that tile; `dir` is the step towards it (the
  larger offset wins, north/south on a tie, north at the centre); `target` is the creature or
  character standing there (for `gather`, a tile without one is gathered as `x`, `y`).
- `choice`: the word an argument names, taken modulo its list: an item (sorted item names) for
  `item` and `say`'s `text`, a recipe (sorted) for `recipe`, a slot for `slot`.

Every other argument takes its default (`count` 1, `wait` 1 tick, `enter` alone). An argument
the encoding cannot fill (`attack` with nobody on the tile) is answered by the environment with
`{"ok": False, "code": "no_target", ...}` without reaching the world, like any refusal.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from asiworld import protocol
from asiworld.engine import codes

WINDOW = 17
CENTRE = (WINDOW * WINDOW) // 2
HALF = WINDOW // 2


def _direction(dx: int, dy: int) -> str:
    if abs(dx) > abs(dy):
        return "e" if dx > 0 else "w"
    return "s" if dy > 0 else "n"


class TableActions:
    """Decodes `[verb, cell, choice]` into an action dict for one observation."""

    def __init__(self, content: Any) -> None:
        self.table = protocol.actions()
        self.types = tuple(a["type"] for a in self.table)
        self.items = tuple(sorted(content.items))
        self.recipes = tuple(sorted(content.recipes))
        self.slots = tuple(next(a for a in self.table if a["type"] == "unequip")["args"]["slot"]
                           ["choices"])
        self.nvec = np.array([1 + len(self.types), WINDOW * WINDOW,
                              max(len(self.items), len(self.recipes), len(self.slots))], np.int64)

    def space(self) -> Any:
        from gymnasium import spaces

        return spaces.MultiDiscrete(self.nvec)

    def words(self, arg: str, kind: str) -> tuple[str, ...]:
        if kind == "slot":
            return self.slots
        return self.recipes if arg == "recipe" else self.items

    def action(self, verb: int, cell: int, choice: int, obs: dict) -> dict | None:
        """The action dict (None: nothing to send). A dict with `ok: False` is the
        environment's own refusal: nothing goes to the world."""
        if verb == 0:
            return None
        spec = self.table[verb - 1]
        me = obs["self"]
        dx, dy = cell % WINDOW - HALF, cell // WINDOW - HALF
        x, y = me["x"] + dx, me["y"] + dy
        out: dict[str, Any] = {"type": spec["type"]}
        for arg, desc in spec["args"].items():
            kind = desc["kind"]
            if arg in ("x", "y"):
                out[arg] = max(0, x if arg == "x" else y)
            elif kind == "dir":
                out[arg] = _direction(dx, dy)
            elif arg == "target":
                found = next((e["id"] for e in obs["entities"] if (e["x"], e["y"]) == (x, y)),
                             None)
                if found is not None:
                    out[arg] = found
                elif desc["required"]:
                    return {"ok": False, "code": codes.NO_TARGET,
                            "message": f"nobody stands at ({x}, {y}) to {spec['type']}"}
            elif kind in ("str", "slot"):
                words = self.words(arg, kind)
                out[arg] = words[choice % len(words)]
        if "target" in out and spec.get("forms"):  # gather: a creature, not a tile
            out.pop("x", None)
            out.pop("y", None)
        return out

    def describe(self) -> list[str]:
        """One line per verb, for the documentation and for people reading an agent's log."""
        lines = ["0: noop (let the ongoing operation run)"]
        for k, spec in enumerate(self.table, start=1):
            args = ", ".join(spec["args"]) or "no arguments"
            lines.append(f"{k}: {spec['type']} ({args})")
        return lines
