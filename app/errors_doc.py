"""The table of docs/errors.md, written from the table of codes (app/engine/codes.py), so the page
cannot drift from the codes the project raises.

docs/errors.md holds prose and one block between `<!-- errors:table -->` and
`<!-- /errors:table -->`; `python -m asiworld.errors_doc docs/errors.md` rewrites the block, and a
test checks the page equals its rewrite.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from asiworld.engine import codes

BLOCK = re.compile(r"(<!-- errors:table -->\n)(?P<body>.*?)(<!-- /errors:table -->)", re.S)


def table() -> str:
    """One row a code, in alphabetical order: code, HTTP status, meaning, surfaces."""
    lines = ["| code | status | meaning | where |", "|---|---|---|---|"]
    for code in sorted(codes.TABLE):
        entry = codes.TABLE[code]
        meaning = entry.meaning.replace("|", "\\|")
        lines.append(f"| `{code}` | {entry.status or '-'} | {meaning} | {', '.join(entry.where)} |")
    return "\n".join(lines) + "\n"


def render(page: str) -> str:
    """The page with its table rewritten from the codes."""
    return BLOCK.sub(lambda m: m.group(1) + table() + m.group(3), page)


def main(argv: list[str]) -> int:
    path = Path(argv[0] if argv else "docs/errors.md")
    path.write_text(render(path.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
