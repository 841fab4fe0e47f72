"""The ```python blocks of README.md and docs/*.md, found and run as a reader would run them.

A page's blocks run in order in one namespace (a later block may use a name an earlier one made,
as a reader's session would), in a fresh interpreter started in a temporary folder. A block
fenced ```python program is a hosted program (docs/programs.md): it is handed to a real
ProgramManager on a small world and must end with status `finished`.

Run as a script by tests/test_docs_snippets.py: `python docs_snippets.py PAGE.json`, where the
file holds the page's blocks; the server's address replaces `http://localhost:8000`.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^```python( program)?\n(.*?)^```", re.S | re.M)
DOCUMENTED_URL = "http://localhost:8000"
PROGRAM_TICKS = 3000  # a hosted example must end well within this (100 simulation minutes)
ENDED = ("finished", "failed", "stopped")


@dataclass
class Block:
    page: str
    line: int
    code: str
    program: bool = False


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start(2)) + 1
        # The absolute path: a traceback then quotes the page's line.
        found.append(Block(str(page), line, match.group(2), program=bool(match.group(1))))
    return found


def run_program(block: Block) -> None:
    from asiworld.engine import World
    from asiworld.programs.manager import ProgramManager

    world = World.create(seed=3, size=48)
    cid = world.add_character("example", label="docs")
    programs = ProgramManager(world, in_process=True)
    submitted = programs.submit(cid, f"{block.page}:{block.line}", block.code)
    assert submitted["ok"], submitted
    for _ in range(PROGRAM_TICKS):
        programs.before_step()
        programs.after_step(world.step())
        status = programs.status(cid, submitted["id"])
        if status["status"] in ENDED:
            break
    assert status["status"] == "finished", (status, programs.logs(cid, submitted["id"]))


def run_page(rows: list[dict], url: str) -> None:
    namespace: dict = {"__name__": "__main__"}
    for row in rows:
        block = Block(**row)
        if block.program:
            run_program(block)
            continue
        # Line numbers of the page, so a traceback points into the document.
        code = "\n" * (block.line - 1) + block.code.replace(DOCUMENTED_URL, url)
        exec(compile(code, block.page, "exec"), namespace)


if __name__ == "__main__":
    page = json.loads(Path(sys.argv[1]).read_text())
    run_page(page["blocks"], page["url"])
