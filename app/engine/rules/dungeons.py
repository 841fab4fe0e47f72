"""Dungeons: `enter` a tier from its gate into a fresh instance, open chests (`gather` on an
adjacent chest), defeat the boss (its sigil, the exit portal opens), `leave` by the entrance or the
open portal; `offer` the three sigils at the altar and `enter` the Shadow Sanctum next to it.
A knockdown inside ends the expedition at the gate. Every number is in content/dungeons.toml.

Bookkeeping that decides the future (the expedition counter, who recovers at a gate, instances
waiting to be swept away) lives in the surface area's `info["dungeons"]`, so it is hashed and
snapshotted with the rest of the world."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from .. import actions, inventory
from ..actions import HANDLERS, Arg, Handler, register
from ..content import Content, ContentError
from ..creatures import sees
from ..dungeon_gen import Layout, generate_instance, generate_sanctum
from ..errors import Refusal
from ..model import SURFACE, Area, Character, Creature, Entity, Op, Pos
from . import gathering  # noqa: F401  (the plain gather handler must exist before we wrap it)
from .combat import harm
from .common import chebyshev, require_adjacent

if TYPE_CHECKING:
    from ..world import World

INSIDE = ("dungeon", "sanctum")


# ---------------------------------------------------------------------------- content
def tiers(content: Content) -> dict[int, dict[str, Any]]:
    return {int(k): v for k, v in content.raw["dungeons"]["tiers"].items()}


def sanctum_spec(content: Content) -> dict[str, Any]:
    return content.raw["dungeons"]["sanctum"]


def rules(content: Content) -> dict[str, Any]:
    return content.raw["dungeons"]["rules"]


def validate(content: Content) -> None:
    """Fail at start-up, not mid-expedition, when dungeons.toml names unknown things."""
    if "dungeons" not in content.raw:
        raise ContentError("content: dungeons.toml is missing")
    for tier, spec in tiers(content).items():
        for key in ("enemy", "boss"):
            if spec[key] not in content.creatures:
                raise ContentError(f"content: tier {tier} names unknown creature '{spec[key]}'")
        for key in ("sigil", "requires"):
            if spec[key] and spec[key] not in content.items:
                raise ContentError(f"content: tier {tier} names unknown item '{spec[key]}'")
        if spec["gate"] not in content.tile_code:
            raise ContentError(f"content: tier {tier} gate tile '{spec['gate']}' is unknown")
        for item, _ in spec["chest_loot"]:
            if item not in content.items:
                raise ContentError(f"content: tier {tier} chest loot '{item}' is unknown")
    sanctum = sanctum_spec(content)
    for item in sanctum["offering"]:
        if item not in content.items:
            raise ContentError(f"content: the altar's offering names unknown item '{item}'")
    for kind in (sanctum["boss"], sanctum["pattern"]["summon"]):
        if kind not in content.creatures:
            raise ContentError(f"content: the Sanctum names unknown creature '{kind}'")


def _state(world: World) -> dict[str, Any]:
    """Only effects call this (it creates the record); checks must not change anything."""
    return world.areas[SURFACE].info.setdefault(
        "dungeons", {"expeditions": 0, "recover_at": {}, "sweep": []}
    )


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
        raise Refusal("not_on_gate", f"{char.name} is already inside a dungeon; leave first")
    tier = _tier_of_gate(world, char)
    if tier is not None:
        return tier, (char.x, char.y)
    if _near_altar(world, char):
        return int(sanctum_spec(world.content)["tier"]), world.landmarks.altar
    gates = ", ".join(f"tier {t} at {g}" for t, g in enumerate(world.landmarks.gates, start=1))
    raise Refusal(
        "not_on_gate",
        f"{char.name} at ({char.x}, {char.y}) stands on no dungeon"
        f" gate ({gates}) and not next to the altar",
    )


def _may_enter(world: World, who: Character, tier: int) -> None:
    sanctum = sanctum_spec(world.content)
    if tier == int(sanctum["tier"]):
        if not who.sanctum_open:
            raise Refusal(
                "needs_sigil",
                f"the {sanctum['name']} opens for {who.name} only after"
                f" offering {', '.join(sanctum['offering'])} at the altar",
            )
        return
    spec = tiers(world.content)[tier]
    need = spec["requires"]
    if need and not who.count(need):
        raise Refusal(
            "needs_sigil",
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
            raise Refusal("unknown_character", f"there is no character {cid} to bring along")
        if other.area != SURFACE or chebyshev(other.x, other.y, *spot) > reach:
            raise Refusal("not_on_gate", f"{other.name} is not at the gate with {char.name}")
        if other.down or other.asleep:
            raise Refusal(
                "character_down" if other.down else "asleep", f"{other.name} cannot come along now"
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
    area.info["members"] = list(ids)  # who is inside now; enemies wake only near them
    state = _state(world)
    for m in members:
        if m is not char:
            actions.cancel(world, m, "entered a dungeon with a party")
        m.entries[tier] = m.entries.get(tier, 0) + 1
        m.surface_pos = (m.x, m.y)
        pos = world.free_tile_near(area.id, area.info["entrance"])
        world.move_entity(m, pos[0], pos[1], area.id)
        state["expeditions"] += 1
        m.expedition = {
            "number": state["expeditions"],
            "tier": tier,
            "instance": area.id,
            "start": world.tick,
            "solo": len(members) == 1,
            "party": ids,
            "damage": 0,
            "supplies": 0,
            "coins": 0,
            "kills": 0,
        }
        world.emit(
            "dungeon_entered",
            char=m.id,
            tier=tier,
            instance=area.id,
            party=ids,
            solo=len(members) == 1,
            expedition=state["expeditions"],
        )
    op.result = {"tier": tier, "instance": area.id, "expedition": char.expedition["number"]}
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


def open_instance(world: World, char: Character, tier: int) -> Area:
    """A new instance for `char`'s next entry of `tier`, with its creatures in place."""
    count = char.entries.get(tier, 0)
    sanctum = sanctum_spec(world.content)
    if tier == int(sanctum["tier"]):
        layout = generate_sanctum(world.content, world.seed, char.id, count)
        spec, kind = sanctum, "sanctum"
    else:
        layout = generate_instance(world.content, world.seed, char.id, tier, count)
        spec, kind = tiers(world.content)[tier], "dungeon"
    info = {
        "name": spec["name"],
        "entrance": layout.entrance,
        "portal": layout.portal,
        "cleared": False,
        "chests": dict(layout.chests),
        "owner": char.id,
        "entry": count,
    }
    if spec.get("dark"):
        info["dark_radius"] = int(spec["dark_radius"])
    area = world.new_area(kind, layout.terrain, dark=bool(spec.get("dark")), tier=tier, info=info)
    _populate(world, area, layout, spec, tier)
    return area


