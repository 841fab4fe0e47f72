"""A character's observation: only what its field of view shows now, its own body and pack,
its ongoing action, the events that concern it, and its memory. JSON-ready, plus a compact
text form for language models."""

from __future__ import annotations

from operator import itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from . import clock, inventory, vision
from .model import Character, Creature, Entity

if TYPE_CHECKING:
    from .world import World


_ID, _TICK = itemgetter("id"), itemgetter("tick")


_CHARS: dict[str, np.ndarray] = {}  # tile code -> its character's byte, per content's tile_chars


def _tile_chars(tile_chars: str) -> np.ndarray:
    chars = _CHARS.get(tile_chars)
    if chars is None:
        chars = _CHARS[tile_chars] = np.frombuffer(tile_chars.encode("latin-1"), dtype=np.uint8)
    return chars


def self_dict(world: World, char: Character) -> dict[str, Any]:
    op = char.op.to_dict() if char.op else None
    return {
        "id": char.id, "name": char.name, "label": char.label, "x": char.x, "y": char.y,
        "area": char.area, "area_kind": world.areas[char.area].kind,
        "health": char.health, "max_health": char.max_health, "hunger": char.hunger,
        "energy": char.energy, "coins": char.coins, "asleep": char.asleep, "down": char.down,
        "inventory": inventory.as_list(char), "equipment": dict(char.equipment),
        "light_ticks": char.light_ticks, "action": op, "home_area": char.home_area,
        "home_locked": char.home_locked, "usable_bed": char.usable_bed,
        "tasks": dict(char.tasks), "sanctum_open": char.sanctum_open,
        "sigils": [i for i, _ in char.inventory if world.content.items[i]["category"] == "sigil"],
        # only while knocked down: the tick it wakes (a page reloaded meanwhile counts down)
        **({"down_until": char.down_until} if char.down else {}),
        # only in a world that gives grace nights (serve --grace-nights): tonight's included
        **({"grace_nights_left": clock.grace_nights_left(char.joined, char.grace_nights,
                                                          world.tick, world.content)}
           if char.grace_nights else {}),
    }


def entity_dict(ent: Entity) -> dict[str, Any]:
    out = {"id": ent.id, "kind": ent.kind, "x": ent.x, "y": ent.y, "health": ent.health,
           "max_health": ent.max_health}
    if isinstance(ent, Character):
        out.update(name=ent.name, label=ent.label, down=ent.down, asleep=ent.asleep,
                   weapon=ent.equipment.get("weapon"), armor=ent.equipment.get("armor"))
    elif isinstance(ent, Creature):
        out.update(hostile=ent.hostile, boss=ent.boss)
    return out


def observe(world: World, char: Character, *, full_memory: bool = False,
            consume: bool = True) -> dict[str, Any]:
    # a no-op unless something moved since the tick's own update
    vision.update(world, char, world.body_index(char.area))
    mem = world.memory[char.id]
    # (not settled: only the entries of the bodies out of view are shown, and an update
    # writes those; the entries of the bodies in view wait for the view, Memory.settle)
    area = world.areas[char.area]
    vis = mem.visible
    h, w = vis.shape
    x0, y0 = mem.x0, mem.y0
    x1, y1 = x0 + w, y0 + h
    chars = _tile_chars(world.content.tile_chars)
    shown = mem.shown
    if shown is None or shown[0] != mem.key:
        window = np.where(vis, chars[area.terrain[y0:y1, x0:x1]], ord(" ")).astype(np.uint8)
        text = window.tobytes().decode("latin-1")
        shown = mem.shown = (mem.key, tuple(text[i * w:(i + 1) * w] for i in range(h)), None)
    rows = list(shown[1])

    entities = []
    bodies = world.body_index(char.area)  # a crowd: only the cells round the view
    # What stands in view, in the area's dicts' own order (so the lists come out as before):
    # few things are tested against the view's rows as lists; many (a built-up plaza has
    # hundreds of structures) against the visible cells as a set of the dicts' (x, y) keys.
    many = len(area.structures) + len(area.floor) + len(area.loot)
    if 2 * many > h * w:
        ys, xs = np.nonzero(vis)
        cells = set(zip((xs + x0).tolist(), (ys + y0).tolist(), strict=True))
        structures = [s.to_dict(*xy) for xy, s in area.structures.items() if xy in cells]
        floors = [{"x": xy[0], "y": xy[1], "owner": o} for xy, o in area.floor.items()
                  if xy in cells]
        loot = [{"x": xy[0], "y": xy[1], "items": dict(bag.items), "expires": bag.expires}
                for xy, bag in area.loot.items() if xy in cells]
    else:
        # the visible cells as bytes, row after row: no list per row for the garbage
        # collector to walk (a crowd keeps a view per character)
        seen = shown[2]
        if seen is None:
            seen = vis.tobytes()
            mem.shown = (shown[0], shown[1], seen)
        structures = [s.to_dict(x, y) for (x, y), s in area.structures.items()
                      if x0 <= x < x1 and y0 <= y < y1 and seen[(y - y0) * w + x - x0]]
        floors = [{"x": x, "y": y, "owner": o} for (x, y), o in area.floor.items()
                  if x0 <= x < x1 and y0 <= y < y1 and seen[(y - y0) * w + x - x0]]
        loot = [{"x": x, "y": y, "items": dict(bag.items), "expires": bag.expires}
                for (x, y), bag in area.loot.items()
                if x0 <= x < x1 and y0 <= y < y1 and seen[(y - y0) * w + x - x0]]
    # The bodies in view: from the crowd's index, or those the update above walked by
    near = (bodies.seen(x0, y0, vis) >> vision.KEY_ID).tolist() if bodies is not None \
        else mem.walked[3]
    for eid in near:  # in any order: they are sorted by id below
        if eid != char.id:
            entities.append(entity_dict(world.entities[eid]))

    in_view = {e["id"] for e in entities}
    events = list(world.char_events[char.id])
    if consume:
        world.char_events[char.id].clear()
    am = mem.areas.get(char.area)
    # The remembered entities out of view: a copy of the dict less the few in view, by key
    # (each entry's id), with no Python test per entry. Newest first, then by id: two stable
    # sorts with C keys (a Python key per remembered entity was a quarter of an observation).
    kept = dict(mem.entities)
    for eid in in_view:
        kept.pop(eid, None)
    remembered = list(kept.values())
    remembered.sort(key=_ID)
    remembered.sort(key=_TICK, reverse=True)
    memory: dict[str, Any] = {
        "seen_tiles": vision.seen_tiles(mem, char.area),
        "entities": remembered[:32],
    }
    if full_memory and am is not None:
        memory["tiles"] = [bytes(r).decode("latin-1") for r in
                           np.where(am.tiles == vision.UNSEEN, ord(" "),
                                    chars[np.minimum(am.tiles, len(chars) - 1)]).astype(np.uint8)]
        memory["ticks"] = am.ticks.tolist()
    return {
        "tick": world.tick,
        "time": clock.time_of(world.tick, world.content),
        "self": self_dict(world, char),
        "view": {"radius": vision.radius(world, char), "x0": x0, "y0": y0, "w": w, "h": h,
                 "area": char.area, "tiles": rows, "legend": world.content.legend()},
        "entities": sorted(entities, key=lambda e: e["id"]),
        "structures": structures,
        "floors": floors,
        "loot": loot,
        "landmarks": _landmarks(world, char),
        "events": events,
        "memory": memory,
    }


