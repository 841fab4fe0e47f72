"""cloth: a loom and the cloth for the tailoring table and the outfit, and the table."""

from __future__ import annotations

from typing import Any

from ..moves import COST
from ..rulebook import inputs
from .base import Answer, Goal


class Cloth(Goal):
    name = "cloth"
    purpose = "weave cloth for the tailoring table and the outfit"

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        outfit_done = self.me.outfit_done(obs, items)
        table = "tailoring_table" in self.me.sites or not self.me.p.production
        cloth_need = ((0 if table else COST["tailoring_table"]["cloth"])
                      + (0 if outfit_done else inputs("travel_outfit")["cloth"]))
        if items.get("cloth", 0) < cloth_need:
            if "loom" not in self.me.sites:
                if items.get("fibre", 0) < COST["loom"]["fibre"]:
                    return self.moves.fetch(obs, "f")
                return self.moves.place(obs, "loom", near_site="workbench")
            missing = cloth_need - items.get("cloth", 0)
            if items.get("fibre", 0) < inputs("cloth")["fibre"] * missing:
                return self.moves.fetch(obs, "f")
            return self.moves.make(obs, items, "loom", "cloth", {}, count=missing)
        if not table:
            return self.moves.place(obs, "tailoring_table", near_site="workbench")
        return None
