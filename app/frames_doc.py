"""The tables of docs/frames.md, written from the frame schema (app/frames_schema.json), so the
page says what the builder is held to and cannot drift from it.

The page holds prose and one block between `<!-- frames:tables -->` and `<!-- /frames:tables -->`;
`python -m asiworld.frames_doc docs/frames.md` rewrites the block, and a test checks the page
equals its rewrite.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from asiworld.frames_schema import schema

BLOCK = re.compile(r"(<!-- frames:tables -->\n)(?P<body>.*?)(<!-- /frames:tables -->)", re.S)
REF = "#/$defs/"
# An id as an object key: shown as `id` in a map's type, no table of its own
KEY = "id_key"


def _anchor(title: str) -> str:
    """The anchor a Markdown renderer gives a `###` heading (GitHub's rule)."""
    return re.sub(r"[^a-z0-9 _-]", "", title.lower()).replace(" ", "-")


def _link(defs: dict[str, Any], ref: str) -> str:
    title = defs[ref.removeprefix(REF)]["title"]
    return f"[{title}](#{_anchor(title)})"


def type_of(node: dict[str, Any], defs: dict[str, Any]) -> str:
    """A field's type in words: `integer`, `string or null`, `array of [Area](#area)`,
    `{id: [Entity](#entity)}`, `one of "day", "night"`."""
    if "$ref" in node:
        return _link(defs, node["$ref"])
    if "oneOf" in node:
        return " or ".join(type_of(n, defs) for n in node["oneOf"])
    if "enum" in node:
        return "one of " + ", ".join(f'"{v}"' for v in node["enum"])
    kind = node.get("type")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array":
        if "prefixItems" in node:
            return "[" + ", ".join(type_of(n, defs) for n in node["prefixItems"]) + "]"
        return "array of " + type_of(node["items"], defs)
    if kind == "object" and isinstance(node.get("additionalProperties"), dict):
        names = node.get("propertyNames", {}).get("$ref", "").removeprefix(REF)
        key = "id" if names == KEY else "name"
        return "{" + key + ": " + type_of(node["additionalProperties"], defs) + "}"
    if kind is None:
        raise ValueError(f"no type to show for {node}")
    if "contentEncoding" in node:
        return f"{kind} ({node['contentEncoding']})"
    return kind


def _required(node: dict[str, Any]) -> dict[str, str]:
    """Each field's required cell: `yes`, or the condition of an if/then/else that asks for it."""
    out = {field: "yes" for field in node.get("required", ())}
    test = node.get("if", {}).get("properties", {})
    if len(test) == 1:
        [(field, const)] = [(f, t["const"]) for f, t in test.items()]
        for branch, says in (("then", "is"), ("else", "is not")):
            for name in node.get(branch, {}).get("required", ()):
                out.setdefault(name, f"when `{field}` {says} {json.dumps(const)}")
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def table(name: str, defs: dict[str, Any]) -> str:
    """One definition: its heading, what it is, and a field, type, required, meaning table."""
    node = defs[name]
    lines = [f"### {node['title']}", ""]
    if "description" in node:
        lines += [node["description"], ""]
    rows = []
    required = _required(node)
    for field, prop in node.get("properties", {}).items():
        if set(prop) == {"not"}:
            continue  # a constraint on a field described elsewhere (a creature's kind)
        if "description" not in prop:
            raise ValueError(f"{name}.{field} says nothing about what it means")
        rows.append([f"`{field}`", type_of(prop, defs), required.get(field, "no"),
                     prop["description"]])
    for i, item in enumerate(node.get("prefixItems", ())):
        rows.append([f"`[{i}]`", type_of(item, defs), "yes", item["description"]])
    if rows:
        lines += ["| field | type | required | meaning |", "|---|---|---|---|"]
        lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
        lines.append("")
    return "\n".join(lines)


def tables() -> str:
    """Every definition of the schema, in the schema's order."""
    defs = schema()["$defs"]
    return "\n".join(table(name, defs) for name in defs)


def render(page: str) -> str:
    """The page with its block rewritten from the schema."""
    return BLOCK.sub(lambda m: m.group(1) + "\n" + tables() + m.group(3), page)


def main(argv: list[str]) -> int:
    path = Path(argv[0] if argv else "docs/frames.md")
    path.write_text(render(path.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
