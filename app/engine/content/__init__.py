"""Content: every item, recipe, station, creature and number, read from the TOML files beside
this module and validated once at start-up, so a typo is a clear error before the world runs."""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

CONTENT_DIR = Path(__file__).parent
# Files the world never reads (the evaluation's numbers): left out of the content hash, which
# says which world a replay was made with.
NOT_HASHED = frozenset({"achievements", "score", "configurations"})


class ContentError(ValueError):
    """Content files that do not fit together (an unknown item in a recipe, a missing number)."""


class Section:
    """A table of numbers, read as attributes; a missing number is a ContentError, not an
    AttributeError deep inside a tick."""

    def __init__(self, name: str, values: dict[str, Any]):
        self._name = name
        self._values = values
        self.__dict__.update(values)  # plain attributes: read on every tick, so kept fast

    def __getattr__(self, key: str) -> Any:
        # Only reached for a name that is not there.
        if key.startswith("_"):
            raise AttributeError(key)
        raise ContentError(f"content: [{self._name}] has no '{key}'")

    def get(self, key: str, default: Any = None) -> Any:
        return self._values.get(key, default)

    def as_dict(self) -> dict[str, Any]:
        return dict(self._values)


@dataclass(frozen=True)
class Recipe:
    id: str
    station: str
    inputs: dict[str, int]
    output: str
    count: int
    ticks: int
    requires: str | None = None
    cooking: bool = False


@dataclass(frozen=True)
class ScoreComponent:
    key: str
    symbol: str
    meaning: str
    value: str  # how it is normalised: flag, depth, cohort_max, trial
    weight: float


@dataclass(frozen=True)
class ScoreWeights:
    """The composite score's components in the paper's order j, and its two fixed divisors."""

    components: tuple[ScoreComponent, ...]
    max_depth: int
    max_trial: int

    def weights(self) -> dict[str, float]:
        return {c.key: c.weight for c in self.components}


@dataclass
class Content:
    raw: dict[str, dict[str, Any]]
    hash: str
    tiles: list[dict[str, Any]] = field(default_factory=list)
    tile_code: dict[str, int] = field(default_factory=dict)
    tile_chars: str = ""
    walk_lut: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    see_lut: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    build_lut: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    items: dict[str, dict[str, Any]] = field(default_factory=dict)
    recipes: dict[str, Recipe] = field(default_factory=dict)
    recipes_by_output: dict[str, list[Recipe]] = field(default_factory=dict)
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)
    regrow_of: dict[str, str] = field(default_factory=dict)  # picked tile -> source tile
    structures: dict[str, dict[str, Any]] = field(default_factory=dict)
    creatures: dict[str, dict[str, Any]] = field(default_factory=dict)
    achievements: Section | None = None  # the curriculum's thresholds (achievements.toml)
    score: ScoreWeights | None = None  # the composite score's components (score.toml)

    def section(self, name: str) -> Section:
        try:
            return Section(name, self.raw["world"][name])
        except KeyError:
            raise ContentError(f"content: world.toml has no [{name}] table") from None

    # The sections the engine reads on hot paths, bound once.
    def __post_init__(self) -> None:
        self.map = self.section("map")
        self.time = self.section("time")
        self.character = self.section("character")
        self.knockdown = self.section("knockdown")
        self.vision = self.section("vision")
        self.creature_rules = self.section("creatures")
        self.place = self.section("place")

    def stack_limit(self, item: str) -> int:
        return int(self.items[item].get("stack", self.character.stack_size))

    def legend(self) -> dict[str, str]:
        """Tile character -> tile name (a fresh dict, safe to hand out)."""
        return dict(self._legend)  # every observation carries one: a copy, not a new one

    @cached_property
    def _legend(self) -> dict[str, str]:
        return {t["char"]: t["name"] for t in self.tiles}


def _require(cond: bool, message: str) -> None:
    if not cond:
        raise ContentError(message)


