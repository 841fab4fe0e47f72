"""The tables of docs/rules.md, written from the content files (app/engine/content/*.toml), so
the rules page cannot drift from the numbers the engine runs on.

docs/rules.md holds prose without numbers and blocks between `<!-- rules:NAME -->` and
`<!-- /rules:NAME -->`; `python -m asiworld.rules_doc docs/rules.md` rewrites the blocks, and a
test checks the page equals its rewrite.
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

BLOCK = re.compile(r"(<!-- rules:(?P<name>[a-z_]+) -->\n)(?P<body>.*?)(<!-- /rules:(?P=name) -->)", re.S)


def content() -> dict[str, dict[str, Any]]:
    """Every content file, parsed: {"world": {...}, "recipes": {...}, ...}."""
    folder = resources.files("asiworld.engine") / "content"
    return {
        Path(f.name).stem: tomllib.loads(f.read_text(encoding="utf-8"))
        for f in folder.iterdir()
        if f.name.endswith(".toml")
    }


def _table(head: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _things(mapping: dict[str, int]) -> str:
    return ", ".join(f"{n} {name}" for name, n in mapping.items()) or "-"


def _numbers(section: dict[str, Any]) -> str:
    return _table(["setting", "value"], [[f"`{k}`", v] for k, v in section.items()])


def world_numbers(c: dict) -> str:
    rows = []
    for section in ("time", "character", "knockdown", "vision", "creatures", "place", "map"):
        for key, value in c["world"][section].items():
            rows.append([f"`{section}.{key}`", value])
    return _table(["setting (world.toml)", "value"], rows)


def gathering(c: dict) -> str:
    rows = []
    for tile, s in c["resources"]["sources"].items():
        tools = ", ".join(s.get("tools", [])) or "-"
        rows.append([
            tile, f"{s.get('count', 1)} {s['item']}", s["ticks"],
            f"{tools} ({s['tool_ticks']})" if s.get("tools") else "-",
            " or ".join(s.get("needs", [])) or "-",
            s.get("amount", "regrows"), s.get("regrow", "-"),
        ])
    for name, creature in c["creatures"]["creatures"].items():
        shear = creature.get("shear")
        if shear:
            rows.append([f"{name} (shear)", f"{shear['count']} {shear['item']}", shear["ticks"],
                         "-", shear["tool"], "regrows", shear["regrow"]])
    return _table(["source", "gives", "ticks", "faster with (ticks)", "needs", "holds",
                   "regrows after (ticks)"], rows)


def recipes(c: dict) -> str:
    rows = [[r["id"], r["station"], _things(r["inputs"]), r.get("count", 1), r["ticks"],
             r.get("requires", "") or "-"] for r in c["recipes"]["recipes"]]
    return _table(["recipe", "station", "inputs", "makes", "ticks", "needs in inventory"], rows)


def stations(c: dict) -> str:
    rows = [[name, _things(s["cost"]), "yes" if s.get("solid") else "no"]
            for name, s in c["structures"]["structures"].items() if s.get("station")]
    return _table(["station", "placed from", "solid"], rows)


def food(c: dict) -> str:
    rows = [[name, item.get("hunger", 0), item.get("health", 0)]
            for name, item in c["items"]["items"].items()
            if item["category"] in ("food", "potion")]
    return _table(["item", "hunger", "health"], rows)


def gear(c: dict) -> str:
    rows = []
    for name, item in c["items"]["items"].items():
        if item["category"] == "weapon":
            rows.append([name, "weapon", f"{item['damage']} damage"])
        elif item["category"] == "armor":
            rows.append([name, "armor", f"{item['reduction']:.0%} less damage taken"])
    fist = c["world"]["character"]["fist_damage"]
    rows.append(["(no weapon)", "weapon", f"{fist} damage"])
    return _table(["item", "slot", "effect"], rows)


def creatures(c: dict) -> str:
    rows = [[name, k["health"], k["damage"], k.get("attack_cooldown", "-"), k["move_every"],
             k["sight"], "boss" if k.get("boss") else "hostile" if k.get("hostile")
             else "fights back" if k.get("defends") else "peaceful", _things(k.get("drops", {}))]
            for name, k in c["creatures"]["creatures"].items()]
    return _table(["creature", "health", "damage", "ticks between strikes", "ticks per step",
                   "sight", "kind", "drops"], rows)


def dungeons(c: dict) -> str:
    rows = []
    for number, t in c["dungeons"]["tiers"].items():
        rows.append([number, t["name"], t["requires"] or "-", f"{t['width']} x {t['height']}",
                     t["rooms"], f"{t['enemies']} {t['enemy']}", t["boss"], t["sigil"],
                     f"{t['coins'][0]}-{t['coins'][1]}", t["chests"],
                     f"yes (sight {t['dark_radius']})" if t.get("dark") else "no"])
    s = c["dungeons"]["sanctum"]
    rows.append([s["tier"], s["name"], " + ".join(s["offering"]) + " offered",
                 f"{s['width']} x {s['height']}", 1, "-", s["boss"], "-", "-", "-",
                 "yes" if s.get("dark") else "no"])
    return _table(["tier", "name", "needs", "size", "rooms", "enemies", "boss", "boss drops",
                   "T-coins", "chests", "dark"], rows)


def dungeon_rules(c: dict) -> str:
    rows = [[f"`rules.{k}`", v] for k, v in c["dungeons"]["rules"].items()]
    rows += [[f"`sanctum.pattern.{k}`", v] for k, v in c["dungeons"]["sanctum"]["pattern"].items()]
    return _table(["setting (dungeons.toml)", "value"], rows)


def merchant(c: dict) -> str:
    rows = [[item, price] for item, price in c["merchant"]["sells"].items()]
    return _table(["item", "T-coins"], rows) + (
        f"\nOne `buy` takes at most {c['merchant']['max_count']} items.\n")


def achievements(c: dict) -> str:
    return _numbers(c["achievements"]["thresholds"])


TABLES: dict[str, Callable[[dict], str]] = {
    "world": world_numbers, "gathering": gathering, "stations": stations, "recipes": recipes,
    "food": food, "gear": gear, "creatures": creatures, "dungeons": dungeons,
    "dungeon_rules": dungeon_rules, "merchant": merchant, "achievements": achievements,
}


def render(page: str) -> str:
    """The page with every block rewritten from content; an unknown block name is a KeyError."""
    c = content()
    return BLOCK.sub(lambda m: m.group(1) + TABLES[m["name"]](c) + m.group(4), page)


def prose(page: str) -> str:
    """The page without its generated blocks (what people wrote)."""
    return BLOCK.sub("", page)


def main(argv: list[str]) -> int:
    path = Path(argv[0] if argv else "docs/rules.md")
    path.write_text(render(path.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
