"""The player's guide: a language-model player's system prompt, written from the content.

Each section is a function named after its placeholder in the prompt template
(`app/agents/clients/prompts/system.md`): `tasks`, `time`, `recipes`, `dungeons`, `tools`, `programs`,
`observation`, and `instructions` (a researcher's own words). Every number a section shows is
read from the content files (`app/engine/content/*.toml`), the action table, the tool table or
the program budget, never typed into its prose, so the prompt cannot drift from the world the
model plays (the way docs/rules.md is written from the same files).

    system_prompt(horizon_minutes=300, clock="lockstep: each model call costs 3 ticks",
                  programs=True)
    render(my_template, horizon_minutes=None, clock="realtime", programs=False,
           where="study.toml")

A template's `{{name}}` is a placeholder; any other braces (JSON examples) are left alone. An
unknown placeholder is refused with its line (`unknown_placeholder`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from asiworld.agents.clients.tools import tool_specs
from asiworld.engine import actions, codes
from asiworld.engine.content import Content, Recipe, ScoreComponent, Section, load_content
from asiworld.engine.errors import CodedError
from asiworld.engine.model import SURFACE
from asiworld.evaluation.achievements import STAGE_NAMES, Thresholds
from asiworld.programs.api import build_api
from asiworld.programs.compiler import MAX_SOURCE_CHARS
from asiworld.programs.limits import DEFAULT_BUDGET

PLACEHOLDERS = ("tasks", "time", "recipes", "dungeons", "tools", "programs", "observation",
                "instructions")
# The tools that exist only when a player may hand the server programs (the harness offers the
# rest either way; harness.PROGRAM_TOOLS names the same three).
PROGRAM_TOOLS = frozenset({"submit_program", "program_status", "cancel_program"})
TEMPLATE = Path(__file__).with_name("prompts") / "system.md"
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


@lru_cache(maxsize=1)
def _content() -> Content:
    """The shipped content, validated as the engine loads it (read once)."""
    return load_content()


# --- small writers ------------------------------------------------------------------------------

def _n(value: float) -> str:
    """A number as a player reads it: 2,000,000; 0.5; 10."""
    return f"{value:,}" if isinstance(value, int) else f"{value:,g}"


def _things(mapping: dict[str, int]) -> str:
    return ", ".join(f"{n} {item}" for item, n in mapping.items())


def _either(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _table(head: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


def _glyph(c: Content, tile: str) -> str:
    return next(t["char"] for t in c.tiles if t["name"] == tile)


def _tiers(c: Content) -> dict[int, dict[str, Any]]:
    return {int(number): tier for number, tier in c.raw["dungeons"]["tiers"].items()}


def _sanctum(c: Content) -> dict[str, Any]:
    return c.raw["dungeons"]["sanctum"]


def _fighter(c: Content, kind: str) -> str:
    """`guard (20/4)`: a creature with its health and damage."""
    k = c.creatures[kind]
    return f"{kind} ({k['health']}/{k['damage']})"


# --- tasks: the two tasks, the score and the curriculum -----------------------------------------

# What each score term counts, in a player's words; weights and divisors come from score.toml.
# A component the content adds without words here is a KeyError (a test renders the prompt).
SCORE_TERMS = {
    "hero": "whether the Shadow King fell",
    "outfit": "whether you crafted the travel outfit",
    "depth": "the deepest tier whose boss you defeated",
    "bosses": "dungeon bosses you defeated, repeats count",
    "crafts": "finished crafts (`count` n is n crafts)",
    "trial": "curriculum stages met in order from the first",
}
BEST = "best"  # a cohort_max term's divisor, as the formula writes it


def _term(comp: ScoreComponent, c: Content) -> str:
    """One term of the formula, `15·Depth/3`, normalised as score.toml's `value` says."""
    assert c.score is not None  # load_content builds it or raises ContentError
    name = comp.key.capitalize()
    divisor = {"flag": "", "depth": f"/{c.score.max_depth}", "cohort_max": f"/{BEST}",
               "trial": f"/{c.score.max_trial}"}[comp.value]
    return f"{_n(comp.weight)}·{name}{divisor}"


