"""Every benchmark script still finds what it imports from ASIWorld, the browser tests' fixtures
and the other benchmarks: a module moved in the code left `bench_export_html.py` failing at its
first line, and nothing ran it. Checked without running the scripts (each would start servers,
browsers and long runs): the names each `from X import a, b` asks for exist in X."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "benchmarks").glob("*.py"))
OURS = ("asiworld", "e2e", "benchmarks", "tests")  # the packages a benchmark may lean on


def our_imports(script: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of each of the script's imports from OURS (names empty: `import X`)."""
    found = []
    for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] in OURS:
            found.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found += [(a.name, []) for a in node.names if a.name.split(".")[0] in OURS]
    return found


def test_the_benchmarks_are_found():
    assert len(SCRIPTS) >= 20
    assert any(our_imports(s) for s in SCRIPTS)  # the check below has something to check


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_a_benchmark_finds_every_name_it_imports(script):
    missing = []
    for module, names in our_imports(script):
        try:
            imported = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            missing.append(f"{module} ({exc})")
            continue
        for name in names:
            if not hasattr(imported, name):
                try:  # a submodule imported by name: `from asiworld.engine import world`
                    importlib.import_module(f"{module}.{name}")
                except ModuleNotFoundError:
                    missing.append(f"{module}.{name}")
    assert not missing, f"{script.name} imports what is not there: {missing}"
