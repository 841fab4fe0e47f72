"""The package's layers, read from its source with `ast` (README, "Architecture"): no circle of
imports between its parts, the replay package reaching neither the server nor the agents, the
engine importing nothing outside itself but the standard library, numpy, tcod and msgpack (the
snapshots' encoding), and one tick
loop: only the pipeline (and the engine's own re-simulation) calls `World.step`.

A part is a top-level subpackage or module of `asiworld` (engine, pipeline, agents, server, ...).
Every import counts, also those inside functions: a lazy import is still a dependency."""

from __future__ import annotations

import ast
import functools
import re
import sys
from pathlib import Path

import asiworld

APP = Path(asiworld.__file__).resolve().parent
STEPPERS = {"engine/resim.py", "pipeline.py"}  # the only callers of World.step
# msgpack: the snapshot schema's plain-data encoding (app/engine/snapshot.py), nothing that runs
ENGINE_MAY_IMPORT = {"numpy", "tcod", "msgpack"}


def tree_of(path: Path) -> ast.Module:
    """The module at `path` as it reads now, parsed once per text for all the tests here (each
    reads the whole package; none changes a tree)."""
    return _parsed(path.read_text(encoding="utf-8"))


def nodes_of(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the module at `path`, in `ast.walk`'s order, walked once per text."""
    return _walked(path.read_text(encoding="utf-8"))


@functools.cache
def _parsed(text: str) -> ast.Module:
    return ast.parse(text)


@functools.cache
def _walked(text: str) -> tuple[ast.AST, ...]:
    return tuple(ast.walk(_parsed(text)))


@functools.cache
def modules() -> dict[str, Path]:
    """asiworld's modules by dotted name."""
    out = {}
    for path in sorted(APP.rglob("*.py")):
        parts = list(path.relative_to(APP).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(["asiworld", *parts])] = path
    return out


def from_module(node: ast.ImportFrom, package: str) -> str:
    """The module a `from ... import` names, relative imports resolved against `package`."""
    if not node.level:
        return node.module or ""
    base = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(name: str, path: Path) -> set[str]:
    """Every module `name` imports (absolute names; relative imports resolved)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in nodes_of(path):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = from_module(node, package)
            # `from asiworld import protocol` imports asiworld.protocol: the names count too
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def part(module: str) -> str | None:
    """The layer a module belongs to (None: outside asiworld, or asiworld's own __init__)."""
    bits = module.split(".")
    return bits[1] if bits[0] == "asiworld" and len(bits) > 1 else None


def part_graph() -> dict[str, dict[str, set[str]]]:
    """part -> part it imports -> the modules that do it (for the failure message)."""
    graph: dict[str, dict[str, set[str]]] = {}
    for name, path in modules().items():
        src = part(name)
        if src is None:
            continue
        graph.setdefault(src, {})
        for imported in imports_of(name, path):
            dst = part(imported)
            if dst is not None and dst != src:
                graph[src].setdefault(dst, set()).add(name)
    return graph


def circles(graph: dict[str, dict[str, set[str]]]) -> list[list[str]]:
    found, state = [], {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph.get(node, {})):
            if state.get(nxt) == "open":
                found.append(trail[trail.index(nxt):] + [nxt] if nxt in trail else [node, nxt])
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


def test_no_two_parts_of_the_package_import_each_other_in_a_circle():
    graph = part_graph()
    found = circles(graph)
    detail = [
        " -> ".join(c) + "  (" + "; ".join(
            f"{a}->{b}: {', '.join(sorted(graph[a][b]))}" for a, b in zip(c, c[1:], strict=False)
        ) + ")"
        for c in found
    ]
    assert not found, "import circles:\n" + "\n".join(detail)


def module_imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The asiworld modules `name` imports when it runs (imports for type checkers only, under
    `if TYPE_CHECKING:`, never run). `from pkg import mod` imports mod, and the package only for
    names that are not modules of their own."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = tree_of(path)
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for child in node.body
        for inner in ast.walk(child)
    }
    wanted: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            wanted.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = from_module(node, package)
            subs = {f"{module}.{alias.name}" for alias in node.names}
            wanted.update(subs & known.keys() or {module})
    found = set()
    for imported in wanted:
        bits = imported.split(".")
        while bits and ".".join(bits) not in known:
            bits.pop()
        target = ".".join(bits)
        if target and target not in (name, "asiworld"):
            found.add(target)
    return found


def module_graph() -> dict[str, dict[str, set[str]]]:
    known = modules()
    return {
        name: {target: {name} for target in module_imports(name, path, known)}
        for name, path in known.items()
    }


def test_no_two_modules_import_each_other_in_a_circle():
    """Also within a part: a circle of modules (the rules registering with the module that
    loads them, server modules importing back from the package's factory) is a hidden
    dependency whichever way it is entered, and a partly imported module when entered wrong."""
    found = circles(module_graph())
    assert not found, "module circles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_a_module_circle_is_seen_and_typing_only_imports_are_not(tmp_path):
    (tmp_path / "a.py").write_text("from pkg import b\n")
    (tmp_path / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n"
    )
    known = {"pkg.a": tmp_path / "a.py", "pkg.b": tmp_path / "b.py"}
    assert module_imports("pkg.a", known["pkg.a"], known) == {"pkg.b"}
    assert module_imports("pkg.b", known["pkg.b"], known) == set()
    (tmp_path / "b.py").write_text("def f():\n    from pkg import a\n")  # inside a function
    assert circles({n: {m: {n} for m in module_imports(n, p, known)} for n, p in known.items()})


def test_the_circle_finder_sees_a_circle():
    assert circles({"a": {"b": {"x"}}, "b": {"c": {"y"}}, "c": {"a": {"z"}}}) == [
        ["a", "b", "c", "a"]
    ]
    assert circles({"a": {"b": {"x"}}, "b": {}}) == []


# Issue #33: an import of asiworld's own modules inside a function hides a dependency from the
# reader (and from the module's top); most were habit or left from circles gone since. The few
# that stay say why on their line or the line above, and there are at most this many. The command
# line's late imports are one function instead, asiworld.cli.load (importlib), not counted here.
LAZY_IMPORTS_LIMIT = 13


def lazy_imports(path: Path) -> list[tuple[int, bool]]:
    """(line, says why) of every in-function import of an asiworld module in `path`: a comment
    on its line or alone on the line above; a bare `# noqa: ...` says nothing."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = {}
    for fn in nodes_of(path):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(fn):
            own = isinstance(node, ast.ImportFrom) and (
                node.level or (node.module or "").startswith("asiworld")
            ) or isinstance(node, ast.Import) and any(
                alias.name.split(".")[0] == "asiworld" for alias in node.names
            )
            if own:
                line, above = lines[node.lineno - 1], lines[node.lineno - 2].strip()
                said = re.sub(r"noqa(:\s*[A-Z]+[0-9]+(,\s*[A-Z]+[0-9]+)*)?", "", line.partition("#")[2])
                found[node.lineno] = bool(said.strip(" :()")) or above.startswith("#")
    return sorted(found.items())


def test_an_import_of_our_own_inside_a_function_says_why_and_they_are_few():
    found = {
        f"{path.relative_to(APP).as_posix()}:{line}": why
        for path in modules().values()
        for line, why in lazy_imports(path)
    }
    silent = [at for at, why in found.items() if not why]
    assert not silent, f"in-function imports of asiworld that do not say why: {silent}"
    assert LAZY_IMPORTS_LIMIT < 20
    assert len(found) <= LAZY_IMPORTS_LIMIT, (
        f"{len(found)} in-function imports of asiworld (at most {LAZY_IMPORTS_LIMIT}): "
        + ", ".join(found)
    )


def test_the_lazy_import_finder_sees_one_and_hears_its_reason(tmp_path):
    (tmp_path / "m.py").write_text(
        "import json\n"
        "def f():\n"
        "    import json\n"  # not ours
        "    from asiworld.engine import actions\n"
        "    from . import sibling  # why: a reason\n"
        "    # why: on the line above\n"
        "    import asiworld.server\n"
        "    import asiworld.evaluation.figures  # noqa: F401\n"
    )
    assert lazy_imports(tmp_path / "m.py") == [(4, False), (5, True), (7, True), (8, False)]


def test_the_replay_package_depends_on_neither_the_server_nor_the_agents():
    reaches = part_graph().get("replay", {})
    assert "server" not in reaches, reaches.get("server")
    assert "agents" not in reaches, reaches.get("agents")


# The agents by audience (app/agents/__init__.py) and what each may reach of the others: the
# bots and the environments stand alone; the stand-in model plays a built-in; a client may run a
# built-in (`asiworld agent --config`) and be one (the Agent base, the driver's program action).
AUDIENCES_MAY_REACH = {"bots": set(), "envs": set(), "stand_in": {"bots"}, "clients": {"bots"}}
# researchers' code imports these two paths (docs/agents.md, docs/studies.md): they stay put
PUBLIC_AGENT_PATHS = {"asiworld.agents.sdk", "asiworld.agents.interface"}


def audience(module: str) -> str | None:
    bits = module.split(".")
    return bits[2] if bits[:2] == ["asiworld", "agents"] and len(bits) > 3 else None


def test_the_agents_are_four_audiences_that_reach_each_other_only_as_allowed():
    loose = {
        name for name in modules()
        if name.startswith("asiworld.agents.") and audience(name) is None
        and name.count(".") == 2 and name.rsplit(".", 1)[1] not in AUDIENCES_MAY_REACH
    }
    assert loose == PUBLIC_AGENT_PATHS, "a module outside the four audiences: " + str(loose)
    reached = {}
    for name, path in modules().items():
        src = audience(name)
        if src is None:
            continue
        for imported in imports_of(name, path):
            dst = audience(imported) or (
                imported.split(".")[2] if imported.startswith("asiworld.agents.") else None
            )
            if dst in AUDIENCES_MAY_REACH and dst != src and dst not in AUDIENCES_MAY_REACH[src]:
                reached.setdefault(f"{src} -> {dst}", set()).add(name)
    assert not reached, reached


def test_the_public_agent_paths_are_the_clients_themselves():
    from asiworld.agents import interface, sdk
    from asiworld.agents.clients import interface as real_interface
    from asiworld.agents.clients import sdk as real_sdk

    assert sdk.Client is real_sdk.Client and sdk.ApiError is real_sdk.ApiError
    assert interface.act is real_interface.act and interface.program is real_interface.program


def test_the_clocks_sit_below_the_server():
    """The realtime clock (asiworld.realtime) is the live server's and a realtime study's: it
    reaches the pipeline and the engine only, and a study runs on it without the server (the
    lockstep clock is `Pipeline.step()` in the study's own loop)."""
    known = modules()
    clock = module_imports("asiworld.realtime", known["asiworld.realtime"], known)
    assert {part(m) for m in clock} <= {"engine", "pipeline"}, clock
    for name in ("asiworld.study.run", "asiworld.study.seats"):
        reached = {m for m in module_imports(name, known[name], known) if part(m) == "server"}
        assert not reached, f"{name} imports the server: {reached}"


def test_the_engine_imports_only_itself_the_standard_library_numpy_tcod_and_msgpack():
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    outside = {}
    for name, path in modules().items():
        if part(name) != "engine":
            continue
        for imported in imports_of(name, path):
            top = imported.split(".")[0]
            if imported.startswith("asiworld.engine") or top in stdlib | ENGINE_MAY_IMPORT:
                continue
            outside.setdefault(name, set()).add(imported)
    assert not outside, outside


def test_only_the_pipeline_steps_a_world():
    callers = []
    for path in modules().values():
        rel = path.relative_to(APP).as_posix()
        if rel in STEPPERS or rel.startswith("engine/"):
            continue  # the engine steps itself (re-simulation) and the pipeline steps it
        for node in nodes_of(path):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "step"
                and _names_a_world(node.func.value)
            ):
                callers.append(f"{rel}:{node.lineno}")
    assert callers == [], f"World.step called outside the pipeline: {callers}"


def _names_a_world(node: ast.AST) -> bool:
    """`world.step()`, `self.world.step()`, `run.world.step()`: anything called ...world."""
    if isinstance(node, ast.Name):
        return "world" in node.id
    if isinstance(node, ast.Attribute):
        return "world" in node.attr
    return False


def test_the_world_step_finder_sees_a_step():
    call = ast.parse("self.world.step(inputs)").body[0].value
    assert isinstance(call, ast.Call) and _names_a_world(call.func.value)
    assert not _names_a_world(ast.parse("runner.step(3)").body[0].value.func.value)


def test_the_local_model_imports_only_the_engines_errors_and_the_argument_checkers():
    """app/local_model serves a real model for tests and demos: any layer may use it, so it
    reaches no layer but these two (no circle can go through it); of the engine, the error
    class and the table of codes (plain data)."""
    reaches = part_graph().get("local_model", {})
    assert set(reaches) <= {"engine", "arguments"}, reaches
    imported = set().union(*(
        imports_of(name, path) for name, path in modules().items() if part(name) == "local_model"
    ))
    used = {m for m in imported if m.startswith("asiworld.engine")}
    assert used <= {"asiworld.engine.errors.CodedError", "asiworld.engine.codes"}, used


def test_only_the_session_builds_a_pipeline():
    """One composition root (asiworld.session): the server, headless runs, studies, the
    environments and `program run` get their world, programs and pipeline from Session.build."""
    builders = []
    for path in modules().values():
        rel = path.relative_to(APP).as_posix()
        if rel in ("session.py", "pipeline.py"):
            continue
        for node in nodes_of(path):
            if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == "Pipeline":
                builders.append(f"{rel}:{node.lineno}")
    assert builders == [], f"a Pipeline built outside asiworld.session: {builders}"


def test_the_server_imports_nothing_from_the_study_package():
    """`serve --study` runs a study on the live server, yet the study package sits above it: the
    command table hands the study's opener to the server (asiworld.cli), never an import."""
    reaches = part_graph().get("server", {})
    assert "study" not in reaches, reaches.get("study")


# replay_library.py: ASIWORLD_REPLAYS, more folders for /replays, read at each listing
READS_THE_ENVIRONMENT = {"server/settings.py", "server/replay_library.py"}


def test_the_server_reads_its_environment_variables_in_its_settings_alone():
    """One place says which ASIWORLD_* variable sets what, and in which order a flag wins over
    it (app/server/settings.py); no other server module reads os.environ."""
    readers = []
    for name, path in modules().items():
        rel = path.relative_to(APP).as_posix()
        if part(name) != "server" or rel in READS_THE_ENVIRONMENT:
            continue
        for node in nodes_of(path):
            if isinstance(node, ast.Attribute) and ast.unparse(node) in ("os.environ", "os.getenv"):
                readers.append(f"{rel}:{node.lineno}")
    assert readers == [], f"the environment read outside the server's settings: {readers}"


def test_every_key_of_app_extensions_is_named_in_one_place():
    """asiworld.server.extensions names every key the apps keep in `app.extensions` and says
    what it holds; a key spelled out elsewhere is one the next reader cannot look up."""
    spelled = []
    for path in modules().values():
        rel = path.relative_to(APP).as_posix()
        for node in nodes_of(path):
            if isinstance(node, ast.Subscript):
                holder, key = node.value, node.slice
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                node.func.attr in ("get", "setdefault", "pop") and node.args
            ):
                holder, key = node.func.value, node.args[0]
            else:
                continue
            if (
                ast.unparse(holder).endswith("extensions")
                and isinstance(key, ast.Constant)
                and key.value != "socketio"  # Flask-SocketIO's own
            ):
                spelled.append(f"{rel}:{node.lineno} {key.value!r}")
    assert spelled == [], f"app.extensions keys spelled out: {spelled}"


def test_every_command_named_by_module_and_function_is_a_function_there():
    """A command's `func` given as "module:function" is imported only when it runs
    (asiworld.cli.load): a misspelt name would otherwise show on the first user's run."""
    import argparse

    from asiworld.cli import build_parser, load

    named, parsers = [], [build_parser()]
    while parsers:
        parser = parsers.pop()
        func = parser.get_default("func")
        if isinstance(func, str):
            named.append(func)
            assert callable(load(func)), func
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                parsers.extend(action.choices.values())
    assert "asiworld.headless.commands:cmd_run" in named and len(named) >= 12, named