def _populate(world: World, area: Area, layout: Layout, spec: dict, tier: int) -> None:
    for pos, coins in zip(layout.enemies, layout.enemy_coins, strict=True):
        world.add_creature(spec["enemy"], area.id, pos, tier=tier, info={"coins": coins})
    boss = world.add_creature(
        spec["boss"], area.id, layout.boss, boss=True, tier=tier, info={"coins": layout.boss_coins}
    )
    area.info["boss"] = boss.id


# ---------------------------------------------------------------------------- leave
def _check_leave(world: World, char: Character, args: dict) -> None:
    area = world.area_of(char)
    if area.kind not in INSIDE:
        raise Refusal("not_in_dungeon", f"{char.name} is not inside a dungeon")
    tile = world.tile_name(area, char.x, char.y)
    if tile in ("entrance", "portal_open"):
        return
    ex, ey = area.info["entrance"]
    if tile == "portal_closed":
        raise Refusal(
            "exit_closed",
            f"the exit portal opens only when the boss has fallen;"
            f" retreat through the entrance at ({ex}, {ey})",
        )
    px, py = area.info["portal"]
    raise Refusal(
        "not_at_exit",
        f"{char.name} must stand on the entrance at ({ex}, {ey}) or"
        f" the exit portal at ({px}, {py}) to leave",
    )


def _leave(world: World, char: Character, op: Op) -> bool:
    area = world.area_of(char)
    record = end_expedition(world, char, alive=True)
    pos = _to_surface(world, char)
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


