"""supplies: what it carries into the next tier: its potions (bought with coins beyond the outfit's
price, else cooked), berries, and a torch for the dark tiers."""

from __future__ import annotations

from typing import Any

from ..character import OUTFIT_PRICE
from ..rulebook import inputs, price
from .base import Answer, Goal

TORCH_PRICE = price("torch")  # the merchant's prices (merchant.toml)
POTION_PRICE = price("healing_potion")


class Supplies(Goal):
    name = "supplies"
    purpose = "gather supplies for the next tier"

    def next(self, obs: dict[str, Any], items: dict[str, int]) -> Answer:
        tier = self.me.tier_ahead(obs, items)
        if tier is None:
            return None
        s = obs["self"]
        want = self.me.potions_for(tier)
        if items.get("healing_potion", 0) < want:
            reserve = 0 if self.me.outfit_done(obs, items) else OUTFIT_PRICE
            if self.me.p.buy_potions and s["coins"] >= POTION_PRICE + reserve:
                n = min(want - items.get("healing_potion", 0),
                        (s["coins"] - reserve) // POTION_PRICE)
                if n > 0:
                    return self.moves.buy(obs, "healing_potion", n)
            if "stove" in self.me.sites:
                return self.moves.cook_potions(obs, items, want - items.get("healing_potion", 0))
        if items.get("berries", 0) < 8:
            return self.moves.fetch(obs, "b")
        if tier >= 3 and "torch" not in self.me.has(obs, items):
            if s["coins"] >= TORCH_PRICE:
                return self.moves.buy(obs, "torch", min(2, s["coins"] // TORCH_PRICE))
            return self.moves.make(obs, items, "workbench", "torch", inputs("torch"))
        return None