def _score(c: Content) -> str:
    assert c.score is not None
    comps = c.score.components
    total = sum(comp.weight for comp in comps)
    formula = " + ".join(_term(comp, c) for comp in comps)
    terms = ". ".join(f"{comp.key.capitalize()}: {SCORE_TERMS[comp.key]}" for comp in comps)
    return (f"**Composite score** (out of {_n(total)}) = {formula}. {terms}. {BEST}: the most any "
            "player in the run has.")


def _stage_rules(c: Content) -> dict[str, str]:
    """What reaches each curriculum stage (docs/evaluation.md), numbers from achievements.toml."""
    th = Thresholds.from_content(c)
    first, second = sorted(_tiers(c))[:2]  # stages 4 and 5: the first two tiers' solo clears
    meals = _either(sorted(th.meal_recipes))
    steady = _either([str(t) for t in th.steady_tiers])
    return {
        "Foothold": f"{th.day_minutes} minutes in a row without a knockdown; a usable bed and a "
                    "self-crafted item equipped, at once",
        "Self-sufficiency": f"a cooked meal ({meals}); a night without damage; a usable bed and "
                            "a self-crafted weapon and armor equipped, at once",
        "Home": f"a locked home of at least {th.home_area} floor tiles",
        "Outer Court": f"a solo Tier {first} clear (its boss defeated, you leave alive)",
        "Inner Temple": f"a solo Tier {second} clear",
        "Steadiness": f"a solo Tier {steady} clear with at most {th.steady_damage} damage taken "
                      f"and {th.steady_supplies} supply eaten, or no damage",
        "Royal Tomb": f"a solo Tier {th.tomb_tier} clear; {th.streak_days} days in a row "
                      "without a knockdown",
        "Hero": f"the Shadow King defeated (tier {th.sanctum_tier})",
    }


def _stages(c: Content) -> str:
    rules = _stage_rules(c)
    rows = [[f"{i} {name}", rules[name]] for i, name in enumerate(STAGE_NAMES, start=1)]
    return ("Curriculum stages (solo: entered without a party; self-crafted: made by you):\n\n"
            + _table(["stage", "met when"], rows))


def tasks() -> str:
    """The two tasks, the composite score and the eight curriculum stages."""
    c = _content()
    outfit = c.recipes["travel_outfit"]
    return "\n\n".join([
        "## Your two tasks and your score",
        f"- **Travel outfit**: craft `{outfit.output}` at a {outfit.station} with "
        f"`{outfit.requires}` in your pack (the merchant sells it; crafting keeps it).\n"
        "- **Shadow King**: clear the three dungeon tiers in order for their sigils, offer "
        "them at the altar, enter the Shadow Sanctum, defeat the Shadow King.",
        _score(c),
        _stages(c),
    ])


# --- time: the clock, the day, survival and knockdowns -----------------------------------------

def _food(c: Content) -> str:
    """`berries +8, raw_meat +10/-5, ...`: hunger, then health when it changes."""
    parts = []
    for name, item in c.items.items():
        if item["category"] in ("food", "potion"):
            health = f"/{item['health']:+d}" if item.get("health") else ""
            parts.append(f"{name} {item.get('hunger', 0):+d}{health}")
    return ", ".join(parts)


def _ranges(ch: Section) -> str:
    """`Health, hunger, energy go up to 100` (each its own maximum when they differ)."""
    tops = [ch.max_health, ch.max_hunger, ch.max_energy]
    if len(set(tops)) == 1:
        return f"Health, hunger, energy go up to {tops[0]}"
    return f"Health goes up to {tops[0]}, hunger to {tops[1]}, energy to {tops[2]}"


def _drop_rule(fraction: float) -> str:
    share = "half" if fraction == 0.5 else f"{fraction:.0%}"
    # The share is rounded down (app/engine/rules/combat.py), so below a whole stack a single
    # item never drops: sigils, tools and the design survive a knockdown, which a player can
    # plan by.
    kept = " (single items stay)" if int(fraction) == 0 else ""
    return f"{share} of every stack{kept}"


