"""The event kinds are a contract written once (asiworld.engine.events): every kind the engine
emits is in it and every kind in it is emitted, every kind the evaluation compares an event with
is one of them, and docs/engine-interface.md lists exactly them. Before, 43 kinds lived only as
`emit("...")` strings and were read back by string comparisons nobody checked."""

from __future__ import annotations

import ast
from pathlib import Path

import asiworld
from asiworld.engine.events import ENGINE, KINDS, OUTSIDE

APP = Path(asiworld.__file__).resolve().parent
DOC = APP.parent / "docs" / "engine-interface.md"


def emitted(folder: Path) -> dict[str, str]:
    """kind -> where, for every `something.emit("kind", ...)` under `folder`."""
    found = {}
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "emit" and node.args
                    and isinstance(node.args[0], ast.Constant)):
                found[node.args[0].value] = f"{path.relative_to(APP)}:{node.lineno}"
    return found


EVENT_NAMES = ("ev", "event", "e")  # what the evaluation calls an event it reads


def kinds_read(folder: Path) -> dict[str, str]:
    """Every kind code under `folder` reads: a handler method `_on_KIND` (looked up by the
    event's kind, so a misspelt one silently reads nothing), and every string an event's kind
    is compared with (`ev.get("kind") == "x"`, `kind in ("x", "y")`)."""
    found = {}
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(APP)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.FunctionDef) and node.name.startswith("_on_"):
                found[node.name.removeprefix("_on_")] = where
            if not isinstance(node, ast.Compare):
                continue
            left = ast.unparse(node.left)
            if not (left == "kind" or any(left in (f"{n}['kind']", f"{n}.get('kind')")
                                          for n in EVENT_NAMES)):
                continue
            for right in node.comparators:
                items = right.elts if isinstance(right, ast.Tuple | ast.Set | ast.List) else [right]
                for item in items:
                    if isinstance(item, ast.Constant) and isinstance(item.value, str):
                        found[item.value] = where
    return found


def test_the_engine_emits_exactly_the_engines_kinds():
    emits = emitted(APP / "engine")
    assert set(emits) - set(ENGINE) == set(), {k: emits[k] for k in set(emits) - set(ENGINE)}
    assert set(ENGINE) - set(emits) == set()  # no kind listed that nothing emits


def test_the_evaluation_reads_only_known_kinds():
    read = kinds_read(APP / "evaluation")
    unknown = {k: where for k, where in read.items() if k not in KINDS}
    assert not unknown, unknown


def test_the_kind_finders_see_what_they_look_for(tmp_path):
    (tmp_path / "reader.py").write_text(
        "class A:\n    def _on_crafted(self, ev):\n        return ev.get('kind') == 'tick_typo'\n"
        "def f(row):\n    return row.get('kind') == 'openai'\n"
    )
    (tmp_path / "writer.py").write_text("def g(world):\n    world.emit('said', char=1)\n")
    global APP
    saved, APP = APP, tmp_path
    try:
        assert set(kinds_read(tmp_path)) == {"crafted", "tick_typo"}  # not a cost row's kind
        assert set(emitted(tmp_path)) == {"said"}
    finally:
        APP = saved


def test_the_docs_list_exactly_the_kinds():
    listed = set()
    in_table = False
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## Events"):
            in_table = True
        elif line.startswith("## ") and in_table:
            break
        elif in_table and line.startswith("| `"):
            first = line.split("|")[1]
            listed |= {part.strip(" `") for part in first.split("/") if "`" in part}
    listed.discard("moved")  # a row that says it is never emitted
    assert listed == set(KINDS), (sorted(listed - set(KINDS)), sorted(set(KINDS) - listed))


def test_outside_kinds_never_clash_with_the_engines():
    assert not set(ENGINE) & set(OUTSIDE)
