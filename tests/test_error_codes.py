"""Every error code is in one table (asiworld.engine.codes), read from app/'s source with `ast`:

- a code written anywhere a code goes (the `code` argument of any class or function that takes
  one, a `code=` keyword, a `"code":` key, a class's `code = ...`, a printed `error: code: ...`)
  is in the table;
- call sites name their codes from the table (`codes.BAD_SEEDS`), not as literals, except in
  the program host, which must not import the engine;
- every code in the table is raised somewhere (no dead codes);
- each name is its code (`codes.BAD_SEEDS == "bad_seeds"`) and a status is an HTTP error's.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

import asiworld
import pytest
from asiworld.engine import codes

APP = Path(asiworld.__file__).resolve().parent
TABLE_FILE = APP / "engine" / "codes.py"
PRINTED = re.compile(r"^error: (?P<code>[a-z_]+): ")
CODE_SHAPE = re.compile(r"[a-z][a-z0-9_]*")
# Answers in a code's place that are no error: an action queued, a replay that verified.
NOT_ERRORS = {"accepted", "ok"}


@dataclass(frozen=True)
class Site:
    where: str  # file:line
    code: str | None  # the literal; None when the site names its code from the table
    literal: bool


def _positional(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    names = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    return names[1:] if names and names[0] in ("self", "cls") else names


def _dataclass_fields(node: ast.ClassDef) -> list[str] | None:
    if not any("dataclass" in ast.unparse(d) for d in node.decorator_list):
        return None
    return [s.target.id for s in node.body
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]


def code_positions(trees: dict[Path, ast.Module]) -> tuple[dict, dict]:
    """Where each callable of app/ takes its `code`: {(file or None, name): position} (None:
    any file, for classes and module functions; a file's own definition wins), and each class's
    bases."""
    inits: dict[str, int | None] = {}
    bases: dict[str, list[str]] = {}
    local: dict[tuple[Path | None, str], int] = {}
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases[node.name] = [ast.unparse(b).split(".")[-1] for b in node.bases]
                fields = _dataclass_fields(node)
                if fields is not None:
                    inits[node.name] = fields.index("code") if "code" in fields else None
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                        p = _positional(item)
                        inits[node.name] = p.index("code") if "code" in p else None
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                p = _positional(node)
                if node.name != "__init__":
                    local[(path, node.name)] = p.index("code") if "code" in p else -1
                    if "code" in p:
                        local[(None, node.name)] = p.index("code")

    def init(cls: str, seen: tuple[str, ...] = ()) -> int | None:
        if cls in inits:
            return inits[cls]
        for base in bases.get(cls, []):
            if base not in seen:
                found = init(base, (*seen, cls))
                if found is not None:
                    return found
        return None

    for cls in bases:
        position = init(cls)
        if position is not None:
            local[(None, cls)] = position
    return local, bases


@functools.cache
def _parsed(folder: Path) -> dict[Path, ast.Module]:
    return {p: ast.parse(p.read_text(encoding="utf-8"))
            for p in sorted(folder.rglob("*.py")) if p != TABLE_FILE}


def sites(app: Path = APP) -> list[Site]:
    """Every code written in app/ where a code goes, as a literal or a name from the table."""
    trees = _parsed(app)
    positions, bases = code_positions({**_parsed(APP), **trees})  # the classes app/ defines
    found: list[Site] = []

    def add(path: Path, value: ast.AST | None) -> None:
        where = f"{path.relative_to(app)}:{getattr(value, 'lineno', '?')}"
        if isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value:
            found.append(Site(where, value.value, True))
        elif isinstance(value, ast.IfExp):
            add(path, value.body)
            add(path, value.orelse)
        elif isinstance(value, ast.BoolOp):
            for each in value.values:
                add(path, each)
        elif (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)
              and value.value.id == "codes"):
            found.append(Site(where, None, False))

    for path, tree in trees.items():
        owner: dict[int, ast.ClassDef] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for inner in ast.walk(node):
                    owner.setdefault(id(inner), node)
                for item in node.body:  # a class's own `code = ...`
                    if isinstance(item, (ast.Assign, ast.AnnAssign)):
                        targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                        if any(isinstance(t, ast.Name) and t.id == "code" for t in targets):
                            add(path, item.value)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                name = (func.id if isinstance(func, ast.Name)
                        else func.attr if isinstance(func, ast.Attribute) else None)
                if name == "__init__" and id(node) in owner:  # super().__init__(code, ...)
                    name = bases.get(owner[id(node)].name, [""])[0]
                position = positions.get((path, name), positions.get((None, name), -1))
                if 0 <= position < len(node.args) and not any(
                        isinstance(a, ast.Starred) for a in node.args[:position + 1]):
                    add(path, node.args[position])
                for keyword in node.keywords:
                    if keyword.arg == "code":
                        add(path, keyword.value)
            elif isinstance(node, ast.Assign) and any(  # code = "..." then raise X(code, ...)
                    isinstance(t, ast.Name) and t.id == "code" for t in node.targets):
                add(path, node.value)
            elif isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if isinstance(key, ast.Constant) and key.value == "code":
                        add(path, value)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                printed = PRINTED.match(node.value)
                if printed:
                    found.append(Site(f"{path.relative_to(app)}:{node.lineno}",
                                      printed["code"], True))
    return found


def host_side(app: Path = APP) -> set[str]:
    """The program host's modules (it must not import the engine: a second and the world's
    memory on every start), as paths under app/: what asiworld.programs.host imports."""
    todo, seen = ["programs/host.py"], set()
    while todo:
        rel = todo.pop()
        if rel in seen:
            continue
        seen.add(rel)
        for node in ast.walk(ast.parse((app / rel).read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("asiworld."):
                todo.append(node.module.removeprefix("asiworld.").replace(".", "/") + ".py")
    return seen


@pytest.fixture(scope="module")
def found() -> list[Site]:
    return sites()


def test_every_code_written_in_app_is_in_the_table(found):
    unknown = sorted({f"{s.code} ({s.where})" for s in found
                      if s.literal and s.code not in codes.TABLE and s.code not in NOT_ERRORS})
    assert unknown == [], "add these to asiworld/engine/codes.py"


def test_call_sites_name_their_codes_from_the_table(found):
    exempt = host_side()
    literal = sorted(f"{s.where}: {s.code!r}" for s in found
                     if s.literal and s.code not in NOT_ERRORS
                     and s.where.split(":")[0] not in exempt)
    assert literal == [], "write codes.NAME, not the code's text"


def test_the_program_host_is_found():
    assert {"programs/host.py", "programs/runtime.py", "programs/compiler.py"} <= host_side()


def test_every_code_in_the_table_is_raised_somewhere(found):
    named, written = set(), {s.code for s in found}
    for path in APP.rglob("*.py"):
        if path == TABLE_FILE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id == "codes"):
                named.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                written.add(node.value)
    dead = sorted(c for c in codes.TABLE if c.upper() not in named and c not in written)
    assert dead == [], "raised nowhere: remove them from the table"


def test_each_name_is_its_code_and_each_entry_reads_right():
    names = {k: v for k, v in vars(codes).items() if isinstance(v, str) and v in codes.TABLE}
    assert sorted(names.values()) == sorted(codes.TABLE)
    assert all(name == code.upper() for name, code in names.items())
    for code, entry in codes.TABLE.items():
        assert CODE_SHAPE.fullmatch(code) and entry.code == code
        assert entry.meaning and "\n" not in entry.meaning, code
        assert entry.where and set(entry.where) <= set(codes.SURFACES), code
        assert entry.status is None or 400 <= entry.status <= 599, code
        assert entry.status is None or codes.API in entry.where, code


def test_an_unknown_code_is_caught(tmp_path):
    """The scan finds a literal code in each place a code goes."""
    folder = tmp_path / "app"
    folder.mkdir()
    (folder / "bad.py").write_text(
        "from asiworld.engine.errors import CodedError\n"
        "class Mine(CodedError):\n"
        "    pass\n"
        "def refuse(code, message):\n"
        "    return 2\n"
        "raise Mine('no_such_code', 'a sentence')\n"
        "refuse('no_such_refusal', 'a sentence')\n"
        "answer = {'code': 'no_such_key', 'message': 'a sentence'}\n"
        "print('error: no_such_print: a sentence')\n"
    )
    written = {s.code for s in sites(folder)}
    assert {"no_such_code", "no_such_refusal", "no_such_key", "no_such_print"} <= written