def time(horizon_minutes: int | None = None, clock: str = "") -> str:
    """The horizon and the clock, ticks and minutes, day and night, survival and knockdowns."""
    c = _content()
    t, ch, kd, v, cr = c.time, c.character, c.knockdown, c.vision, c.creature_rules
    minutes = t.horizon_minutes if horizon_minutes is None else horizon_minutes
    horizon = (f"- **Horizon**: {_n(minutes)} minutes ({_n(minutes * t.ticks_per_minute)} "
               f"ticks, {_n(minutes / t.day_minutes)} days); the score is read then.")
    if clock:
        horizon += f" **Clock**: {clock}."
    lines = [
        "## Time and survival",
        "",
        horizon,
        f"- A tick is one world second, {t.ticks_per_minute} make a minute. A day is "
        f"{t.day_minutes} minutes: {t.night_starts_minute} of day, then "
        f"{t.day_minutes - t.night_starts_minute} of night.",
        f"- {_ranges(ch)}. Hunger drops a point every {ch.hunger_interval} ticks; once it is "
        f"gone, health drops one every {ch.starving_interval}. Health gains one every "
        f"{ch.regen_interval} ticks while hunger > {ch.regen_min_hunger}, every "
        f"{ch.sleep_regen_interval} as you `sleep` by your bed. Energy drops one every "
        f"{ch.energy_interval} ticks awake, gains one every {ch.sleep_energy_interval} asleep; "
        f"without energy a step takes {ch.exhausted_move_ticks} ticks.",
        f"- `eat` (hunger/health): {_food(c)}.",
        f"- Night: sight {v.day_radius} → {v.night_radius} tiles ({v.torch_radius} with a torch "
        f"equipped; it burns {v.torch_ticks} ticks). Every {cr.shade_spawn_interval} ticks a "
        f"{_fighter(c, 'shade')} comes for each character outside its own home (at most "
        f"{cr.shade_max_near} near); shades fade at dawn. **Home**: floor closed in by your "
        "walls and doors, a door locked (craft a lock, `install_lock`, `lock`).",
        f"- **Knockdown** when health runs out (starving, shades, boars, enemies): "
        f"{_drop_rule(kd.drop_fraction)} drops in a loot bag for {kd.loot_bag_ticks} ticks "
        f"(`pick_up`); {kd.down_ticks} ticks later you wake with {kd.wake_health} health at "
        "your usable bed (one you can reach), else the plaza; from a dungeon, at its gate. "
        "Equipment stays.",
    ]
    if not ch.pvp:
        lines.append("- Characters cannot attack each other.")
    return "\n".join(lines)


# --- recipes: sources, stations and every recipe -----------------------------------------------

def _sources(c: Content) -> list[list[str]]:
    rows = []
    for tile, s in c.sources.items():
        count = s.get("count", 1)
        gives = s["item"] if count == 1 else f"{count} {s['item']}"
        needs = [_either(s["needs"])] if s.get("needs") else []
        if s.get("tools"):
            needs.append(f"faster with {_either(s['tools'])}")
        rows.append([gives, f"{tile} `{_glyph(c, tile)}`", "; ".join(needs) or "-"])
    for kind, k in c.creatures.items():
        shear = k.get("shear")
        if shear:
            rows.append([f"{shear['count']} {shear['item']}", f"shear a {kind} (`gather` target)",
                         shear["tool"]])
        if k.get("drops"):
            rows.append([_things(k["drops"]), f"defeat a {kind}", "-"])
    return rows


def _recipe_line(r: Recipe) -> str:
    """`- stone_wall → wall: 2 stone`."""
    makes = r.id if r.output == r.id else f"{r.id} → {r.output}"
    if r.count != 1:
        makes += f" ×{r.count}"
    kept = f" (+ `{r.requires}`, kept)" if r.requires else ""
    return f"- {makes}: {_things(r.inputs)}{kept}"