def end_expedition(world: World, char: Character, alive: bool) -> dict[str, Any]:
    """Close the character's expedition record and publish it as `dungeon_left`."""
    area = world.area_of(char)
    exp = char.expedition or {
        "number": 0,
        "start": world.tick,
        "solo": True,
        "party": [char.id],
        "damage": 0,
        "supplies": 0,
        "coins": 0,
        "kills": 0,
    }
    record = {
        "tier": area.tier,
        "instance": area.id,
        "expedition": exp["number"],
        "cleared": bool(area.info.get("cleared")),
        "alive": alive,
        "damage": exp["damage"],
        "supplies": exp["supplies"],
        "coins": exp["coins"],
        "kills": exp["kills"],
        "start": exp["start"],
        "end": world.tick,
        "solo": exp["solo"],
        "party": list(exp["party"]),
    }
    char.expedition = None
    if char.id in area.info.get("members", ()):
        area.info["members"].remove(char.id)
    world.emit("dungeon_left", char=char.id, **record)
    _state(world)["sweep"].append(area.id)
    return record


def _to_surface(world: World, char: Character) -> Pos:
    pos = world.free_tile_near(SURFACE, char.surface_pos)
    world.move_entity(char, pos[0], pos[1], SURFACE)
    char.surface_pos = pos
    return pos


