"""buy: the trading post at the plaza sells for T-coins (prices in content/merchant.toml) and buys
nothing. Spending is told by the `bought` event's cost; `coins` events are earnings only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import codes, inventory
from ..errors import Refusal
from ..handlers import Arg, Handler, register
from ..model import SURFACE, Character, Op
from .common import chebyshev

if TYPE_CHECKING:
    from ..world import World


def price_list(world: World) -> dict[str, int]:
    return {k: int(v) for k, v in world.content.raw["merchant"]["sells"].items()}


def _check(world: World, char: Character, args: dict) -> None:
    mx, my = world.landmarks.merchant
    if char.area != SURFACE or chebyshev(char.x, char.y, mx, my) > world.content.place.reach:
        raise Refusal(
            codes.NOT_AT_MERCHANT,
            f"{char.name} must stand next to the merchant at ({mx}, {my}) to buy"
        )
    item, count = args["item"], args["count"]
    prices = price_list(world)
    if item not in world.content.items:
        raise Refusal(codes.UNKNOWN_ITEM, f"there is no item called {item!r}")
    if item not in prices:
        offer = ", ".join(f"{k} ({v})" for k, v in prices.items())
        raise Refusal(codes.NOT_SOLD, f"the merchant does not sell {item}; on offer: {offer}")
    most = int(world.content.raw["merchant"]["max_count"])
    if count > most:
        raise Refusal(codes.BAD_ARGUMENT, f"buy: at most {most} at a time")
    cost = prices[item] * count
    if char.coins < cost:
        raise Refusal(
            codes.NOT_ENOUGH_COINS,
            f"{count} {item} cost {cost} T-coins; {char.name} has"
            f" {char.coins} (T-coins come from dungeon chests and enemies)",
        )
    if inventory.room_for(char, item, world.content) < count:
        raise Refusal(codes.INVENTORY_FULL, f"{char.name} has no room for {count} {item}")


def _buy(world: World, char: Character, op: Op) -> bool:
    item, count = op.args["item"], op.args["count"]
    cost = price_list(world)[item] * count
    char.coins -= cost
    inventory.add(char, item, count, world.content)
    world.emit("bought", char=char.id, item=item, count=count, cost=cost)
    op.result = {"item": item, "count": count, "cost": cost, "coins": char.coins}
    return True


register(
    Handler(
        "buy",
        "trade",
        {
            "item": Arg("str", help="an item in the merchant's list"),
            "count": Arg("int", required=False, default=1, low=1, high=1000, help="how many to buy"),
        },
        _check,
        _buy,
        help="next to the merchant: buy items for T-coins at the prices in its list"
        " (the travel-outfit design, healing potions, torches, shears)",
    )
)