def _station_block(c: Content, name: str) -> str:
    """A station, what it is placed from, and one line per recipe it makes."""
    lines = [f"**{name}** ({_things(c.structures[name]['cost'])}):"]
    lines += [_recipe_line(r) for r in c.recipes.values() if r.station == name]
    return "\n".join(lines)


def recipes() -> str:
    """Gathering sources, stations and how each is placed, and one line per recipe."""
    c = _content()
    stations = [name for name, s in c.structures.items() if s.get("station")]
    placed = [name for name, s in c.structures.items() if "cost" not in s]
    return "\n\n".join([
        "## Gathering, stations and recipes",
        f"`gather` a source within {c.place.reach} tile (diagonals count); spent tiles turn to "
        "ground.",
        _table(["gives", "from", "needs"], _sources(c)),
        "A station is placed from the materials beside its name (`place` item=<station> on "
        f"adjacent empty land); a recipe needs it within {c.place.station_reach} tiles. `craft` "
        f"by recipe id or item name. {_either(placed).capitalize()}: craft, then `place`.",
        *(_station_block(c, name) for name in stations),
    ])


# --- dungeons: tiers, sigils, the altar, the Sanctum, gear and the merchant --------------------

def _tier_rows(c: Content) -> list[list[str]]:
    rows = []
    for number, t in _tiers(c).items():
        dark = f" (dark: sight {t['dark_radius']} without a torch)" if t.get("dark") else ""
        rows.append([f"{number} {t['name']}{dark}", f"`{_glyph(c, t['gate'])}`",
                     t["requires"] or "-", f"{t['enemies']} {_fighter(c, t['enemy'])}",
                     _fighter(c, t["boss"]), t["sigil"], f"{t['coins'][0]}-{t['coins'][1]}"])
    s = _sanctum(c)
    rows.append([f"{s['tier']} {s['name']}", f"altar `{_glyph(c, 'altar')}`", "the offering",
                 "-", _fighter(c, s["boss"]), "-", "-"])
    return rows


def _gear(c: Content) -> str:
    weapons = [f"{n} {i['damage']}" for n, i in c.items.items() if i["category"] == "weapon"]
    armor = [f"{n} {i['reduction']:.0%}" for n, i in c.items.items() if i["category"] == "armor"]
    return (f"Damage a strike (one per {c.character.attack_cooldown} ticks): fists "
            f"{c.character.fist_damage}, {', '.join(weapons)}. Armor takes off: "
            f"{', '.join(armor)}.")


def _king(c: Content) -> str:
    p = _sanctum(c)["pattern"]
    return (f"The Shadow King strikes every {p['attack_cooldown']} ticks; below "
            f"{p['phase2_at']:.0%} health every {p['phase2_attack_cooldown']}, and calls a "
            f"{_fighter(c, p['summon'])} every {p['summon_every']} ticks (at most "
            f"{p['summon_max']}).")


def _merchant(c: Content) -> str:
    m = c.raw["merchant"]
    prices = ", ".join(f"{item} {price}" for item, price in m["sells"].items())
    return (f"**Merchant** `{_glyph(c, 'merchant')}` on the plaza: `buy` next to it (at most "
            f"{m['max_count']} a call), in T-coins: {prices}. It buys nothing; T-coins come only "
            "from dungeon chests and enemies.")


def dungeons() -> str:
    """The three tiers, the sigils, the altar and the order of offering, the Shadow King, gear,
    and the merchant."""
    c = _content()
    m, s = c.map, _sanctum(c)
    gates = ", ".join(str(d) for d in m.gate_distances)
    offered = "taken" if s.get("consume_offering") else "kept"
    sigils = " → ".join(t["sigil"] for t in _tiers(c).values())
    return "\n\n".join([
        "## Dungeons, the altar and the merchant",
        f"The plaza (spawn) is the map's centre; gates lie {gates} tiles out, the altar "
        f"{m.altar_distance}, each at the end of a road of ground `{_glyph(c, 'ground')}`. "
        "`enter` off a gate is refused with every gate's position; the altar you must find. "
        "`enter` on a gate: a fresh instance each time (go alone: only solo clears count).",
        _table(["tier", "gate", "carry", "enemies (health/damage)", "boss", "drops", "T-coins"],
               _tier_rows(c)),
        f"- `gather` a chest `{_glyph(c, 'chest')}` for T-coins and supplies; enemies carry "
        "T-coins too. The boss's fall opens the exit portal "
        f"(`{_glyph(c, 'portal_closed')}` → `{_glyph(c, 'portal_open')}`). `leave` on it or on "
        f"the entrance `{_glyph(c, 'entrance')}` (retreat).\n"
        f"- Sigils in order: {sigils} (entering keeps them). Next to the altar `offer` (all "
        f"three {offered}; the {s['name']} stays open for you), then `enter` there.\n"
        f"- {_king(c)}\n"
        f"- {_gear(c)}",
        _merchant(c),
    ])