# ---------------------------------------------------------------------------- the altar
def _check_offer(world: World, char: Character, args: dict) -> None:
    ax, ay = world.landmarks.altar
    if not _near_altar(world, char):
        raise Refusal("not_at_altar", f"{char.name} must stand next to the altar at ({ax}, {ay})")
    if char.sanctum_open:
        raise Refusal(
            "already_offered",
            f"the altar is already open for {char.name}; `enter`"
            " next to it to go into the Shadow Sanctum",
        )
    missing = [s for s in sanctum_spec(world.content)["offering"] if not char.count(s)]
    if missing:
        raise Refusal(
            "needs_sigil",
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


# ---------------------------------------------------------------------------- chests
_plain_gather = HANDLERS["gather"]


def _chest_at(world: World, char: Character, args: dict) -> str | None:
    if "x" not in args or "y" not in args:
        return None
    area = world.area_of(char)
    if area.kind not in INSIDE or not area.in_bounds(args["x"], args["y"]):
        return None
    tile = world.tile_name(area, args["x"], args["y"])
    return tile if tile in ("chest", "chest_open") else None


def _check_gather(world: World, char: Character, args: dict) -> None:
    tile = _chest_at(world, char, args)
    if tile is None:
        _plain_gather.check(world, char, args)
        return
    require_adjacent(world, char, args["x"], args["y"], "the chest")
    if tile == "chest_open":
        raise Refusal("nothing_to_gather", f"the chest at ({args['x']}, {args['y']}) is empty")


def _begin_gather(world: World, char: Character, op: Op) -> None:
    if _chest_at(world, char, op.args) is None:
        _plain_gather.begin(world, char, op)
    else:
        op.wait = int(rules(world.content)["chest_ticks"])


def _effect_gather(world: World, char: Character, op: Op) -> bool:
    if _chest_at(world, char, op.args) is None:
        return _plain_gather.effect(world, char, op)
    area = world.area_of(char)
    pos = (op.args["x"], op.args["y"])
    found = area.info["chests"].pop(pos, {"coins": 0, "items": {}})
    world.set_tile(area, pos[0], pos[1], "chest_open")
    if found["coins"]:
        award(world, char, found["coins"], "chest")
    spill: dict[str, int] = {}
    for item, count in found["items"].items():
        left = inventory.add(char, item, count, world.content)
        if left:
            spill[item] = left
        world.emit("gathered", char=char.id, item=item, count=count - left, source="chest")
    world.drop_loot(area, (char.x, char.y), spill, owner=char.id)
    op.result = {"coins": found["coins"], "items": dict(found["items"])}
    return True


register(
    dataclasses.replace(
        _plain_gather,
        check=_check_gather,
        begin=_begin_gather,
        effect=_effect_gather,
        help=_plain_gather.help
        + "; in a dungeon, open an adjacent chest (x, y) for coins and supplies",
    )
)


# ---------------------------------------------------------------------------- coins and bosses
def award(world: World, char: Character, amount: int, source: str) -> None:
    """T-coins are earned only here: chests and defeated dungeon enemies."""
    char.coins += amount
    if char.expedition is not None:
        char.expedition["coins"] += amount
    world.emit("coins", char=char.id, amount=amount, total=char.coins, source=source)


def _on_defeat(world: World, creature: Creature, killer: Entity | None) -> None:
    coins = int(creature.info.get("coins", 0))
    if coins and isinstance(killer, Character):
        award(world, killer, coins, "boss" if creature.boss else "enemy")
    if creature.boss:
        _boss_falls(world, creature, killer)


def _boss_falls(world: World, boss: Creature, killer: Entity | None) -> None:
    area = world.areas[boss.area]
    if area.kind not in INSIDE or area.info.get("boss") != boss.id:
        return
    area.info["cleared"] = True
    px, py = area.info["portal"]
    world.set_tile(area, px, py, "portal_open")
    sanctum = sanctum_spec(world.content)
    final = area.tier == int(sanctum["tier"])
    sigil = None if final else tiers(world.content)[area.tier]["sigil"]
    if sigil:
        left = (
            inventory.add(killer, sigil, 1, world.content) if isinstance(killer, Character) else 1
        )
        if left:
            world.drop_loot(area, (boss.x, boss.y), {sigil: 1}, owner=getattr(killer, "id", 0))
    if final:  # his shades fade with him
        for ent in list(world.entities.values()):
            if ent.area == area.id and ent.kind == sanctum["pattern"]["summon"]:
                world.remove_entity(ent)
    for ent in sorted(_characters_in(world, area.id), key=lambda c: c.id):
        exp = ent.expedition or {}
        world.emit(
            "boss_defeated",
            char=ent.id,
            tier=area.tier,
            boss=boss.kind,
            instance=area.id,
            expedition=exp.get("number"),
            sigil=sigil,
        )
        if final and "exploration" not in ent.tasks:
            ent.tasks["exploration"] = world.tick
            world.emit("task_complete", char=ent.id, task="exploration")


def _characters_in(world: World, area_id: int) -> list[Character]:
    area = world.areas.get(area_id)
    ids = sorted(area.info.get("members", ())) if area is not None else []
    return [world.entities[i] for i in ids if i in world.entities]


_NUMBERS: dict[str, tuple[str, int]] = {}


def _turn_numbers(content: Content) -> tuple[str, int]:
    """(the Sanctum boss's kind, doze ticks), read once per content (by its digest): this
    runs on every creature's turn."""
    numbers = _NUMBERS.get(content.hash)
    if numbers is None:
        numbers = (sanctum_spec(content)["boss"], int(rules(content)["doze_ticks"]))
        _NUMBERS[content.hash] = numbers
    return numbers


def _creature_turn(world: World, cr: Creature) -> bool:
    """Dungeon creatures look only at the characters inside their own instance (not at every
    entity in the world); with none near they doze for a few ticks, which changes nothing
    because nobody can cross the extra distance in that time. The Shadow King follows his
    pattern. True when the turn is spent."""
    area = world.areas[cr.area]
    if area.kind not in INSIDE:
        return False
    king, doze = _turn_numbers(world.content)
    if cr.kind == king:
        return _king_turn(world, cr)
    if cr.target is not None:
        return False
    sight = int(world.content.creatures[cr.kind].get("sight", 0))
    near = False
    best = None
    for cid in area.info.get("members", ()):
        char = world.entities.get(cid)
        if char is None or char.down:
            continue
        d = chebyshev(char.x, char.y, cr.x, cr.y)
        near = near or d <= sight + doze
        if (
            d <= sight
            and (best is None or (d, cid) < best[:2])
            and sees(world, area, cr, char, sight)
        ):
            best = (d, cid, char)
    if best is not None:
        cr.target = best[2].id  # the common logic chases and strikes from here
        return False
    if not near:
        cr.next_move = world.tick + doze
    return True


def _king_turn(world: World, cr: Creature) -> bool:
    """The Shadow King: below half health he enters phase 2, strikes faster and calls shades.
    Returns True when his turn is spent (a strike); otherwise the common chase logic runs."""
    spec = sanctum_spec(world.content)
    pattern = spec["pattern"]
    if cr.phase == 1 and cr.health <= cr.max_health * float(pattern["phase2_at"]):
        cr.phase = 2
        cr.info["next_summon"] = world.tick
        world.emit("boss_phase", char=None, boss=cr.kind, entity=cr.id, phase=2, instance=cr.area)
    if cr.phase == 2 and world.tick >= cr.info.get("next_summon", 0):
        cr.info["next_summon"] = world.tick + int(pattern["summon_every"])
        _summon(world, cr, pattern)
    target = world.entities.get(cr.target) if cr.target is not None else None
    if (
        target is None
        or target.area != cr.area
        or getattr(target, "down", False)
        or chebyshev(cr.x, cr.y, target.x, target.y) > 1
    ):
        return False
    if world.tick < cr.next_attack:
        return True  # he holds his ground next to his foe
    key = "phase2_attack_cooldown" if cr.phase == 2 else "attack_cooldown"
    cr.next_attack = world.tick + int(pattern[key])
    damage = int(world.content.creatures[cr.kind]["damage"])
    world.emit(
        "attacked",
        char=None,
        attacker=cr.id,
        attacker_kind=cr.kind,
        target=target.id,
        target_kind=target.kind,
        damage=damage,
    )
    harm(world, target, damage, source=cr)
    return True


def _summon(world: World, king: Creature, pattern: dict) -> None:
    kind = pattern["summon"]
    alive = sum(1 for e in world.entities.values() if e.area == king.area and e.kind == kind)
    if alive >= int(pattern["summon_max"]):
        return
    try:
        pos = world.free_tile_near(king.area, (king.x, king.y), radius=3)
    except RuntimeError:
        return
    shade = world.add_creature(kind, king.area, pos, info={"summoned_by": king.id})
    shade.target = king.target


# ---------------------------------------------------------------------------- knockdowns
def _on_down(world: World, char: Character) -> None:
    """A knockdown inside fails the expedition: the body (and its loot bag) goes back to the
    gate, where the character wakes."""
    area = world.area_of(char)
    if area.kind not in INSIDE:
        return
    bag = area.loot.pop((char.x, char.y), None)
    end_expedition(world, char, alive=False)
    pos = _to_surface(world, char)
    if bag is not None:
        world.drop_loot(world.areas[SURFACE], pos, bag.items, owner=bag.owner)
    _state(world)["recover_at"][char.id] = pos


def _recover_spot(world: World, char: Character) -> tuple[Pos, str] | None:
    info = world.areas[SURFACE].info.get("dungeons")
    if info is None or info["recover_at"].pop(char.id, None) is None:
        return None
    if char.area == SURFACE:
        return (char.x, char.y), "gate"
    return world.free_tile_near(SURFACE, char.surface_pos), "gate"


# ---------------------------------------------------------------------------- sweeping
def _sweep(world: World) -> None:
    """Instances nobody is in any more are removed with their creatures, bags and memories."""
    info = world.areas[SURFACE].info.get("dungeons")
    if not info or not info["sweep"]:
        return
    pending, info["sweep"] = info["sweep"], []
    for area_id in sorted(set(pending)):
        if area_id not in world.areas or _characters_in(world, area_id):
            continue
        for ent in [e for e in world.entities.values() if e.area == area_id]:
            world.remove_entity(ent)
        if world.areas[area_id].loot:
            world.loot_changed = True
        del world.areas[area_id]
        for mem in world.memory.values():
            mem.areas.pop(area_id, None)
            for eid in [k for k, e in mem.entities.items() if e["area"] == area_id]:
                del mem.entities[eid]


def _hook(world: World, name: str, fn: Any) -> None:
    hooks = world.extensions.setdefault(name, [])
    if fn not in hooks:
        hooks.append(fn)


def install(world: World) -> None:
    """Called by World.create and World.restore: the hooks this module needs."""
    validate(world.content)
    _hook(world, "tick_hooks", _sweep)
    _hook(world, "defeat_hooks", _on_defeat)
    _hook(world, "down_hooks", _on_down)
    _hook(world, "recover_hooks", _recover_spot)
    _hook(world, "creature_hooks", _creature_turn)


def _register_installer() -> None:
    from .. import world as world_module

    if install not in world_module._RESTORE_HOOKS:
        world_module._RESTORE_HOOKS.append(install)


_register_installer()