def load_content(directory: Path | str | None = None) -> Content:
    """Read and validate every `*.toml` in the content folder."""
    folder = Path(directory) if directory else CONTENT_DIR
    raw: dict[str, dict[str, Any]] = {}
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.toml")):
        try:
            raw[path.stem] = tomllib.loads(path.read_bytes().decode("utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ContentError(f"content: {path.name}: {exc}") from None
        if path.stem not in NOT_HASHED:
            # The parsed values, not the file's bytes: a comment or the layout is not content
            # (the rules page reads its explanations from the comments).
            values = json.dumps(raw[path.stem], sort_keys=True, separators=(",", ":"))
            digest.update(path.name.encode() + b"\0" + values.encode())
    for needed in ("world", "terrain", "items", "recipes", "resources", "structures", "creatures",
                   "dungeons", "achievements", "score"):
        _require(needed in raw, f"content: {needed}.toml is missing")
    content = Content(raw=raw, hash=digest.hexdigest()[:16])
    _build_tiles(content)
    _build_items(content)
    _build_structures(content)
    _build_sources(content)
    _build_recipes(content)
    _build_creatures(content)
    _check_dungeons(content)
    _build_achievements(content)
    _build_score(content)
    return content


def _build_tiles(c: Content) -> None:
    c.tiles = list(c.raw["terrain"]["tiles"])
    _require(len(c.tiles) < 255, "content: at most 254 tile kinds")
    for code, tile in enumerate(c.tiles):
        for key in ("name", "char", "walk", "see", "build"):
            _require(key in tile, f"content: tile #{code} has no '{key}'")
        _require(tile["name"] not in c.tile_code, f"content: tile '{tile['name']}' twice")
        _require(len(tile["char"]) == 1, f"content: tile '{tile['name']}' char must be 1 long")
        c.tile_code[tile["name"]] = code
    c.tile_chars = "".join(t["char"] for t in c.tiles)
    c.walk_lut = np.array([t["walk"] for t in c.tiles], dtype=bool)
    c.see_lut = np.array([t["see"] for t in c.tiles], dtype=bool)
    c.build_lut = np.array([t["build"] for t in c.tiles], dtype=bool)


def _build_items(c: Content) -> None:
    c.items = dict(c.raw["items"]["items"])
    slots = {"weapon", "armor", "outfit", "light"}
    for name, item in c.items.items():
        _require("category" in item, f"content: item '{name}' has no category")
        if "slot" in item:
            _require(item["slot"] in slots, f"content: item '{name}' slot '{item['slot']}'")


def _known_item(c: Content, name: str, where: str) -> None:
    _require(name in c.items, f"content: {where} names unknown item '{name}'")


def _build_structures(c: Content) -> None:
    c.structures = dict(c.raw["structures"]["structures"])
    for name, s in c.structures.items():
        for item in s.get("cost", {}):
            _known_item(c, item, f"structure '{name}' cost")
        if "cost" not in s:
            _known_item(c, name, f"structure '{name}' (placed from the item)")


def _build_sources(c: Content) -> None:
    c.sources = dict(c.raw["resources"]["sources"])
    for tile, src in c.sources.items():
        _require(tile in c.tile_code, f"content: resource names unknown tile '{tile}'")
        _known_item(c, src["item"], f"resource '{tile}'")
        for tool in src.get("needs", []) + src.get("tools", []):
            _known_item(c, tool, f"resource '{tile}' tool")
        for key in ("spent", "picked"):
            if key in src:
                _require(src[key] in c.tile_code, f"content: resource '{tile}' {key} tile")
        if "picked" in src:
            c.regrow_of[src["picked"]] = tile


def _build_recipes(c: Content) -> None:
    for r in c.raw["recipes"]["recipes"]:
        rid = r.get("id", "?")
        _require(rid not in c.recipes, f"content: recipe '{rid}' twice")
        _require(r.get("station") in c.structures, f"content: recipe '{rid}' unknown station")
        _require(c.structures[r["station"]].get("station", False),
                 f"content: recipe '{rid}' station '{r['station']}' is not a station")
        for item in r.get("inputs", {}):
            _known_item(c, item, f"recipe '{rid}' input")
        _known_item(c, r.get("output", ""), f"recipe '{rid}' output")
        if "requires" in r:
            _known_item(c, r["requires"], f"recipe '{rid}' requires")
        _require(int(r.get("ticks", 0)) > 0, f"content: recipe '{rid}' needs ticks > 0")
        recipe = Recipe(
            id=rid, station=r["station"], inputs=dict(r["inputs"]), output=r["output"],
            count=int(r.get("count", 1)), ticks=int(r["ticks"]), requires=r.get("requires"),
            cooking=bool(r.get("cooking", False)),
        )
        c.recipes[rid] = recipe
        c.recipes_by_output.setdefault(recipe.output, []).append(recipe)


def _build_creatures(c: Content) -> None:
    c.creatures = dict(c.raw["creatures"]["creatures"])
    for name, cr in c.creatures.items():
        for key in ("health", "damage", "move_every"):
            _require(key in cr, f"content: creature '{name}' has no '{key}'")
        for item in cr.get("drops", {}):
            _known_item(c, item, f"creature '{name}' drops")
        if "shear" in cr:
            _known_item(c, cr["shear"]["item"], f"creature '{name}' shear")


def _check_dungeons(c: Content) -> None:
    """Fail at start-up, not mid-expedition, when dungeons.toml names unknown things."""
    d = c.raw["dungeons"]
    for tier, spec in d["tiers"].items():
        for key in ("enemy", "boss"):
            _require(spec[key] in c.creatures,
                     f"content: tier {tier} names unknown creature '{spec[key]}'")
        for key in ("sigil", "requires"):
            _require(not spec[key] or spec[key] in c.items,
                     f"content: tier {tier} names unknown item '{spec[key]}'")
        _require(spec["gate"] in c.tile_code, f"content: tier {tier} gate tile '{spec['gate']}' is unknown")
        for item, _ in spec["chest_loot"]:
            _require(item in c.items, f"content: tier {tier} chest loot '{item}' is unknown")
    sanctum = d["sanctum"]
    for item in sanctum["offering"]:
        _require(item in c.items, f"content: the altar's offering names unknown item '{item}'")
    for kind in (sanctum["boss"], sanctum["pattern"]["summon"]):
        _require(kind in c.creatures, f"content: the Sanctum names unknown creature '{kind}'")


ACHIEVEMENT_NUMBERS = ("home_area", "steady_damage", "steady_supplies", "streak_days", "tomb_tier",
                       "sanctum_tier")


def _build_achievements(c: Content) -> None:
    """The development achievements' thresholds, checked against the dungeons they name."""
    table = c.raw["achievements"].get("thresholds")
    _require(isinstance(table, dict), "content: achievements.toml has no [thresholds] table")
    tiers = {int(t) for t in c.raw["dungeons"]["tiers"]}
    sanctum = int(c.raw["dungeons"]["sanctum"]["tier"])
    for key in ACHIEVEMENT_NUMBERS:
        value = table.get(key)
        _require(type(value) is int and value >= 0,
                 f"content: achievements.toml [thresholds] {key} must be a whole number >= 0, "
                 f"not {value!r}")
    for key in ("home_area", "streak_days"):
        _require(table[key] >= 1, f"content: achievements.toml [thresholds] {key} must be >= 1")
    steady = table.get("steady_tiers")
    _require(isinstance(steady, list) and steady and all(t in tiers for t in steady),
             f"content: achievements.toml [thresholds] steady_tiers must list dungeon tiers "
             f"of dungeons.toml ({sorted(tiers)}), not {steady!r}")
    _require(table["tomb_tier"] in tiers,
             f"content: achievements.toml [thresholds] tomb_tier {table['tomb_tier']} is no "
             f"dungeon tier of dungeons.toml ({sorted(tiers)})")
    _require(table["sanctum_tier"] == sanctum,
             f"content: achievements.toml [thresholds] sanctum_tier {table['sanctum_tier']} is "
             f"not the Sanctum's tier in dungeons.toml ({sanctum})")
    unknown = set(table) - set(ACHIEVEMENT_NUMBERS) - {"steady_tiers"}
    _require(not unknown, f"content: achievements.toml [thresholds] has unknown {sorted(unknown)}")
    c.achievements = Section("thresholds", table)


SCORE_VALUES = {"hero": "flag", "outfit": "flag", "depth": "depth", "bosses": "cohort_max",
                "crafts": "cohort_max", "trial": "trial"}


def _build_score(c: Content) -> None:
    """The composite's components: each measure once, normalised the way it can be, and a
    weight that is a number >= 0 (a typo fails here, not as a wrong score)."""
    raw = c.raw["score"]
    listed = raw.get("components")
    _require(isinstance(listed, list) and listed,
             "content: score.toml has no [[components]] list")
    components = []
    for j, comp in enumerate(listed, start=1):
        key = comp.get("key")
        _require(key in SCORE_VALUES,
                 f"content: score.toml component {j} key {key!r} is not one of "
                 f"{', '.join(SCORE_VALUES)}")
        _require(comp.get("value") == SCORE_VALUES[key],
                 f"content: score.toml component {key!r} value must be "
                 f"{SCORE_VALUES[key]!r}, not {comp.get('value')!r}")
        weight = comp.get("weight")
        _require(type(weight) in (int, float) and weight >= 0,
                 f"content: score.toml component {key!r} weight must be a number >= 0, "
                 f"not {weight!r}")
        for field_name in ("symbol", "meaning"):
            _require(isinstance(comp.get(field_name), str) and comp[field_name],
                     f"content: score.toml component {key!r} has no {field_name}")
        components.append(ScoreComponent(key=key, symbol=comp["symbol"], meaning=comp["meaning"],
                                         value=comp["value"], weight=float(weight)))
    keys = [comp.key for comp in components]
    _require(sorted(keys) == sorted(SCORE_VALUES),
             f"content: score.toml must list each of {', '.join(SCORE_VALUES)} once, "
             f"not {', '.join(keys)}")
    for key in ("max_depth", "max_trial"):
        value = raw.get(key)
        _require(type(value) is int and value >= 1,
                 f"content: score.toml {key} must be a whole number >= 1, not {value!r}")
    tiers = {int(t) for t in c.raw["dungeons"]["tiers"]}
    _require(raw["max_depth"] == max(tiers),
             f"content: score.toml max_depth {raw['max_depth']} is not the deepest tier of "
             f"dungeons.toml ({max(tiers)})")
    c.score = ScoreWeights(tuple(components), raw["max_depth"], raw["max_trial"])