# --- tools: one line per tool the model is offered ---------------------------------------------

ACTION_PREFIX = re.compile(r"^Action \([a-z_]+\): ")
ASIDE = re.compile(r" \([^()]*\)")


def _tool_call(spec: dict[str, Any]) -> str:
    """`craft(recipe, count=1)`: required arguments bare, optional ones with their default (or
    `?`), a fixed choice as a|b."""
    params = spec["parameters"]
    required = set(params.get("required", []))
    parts = []
    for name, schema in params.get("properties", {}).items():
        if "enum" in schema:
            parts.append(f"{name}:{'|'.join(schema['enum'])}")
        elif "default" in schema:
            parts.append(f"{name}={_shown(schema['default'])}")
        else:
            parts.append(name if name in required else f"{name}?")
    return f"`{spec['name']}({', '.join(parts)})`"


def _shown(value: Any) -> str:
    """A default as a model writes it: `10` for 10.0, JSON for the rest."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _n(value)
    return json.dumps(value)


def _category(spec: dict[str, Any]) -> str:
    """An action tool's category (from its description's prefix); the others are tools."""
    found = ACTION_PREFIX.match(spec["description"])
    if found:
        return found[0][len("Action ("):-len("): ")]
    return "programs" if spec["name"] in PROGRAM_TOOLS else "reading and waiting"


def tools(programs: bool = True) -> str:
    """The tools the model is offered, their arguments, one line per category. What each does
    is in its schema, which every request carries beside the prompt: saying it twice cost a
    small model's context about 700 tokens a call."""
    groups: dict[str, list[str]] = {}
    for spec in tool_specs():
        if spec["name"] in PROGRAM_TOOLS and not programs:
            continue
        groups.setdefault(_category(spec), []).append(_tool_call(spec))
    lines = ["## Your tools", "",
             "Each tool's schema, sent with every request, says what it does. An action takes "
             "ticks; a new one replaces the current one (`say` never does). Targets are `#id`s "
             "from your observation; `x, y` are absolute tiles.", ""]
    lines += [f"- {category}: {', '.join(calls)}" for category, calls in groups.items()]
    return "\n".join(lines)


# --- programs: the program API in a player's terms ---------------------------------------------

# How each reading helper is shown to a player; the names come from the program API itself
# (asiworld.programs.api.build_api), so a helper added there without an entry here fails.
READING = {
    "observe": "`observe()` (a dict: `self`, `view` {`x0`, `y0`, `tiles`}, `entities`, "
               "`structures`, `loot`, `landmarks` {gates, merchant, altar once seen}, `events`)",
    "me": "`me()` (its `self`)",
    "position": "`position()`",
    "inventory": "`inventory()`",
    "count": "`count(item)`",
    "tick": "`tick()`",
    "entities": "`entities(kind=None)`",
    "log": "`log(...)`",
    "print": "`print(...)`",
}

EXAMPLE = '''def main():
    while count("wood") < 10:
        v = observe()["view"]
        trees = [(v["x0"] + c, v["y0"] + r) for r, row in enumerate(v["tiles"])
                 for c, ch in enumerate(row) if ch == "T"]
        try:
            x, y = random.choice(trees) if trees else (position()[0] + 5, position()[1])
            move_to(x, y)  # a solid tile: walks next to it
            gather(x, y)
        except GameError as e:
            log(e.code, e.message)
    return inventory()'''