def _landmarks(world: World, char: Character) -> dict[str, Any]:
    """The plaza's sign board names the plaza, the merchant and the three gates; the altar is
    known only once the character has seen it."""
    m = world.landmarks
    out: dict[str, Any] = {"plaza": list(m.plaza), "merchant": list(m.merchant),
                           "gates": [list(g) for g in m.gates], "altar": None}
    surface = world.memory[char.id].areas.get(0)
    if surface is not None and surface.ticks[m.altar[1], m.altar[0]] >= 0:
        out["altar"] = list(m.altar)
    return out


LEGEND_ORDER = ("@", "character", "sheep", "boar", "shade")


def observe_text(world: World, char: Character, obs: dict[str, Any] | None = None) -> str:
    """A compact rendering for language models: stats, the visible map, what is in view. `obs`:
    the character's observation of this tick when the caller has it (one observation, not two)."""
    if obs is None:
        obs = observe(world, char, consume=False)
    me, view, t = obs["self"], obs["view"], obs["time"]
    grid = [list(row) for row in view["tiles"]]
    marks: dict[str, str] = {}

    def put(x: int, y: int, ch: str, name: str) -> None:
        i, j = y - view["y0"], x - view["x0"]
        if 0 <= i < len(grid) and 0 <= j < len(grid[i]):
            grid[i][j] = ch
            marks[ch] = name

    for s in obs["structures"]:
        put(s["x"], s["y"], s["kind"][0].upper() if s["kind"] != "door" else "+", s["kind"])
    for e in obs["entities"]:
        put(e["x"], e["y"], "&" if e["kind"] == "character" else e["kind"][0].lower(), e["kind"])
    put(me["x"], me["y"], "@", "you")
    legend = {ch: name for ch, name in world.content.legend().items()
              if any(ch in row for row in view["tiles"]) and ch != " "}
    legend.update(marks)
    inv = ", ".join(f"{i['item']} x{i['count']}" for i in me["inventory"]) or "empty"
    eq = ", ".join(f"{k}: {v}" for k, v in me["equipment"].items() if v) or "nothing"
    action = me["action"]
    lines = [
        f"tick {obs['tick']} | day {t['day']} minute {t['minute']} ({t['phase']})",
        f"{me['name']} at ({me['x']}, {me['y']}) area {me['area']} | health {me['health']}"
        f" hunger {me['hunger']} energy {me['energy']} coins {me['coins']}"
        + (" | ASLEEP" if me["asleep"] else "") + (" | DOWN" if me["down"] else ""),
        f"inventory: {inv}",
        f"equipped: {eq}",
        f"doing: {action['type']} {action['args']}" if action else "doing: nothing",
        f"map (top-left is ({view['x0']}, {view['y0']}); ' ' = not visible):",
        *("".join(row) for row in grid),
        "legend: " + ", ".join(f"{k}={v}" for k, v in sorted(legend.items())),
    ]
    if obs["entities"]:
        lines.append("in view: " + "; ".join(_in_view(e) for e in obs["entities"]))
    recent = [e for e in obs["events"] if e["kind"] not in ("action",)][-8:]
    if recent:
        lines.append("recent: " + "; ".join(_event_text(e) for e in recent))
    return "\n".join(lines)


def _in_view(e: dict[str, Any]) -> str:
    """One body in view; a character with its name (a player told who is near can tell a
    rival from a stranger)."""
    text = f"{e['kind']} #{e['id']} at ({e['x']}, {e['y']}) health {e['health']}"
    if e["kind"] == "character" and e.get("name"):
        text += f" ({e['name']}{', down' if e.get('down') else ''})"
    return text


def _event_text(e: dict[str, Any]) -> str:
    fields = ", ".join(f"{k}={v}" for k, v in e.items() if k not in ("tick", "kind", "char"))
    return f"[{e['tick']}] {e['kind']} {fields}"
