"""A python agent is imported from the study file's folder first, then from the import path:
a study beside its `lumberjack.py` runs with no PYTHONPATH, `study check` finds it the same way,
and a module that is absent, does not compile, or raises while loading is refused with a clear
error naming where it was looked for, never a traceback."""

from __future__ import annotations

import json
import random
import sys

from asiworld.cli import main
from asiworld.study.spec import StudyError, load_study

AGENT = """\
class Lumberjack:
    def __init__(self, every=2):
        self.every, self.seen = every, 0

    def observe(self, observation):
        self.seen += 1

    def decide(self):
        if self.seen % 7 == 0:
            raise RuntimeError("the saw is blunt")  # the agent's own error: one of its failures
        return {"type": "move", "dir": "e"} if self.seen % self.every == 0 else None
"""

STUDY = """\
[world]
seed = 3
minutes = 1
size = 64

[[configuration]]
name = "jack"
kind = "python"
agent = "MODULE:Lumberjack"

[[configuration]]
name = "b"
kind = "builtin"
agent = "forager"
"""


def study_beside(tmp_path, module: str, source: str | None = AGENT):
    """A study file in its own folder naming `module:Lumberjack`, with `module.py` beside it."""
    folder = tmp_path / "study"
    folder.mkdir()
    if source is not None:
        (folder / f"{module}.py").write_text(source)
    path = folder / "study.toml"
    path.write_text(STUDY.replace("MODULE", module))
    return path


def refusal(path, capsys, command: str = "check") -> str:
    args = ["study", command, str(path)] + (["--out", str(path.parent / "out")]
                                             if command == "run" else [])
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_a_study_runs_its_own_agent_from_its_folder_without_pythonpath(tmp_path, capsys,
                                                                       monkeypatch):
    path = study_beside(tmp_path, "lumberjack_here")
    monkeypatch.chdir(tmp_path)  # not the study's folder: only the study file says where
    assert str(path.parent) not in sys.path
    assert main(["study", "check", str(path)]) == 0
    out = tmp_path / "out"
    assert main(["study", "run", str(path), "--out", str(out), "--figures", "none"]) == 0
    results = json.loads((out / "results.json").read_text())
    jack = next(c for c in results["configurations"] if c["name"] == "jack")
    assert jack["actions"]["movement"] > 0
    cost = next(r for r in results["costs"] if r["name"] == "jack")
    assert cost["calls"] == 20 and cost["failures"] == 2  # 60 ticks, a decision every 3
    assert "| jack | python | 20 | — | — | — | — | — | 2 | — | — |" in \
        (out / "report.md").read_text()
    assert str(path.parent) not in sys.path  # the folder was searched, not left on the path


def test_the_study_folder_wins_over_an_installed_module_of_the_same_name(tmp_path):
    path = study_beside(tmp_path, "random")  # the standard library's `random` is imported
    study, _ = load_study(path)  # imports random:Lumberjack: only the folder's has one
    assert study.configurations[0].folder == path.parent.resolve()
    # the rest of the process keeps its own
    assert sys.modules["random"] is random and hasattr(random, "randint")


def test_a_missing_module_names_the_folder_and_the_import_path(tmp_path, capsys):
    path = study_beside(tmp_path, "no_lumberjack_anywhere", source=None)
    for command in ("check", "run"):
        err = refusal(path, capsys, command)
        assert err.startswith("error: agent_not_found: ") and "line 9" in err
        assert str(path.parent.resolve()) in err and "import path" in err


def test_a_module_that_does_not_compile_or_raises_is_refused_with_its_line(tmp_path, capsys):
    # bad inputs tried: a syntax error (check compiles it, run imports it), a module that raises
    path = study_beside(tmp_path, "broken_jack", AGENT + "\ndef oops(:\n")
    bad_line = len(AGENT.splitlines()) + 2
    for command in ("check", "run"):
        err = refusal(path, capsys, command)
        assert err.startswith("error: agent_not_found: ")
        assert f"broken_jack.py line {bad_line}" in err
    (path.parent / "broken_jack.py").write_text("raise RuntimeError('no saw')\n")
    with_error = str(load_error(path))
    assert "RuntimeError: no saw" in with_error


def load_error(path) -> StudyError:
    try:
        load_study(path)
    except StudyError as exc:
        return exc
    raise AssertionError("the study was accepted")