class _Unbound:
    """A runtime no program runs on: enough for build_api to name its functions."""

    def call(self, action: dict) -> dict:
        raise NotImplementedError

    def latest_observation(self) -> dict:
        return {}

    def log(self, text: str) -> None:
        pass


def _api_calls() -> tuple[list[str], list[str]]:
    """The action calls and the reading helpers a program has, by name, from the program API."""
    table = actions.describe()
    calls = [action["type"] for action in table]
    reading = [name for name in build_api(_Unbound(), table) if name not in calls]
    return calls, reading


def _calls_are_the_tools(calls: list[str]) -> str:
    """How the prompt names the action calls: by the tools when they are the same (the tool
    list shows their arguments), else one by one."""
    tools = [spec["name"] for spec in tool_specs()]
    if all(call in tools for call in calls):
        return "every action tool above is a call with the same arguments"
    return "the calls " + ", ".join(f"`{call}`" for call in calls)


def programs() -> str:
    """What a program is for, what it may call, its limits, and one short example."""
    b = DEFAULT_BUDGET
    calls, reading = _api_calls()
    return "\n\n".join([
        "## Programs",
        "A program is restricted Python the server runs for you on the world clock while you "
        "think: loops that gather, craft, walk or keep a fight's beat without a model call per "
        "step.",
        "- The module body runs, then `main()`; its return value (plain data) is the outcome.\n"
        f"- {_calls_are_the_tools(calls).capitalize()}: it blocks until the operation ends and "
        "returns a dict (`{\"item\": \"wood\", \"count\": 1}`) or raises `GameError` "
        "(`e.code`, `e.message`). An uncaught error fails the program.\n"
        "- Reading costs no time: " + ", ".join(READING[name] for name in reading)
        + ", `random` (seeded: `random()`, `randint`, `choice`, `shuffle`).\n"
        "- Not allowed: `import`, `class`, `with`, `yield`, `global`, names starting with `_`, "
        "`.format` (use f-strings), `x += 1` on a dict item or list slot (write "
        "`d[k] = d[k] + 1`).\n"
        f"- Limits: {_n(b.steps_per_tick)} steps a tick (a loop turn, a call; past it the "
        f"program waits a tick), {_n(b.steps_total)} in all, {_n(b.max_depth)} nested calls, "
        f"{b.max_calls_per_tick} refused calls a tick, {_n(MAX_SOURCE_CHARS)} characters of "
        f"source, the last {b.max_log_lines} log lines kept.",
        "Example:\n\n```python\n" + EXAMPLE + "\n```",
    ])


# --- observation: how to read the text the model gets ------------------------------------------

def _same_glyph(c: Content) -> str:
    """Glyphs that mean two things in the text map. The map marks a creature by its kind's first
    letter in lower case and a structure by its first letter in upper case (a door `+`), over
    the terrain glyphs (asiworld.engine.observation.observe_text)."""
    meaning: dict[str, list[str]] = {}
    for t in c.tiles:
        if t["char"] != " ":
            meaning.setdefault(t["char"], []).append(t["name"])
    for kind in c.creatures:
        meaning.setdefault(kind[0].lower(), []).append(kind)
    for kind in c.structures:
        if kind != "door" and kind != "floor":  # floors are not drawn
            meaning.setdefault(kind[0].upper(), []).append(kind)
    return ", ".join(f"`{g}` {'/'.join(names)}" for g, names in meaning.items() if len(names) > 1)


def observation() -> str:
    """How to read the observation text, and the coordinate convention."""
    c = _content()
    return "\n\n".join([
        "## Reading your observation",
        "`## Clock` says how long until night and the end. Under `## Now`: your position, area "
        f"({SURFACE}: the surface), stats, inventory, equipment, `doing` (your operation). The "
        "map's top-left tile is the `(x0, y0)` above "
        "it: row r, column c (counted from zero) is `(x0 + c, y0 + r)`; **x grows east, y grows "
        "south** (`move` n lowers y). `@` you, `&` a character, lower case a creature's first "
        "letter, upper case a structure's (door `+`), blank out of sight; `legend:` names "
        "them. `in view:` gives each creature and character's `#id`, position, health; "
        "`recent:` your events (`op_done`, `op_failed` with a code...). One glyph, "
        "two meanings (trust `in view:`): "
        f"{_same_glyph(c)}. Memory lists what you saw where and when.",
    ])


