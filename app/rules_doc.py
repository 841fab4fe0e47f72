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


SECTION = re.compile(r"^\[(?P<name>[A-Za-z0-9_.]+)\]\s*(#.*)?$")
SETTING = re.compile(r"^(?P<key>[A-Za-z0-9_]+)\s*=\s*[^#]*?(#\s*(?P<says>.*))?$")


def meanings(stem: str) -> dict[str, str]:
    """What each setting of one content file means, from its own comment: `section.key` ->
    the text after `#` on the setting's line (a file's comments are where its numbers are
    explained, so the page reads them rather than keeping a second copy)."""
    text = (resources.files("asiworld.engine") / "content" / f"{stem}.toml").read_text("utf-8")
    said: dict[str, str] = {}
    section = ""
    for line in text.splitlines():
        line = line.strip()
        header = SECTION.match(line)
        if header:
            section = header["name"]
            continue
        setting = SETTING.match(line)
        if setting and setting["says"]:
            said[f"{section}.{setting['key']}" if section else setting["key"]] = setting["says"]
    return said


def _table(head: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _things(mapping: dict[str, int]) -> str:
    return ", ".join(f"{n} {name}" for name, n in mapping.items()) or "-"


def _settings(stem: str, sections: dict[str, dict[str, Any]]) -> str:
    """A setting, value and meaning table of `stem`.toml's sections {dotted name: values}."""
    said = meanings(stem)
    rows = [[f"`{name}.{key}`", value, said.get(f"{name}.{key}", "")]
            for name, values in sections.items() for key, value in values.items()]
    return _table([f"setting ({stem}.toml)", "value", "what it means"], rows)


def world_numbers(c: dict) -> str:
    sections = ("time", "character", "knockdown", "vision", "creatures", "place", "map")
    return _settings("world", {name: c["world"][name] for name in sections})


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
    return _settings("dungeons", {"rules": c["dungeons"]["rules"],
                                  "sanctum.pattern": c["dungeons"]["sanctum"]["pattern"]})


def merchant(c: dict) -> str:
    rows = [[item, price] for item, price in c["merchant"]["sells"].items()]
    return _table(["item", "T-coins"], rows) + (
        f"\nOne `buy` takes at most {c['merchant']['max_count']} items.\n")


def achievements(c: dict) -> str:
    return _settings("achievements", {"thresholds": c["achievements"]["thresholds"]})


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
