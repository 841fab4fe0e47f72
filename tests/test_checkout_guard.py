"""The root conftest fails a run whose tests changed the checkout, ignored folders included, and
leaves a clean run alone. Each case runs pytest in a throwaway git checkout holding a copy of
the conftest and one test."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WRITES_DATA = """from pathlib import Path

def test_writes():
    Path('data').mkdir()
    Path('data/world.db').write_text('x')
"""


def run_in_checkout(folder: Path, test: str, git: bool = True) -> subprocess.CompletedProcess:
    folder.mkdir()
    shutil.copy(ROOT / "conftest.py", folder / "conftest.py")
    (folder / ".gitignore").write_text("/data/\n__pycache__/\n")
    (folder / "test_it.py").write_text(test)
    if git:
        repo = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run([*repo, "init", "-q"], check=True)
        subprocess.run([*repo, "add", "-A"], check=True)
        subprocess.run([*repo, "commit", "-q", "-m", "start"], check=True)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_it.py"],
        cwd=folder,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},  # the guard needs none
        capture_output=True,
        text=True,
    )


def test_a_test_that_writes_an_ignored_folder_into_the_checkout_fails_the_run(tmp_path):
    # serve's default ./data/ is in .gitignore: the plain `git status` would not show it.
    done = run_in_checkout(tmp_path / "repo", WRITES_DATA)
    assert done.returncode == 1, done.stdout
    assert "the tests changed the checkout" in done.stdout
    assert "now:  !! data/" in done.stdout


def test_a_test_that_changes_a_tracked_file_fails_the_run(tmp_path):
    done = run_in_checkout(
        tmp_path / "repo",
        "from pathlib import Path\n\ndef test_edits():\n    Path('.gitignore').write_text('')\n",
    )
    assert done.returncode == 1, done.stdout
    assert "now:   M .gitignore" in done.stdout


def test_a_run_that_writes_only_into_tmp_path_passes(tmp_path):
    done = run_in_checkout(
        tmp_path / "repo",
        "def test_tmp(tmp_path):\n    (tmp_path / 'data').mkdir()\n",
    )
    assert done.returncode == 0, done.stdout
    assert "changed the checkout" not in done.stdout


def test_outside_a_git_checkout_the_guard_is_off(tmp_path):
    done = run_in_checkout(tmp_path / "unpacked", WRITES_DATA, git=False)
    assert done.returncode == 0, done.stdout