def instructions(text: str = "") -> str:
    """A researcher's extra instructions under their own heading; nothing when there are none."""
    text = text.strip()
    return f"## Further instructions\n\n{text}" if text else ""


# --- the template ------------------------------------------------------------------------------

def default_template() -> str:
    """The shipped template (app/agents/clients/prompts/system.md)."""
    return TEMPLATE.read_text(encoding="utf-8")


def _check_placeholders(template_text: str, where: str) -> None:
    for number, line in enumerate(template_text.splitlines(), start=1):
        for match in PLACEHOLDER.finditer(line):
            if match[1] not in PLACEHOLDERS:
                raise CodedError(
                    codes.UNKNOWN_PLACEHOLDER,
                    f"{where} line {number}: unknown placeholder {{{{{match[1]}}}}}; "
                    f"placeholders: {', '.join(PLACEHOLDERS)}",
                )


def _writers(horizon_minutes: int | None, clock: str, programs_on: bool,
             extra: str) -> dict[str, Callable[[], str]]:
    """Each placeholder's section, written only when the template uses it."""
    return {
        "tasks": tasks,
        "time": lambda: time(horizon_minutes, clock),
        "recipes": recipes,
        "dungeons": dungeons,
        "tools": lambda: tools(programs_on),
        "programs": programs if programs_on else lambda: "",
        "observation": observation,
        "instructions": lambda: instructions(extra),
    }


def render(template_text: str, *, horizon_minutes: int | None, clock: str, programs: bool,
           instructions: str = "", where: str = "template") -> str:
    """The template with every `{{name}}` filled; a line holding only a placeholder whose
    section is empty (no programs, no instructions) is left out with the blank line after it,
    so no empty heading or gap is left. Other braces are kept as written."""
    _check_placeholders(template_text, where)
    writers = _writers(horizon_minutes, clock, programs, instructions)
    written: dict[str, str] = {}

    def section(match: re.Match[str]) -> str:
        name = match[1]
        if name not in written:
            written[name] = writers[name]()
        return written[name]

    out: list[str] = []
    skip_blank = False
    for line in template_text.split("\n"):
        if skip_blank and not line.strip():
            skip_blank = False
            continue
        skip_blank = False
        filled = PLACEHOLDER.sub(section, line)
        if not filled.strip() and PLACEHOLDER.fullmatch(line.strip()):
            skip_blank = True
            continue
        out.append(filled)
    return "\n".join(out).rstrip("\n") + "\n"


def system_prompt(*, horizon_minutes: int | None, clock: str, programs: bool,
                  instructions: str = "", where: str = "template") -> str:
    """The default template rendered."""
    return render(default_template(), horizon_minutes=horizon_minutes, clock=clock,
                  programs=programs, instructions=instructions, where=where)


# --- the shipped page --------------------------------------------------------------------------

# The default prompt of a live world (`asiworld agent`, `asiworld mcp`: no study horizon, the
# world never waits), written to docs/player-guide.md so a researcher can read exactly what a
# model is told, and so `asiworld mcp` hands its client these instructions without loading the
# content (numpy) before its first answer. A test checks the page against this function.
LIVE_CLOCK = "realtime: the world keeps running while you think"
PAGE_NAME = "player-guide.md"


def page() -> str:
    return system_prompt(horizon_minutes=None, clock=LIVE_CLOCK, programs=True)


def main(argv: list[str] | None = None) -> int:
    """`python -m asiworld.agents.clients.guide docs/player-guide.md`: write the page."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m asiworld.agents.clients.guide docs/player-guide.md", file=sys.stderr)
        return 2
    Path(args[0]).write_text(page(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
