"""Which asiworld made a file: its version, and the git commit when it runs from a checkout.

Every results file (results.json, comparison.json) and every replay header carries both, so a
figure can be traced to the code that produced it. A wheel install has no commit (None).
"""

from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path

import asiworld


def version() -> str:
    """The installed distribution's version; the package's own when it is not installed."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("asiworld")
    except PackageNotFoundError:
        return asiworld.__version__


@cache  # one process runs from one checkout; `git` is not asked once per file
def git_commit() -> str | None:
    """The commit of the checkout the code runs from, if it runs from one. A wheel installed
    into a venv that happens to sit inside some checkout is not "from" it: the checkout's
    `app/` must be this very folder."""
    here = Path(__file__).resolve().parent
    try:
        done = subprocess.run(["git", "rev-parse", "--show-toplevel", "HEAD"], cwd=here,
                              capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.split()
    if done.returncode != 0 or len(lines) != 2 or len(lines[1]) != 40:
        return None
    top, commit = lines
    return commit if (Path(top) / "app").resolve() == here else None


def stamp() -> dict[str, str | None]:
    """The two fields a results file carries."""
    return {"asiworld_version": version(), "git_commit": git_commit()}
