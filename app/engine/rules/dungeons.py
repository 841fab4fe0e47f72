"""Dungeon actions: `enter` a tier from its gate into a fresh instance (with a party), `leave` by
the entrance or the open portal, `offer` the three sigils at the altar and `enter` the Shadow
Sanctum next to it. What happens inside (instances, expeditions, coins, a boss's fall, a
knockdown inside) is app/engine/dungeons.py; chests are rules/chests.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import codes, handlers, inventory
from ..dungeons import (
    INSIDE,
    end_expedition,
    is_sanctum,
    open_instance,
    rules,
    sanctum_spec,
    start_expedition,
    tiers,
    to_surface,
)
from ..errors import Refusal
from ..handlers import Arg, Handler, register
from ..model import SURFACE, Character, Entity, Op, Pos
from .common import chebyshev

if TYPE_CHECKING:
    from ..world import World


def _tier_of_gate(world: World, char: Character) -> int | None:
    name = world.tile_name(world.areas[SURFACE], char.x, char.y)
    for tier, spec in tiers(world.content).items():
        if spec["gate"] == name:
            return tier
    return None


def _near_altar(world: World, ent: Entity) -> bool:
    ax, ay = world.landmarks.altar
    return ent.area == SURFACE and chebyshev(ent.x, ent.y, ax, ay) <= world.content.place.reach


# ---------------------------------------------------------------------------- enter
def _where(world: World, char: Character) -> tuple[int, Pos]:
    """The tier this character may enter from where it stands, and the spot the party gathers
    around (its gate, or the altar for the Sanctum)."""
    if world.areas[char.area].kind != "surface":
        raise Refusal(codes.NOT_ON_GATE, f"{char.name} is already inside a dungeon; leave first")
    tier = _tier_of_gate(world, char)
    if tier is not None:
        return tier, (char.x, char.y)
    if _near_altar(world, char):
        return int(sanctum_spec(world.content)["tier"]), world.landmarks.altar
    gates = ", ".join(f"tier {t} at {g}" for t, g in enumerate(world.landmarks.gates, start=1))
    raise Refusal(
        codes.NOT_ON_GATE,
        f"{char.name} at ({char.x}, {char.y}) stands on no dungeon"
        f" gate ({gates}) and not next to the altar",
    )


def _may_enter(world: World, who: Character, tier: int) -> None:
    if is_sanctum(world.content, tier):
        sanctum = sanctum_spec(world.content)
        if not who.sanctum_open:
            raise Refusal(
                codes.NEEDS_SIGIL,
                f"the {sanctum['name']} opens for {who.name} only after"
                f" offering {', '.join(sanctum['offering'])} at the altar",
            )
        return
    spec = tiers(world.content)[tier]
    need = spec["requires"]
    if need and not who.count(need):
        raise Refusal(
            codes.NEEDS_SIGIL,
            f"the {spec['name']} (tier {tier}) lets in only those who"
            f" carry the {need}; {who.name} has none (defeat the tier {tier - 1} boss)",
        )


def _party(world: World, char: Character, args: dict, tier: int, spot: Pos) -> list[Character]:
    members = [char]
    reach = (
        int(rules(world.content)["party_reach"])
        if tier in tiers(world.content)
        else int(world.content.place.reach)
    )
    for cid in args.get("party") or ():
        if cid == char.id or any(m.id == cid for m in members):
            continue
        other = world.entities.get(cid)
        if not isinstance(other, Character):
            raise Refusal(codes.UNKNOWN_CHARACTER, f"there is no character {cid} to bring along")
        if other.area != SURFACE or chebyshev(other.x, other.y, *spot) > reach:
            raise Refusal(codes.NOT_ON_GATE, f"{other.name} is not at the gate with {char.name}")
        if other.down or other.asleep:
            raise Refusal(
                codes.CHARACTER_DOWN if other.down else codes.ASLEEP,
                f"{other.name} cannot come along now"
            )
        _may_enter(world, other, tier)
        members.append(other)
    return members


def _check_enter(world: World, char: Character, args: dict) -> None:
    tier, spot = _where(world, char)
    _may_enter(world, char, tier)
    _party(world, char, args, tier, spot)


def _enter(world: World, char: Character, op: Op) -> bool:
    tier, spot = _where(world, char)
    members = _party(world, char, op.args, tier, spot)
    area = open_instance(world, char, tier)
    ids = [m.id for m in members]
    area.instance.members = list(ids)  # who is inside now; enemies wake only near them
    for m in members:
        if m is not char:
            handlers.cancel(world, m, "entered a dungeon with a party")
        start_expedition(world, m, area, ids)
    op.result = {"tier": tier, "instance": area.id, "expedition": char.expedition.number}
    return True


register(
    Handler(
        "enter",
        "dungeon",
        {"party": Arg("int_list", required=False, help="ids of characters entering with you")},
        _check_enter,
        _enter,
        help="standing on a gate: enter a fresh instance of its tier (party: ids of"
        " characters on or next to the gate); next to the altar once offered:"
        " enter the Shadow Sanctum",
    )
)


# ---------------------------------------------------------------------------- leave
def _check_leave(world: World, char: Character, args: dict) -> None:
    area = world.area_of(char)
    if area.kind not in INSIDE:
        raise Refusal(codes.NOT_IN_DUNGEON, f"{char.name} is not inside a dungeon")
    tile = world.tile_name(area, char.x, char.y)
    if tile in ("entrance", "portal_open"):
        return
    ex, ey = area.instance.entrance
    if tile == "portal_closed":
        raise Refusal(
            codes.EXIT_CLOSED,
            f"the exit portal opens only when the boss has fallen;"
            f" retreat through the entrance at ({ex}, {ey})",
        )
    px, py = area.instance.portal
    raise Refusal(
        codes.NOT_AT_EXIT,
        f"{char.name} must stand on the entrance at ({ex}, {ey}) or"
        f" the exit portal at ({px}, {py}) to leave",
    )


def _leave(world: World, char: Character, op: Op) -> bool:
    area = world.area_of(char)
    record = end_expedition(world, char, alive=True)
    pos = to_surface(world, char)
    op.result = {"x": pos[0], "y": pos[1], "cleared": record["cleared"], "tier": area.tier}
    return True


register(
    Handler(
        "leave",
        "dungeon",
        {},
        _check_leave,
        _leave,
        help="on the entrance (retreat) or the open exit portal: back to the gate",
    )
)


# ---------------------------------------------------------------------------- the altar
def _check_offer(world: World, char: Character, args: dict) -> None:
    if not _near_altar(world, char):
        # Not where it is: the altar is found by exploring (the sign board does not show it)
        raise Refusal(codes.NOT_AT_ALTAR, f"{char.name} must stand next to the altar to offer")
    if char.sanctum_open:
        raise Refusal(
            codes.ALREADY_OFFERED,
            f"the altar is already open for {char.name}; `enter`"
            " next to it to go into the Shadow Sanctum",
        )
    missing = [s for s in sanctum_spec(world.content)["offering"] if not char.count(s)]
    if missing:
        raise Refusal(
            codes.NEEDS_SIGIL,
            f"the altar wants the outer, inner and royal sigils;"
            f" {char.name} lacks {', '.join(missing)}",
        )


def _offer(world: World, char: Character, op: Op) -> bool:
    spec = sanctum_spec(world.content)
    if spec["consume_offering"]:
        for sigil in spec["offering"]:
            inventory.remove(char, sigil, 1)
    char.sanctum_open = True
    world.emit("offered", char=char.id)
    op.result = {"sanctum_open": True}
    return True


register(
    Handler(
        "offer",
        "dungeon",
        {},
        _check_offer,
        _offer,
        help="next to the altar: offer the three sigils to open the Shadow Sanctum",
    )
)
