"""Package layout: the folder is `app/`, the import name is `asiworld`.

The metadata lives in pyproject.toml; this file only maps folders to import names, which
setuptools cannot derive from `packages.find` when the two differ. `docs/` and `replays/` ship
as data-only packages: the LLM prompt and MCP instructions embed the program API page, and a
fresh install lists the sample replays. Folders that hold only data (static/, templates/,
engine/content/) are listed as namespace packages, as setuptools asks, so their files stay in
the wheel when setuptools stops shipping data of unlisted folders.
"""

from setuptools import find_namespace_packages, setup

PACKAGES = [
    "asiworld",
    *(f"asiworld.{name}" for name in find_namespace_packages("app", exclude=["*__pycache__*"])),
]

setup(
    packages=[*PACKAGES, "asiworld.docs", "asiworld.replays"],
    package_dir={"asiworld": "app", "asiworld.docs": "docs", "asiworld.replays": "replays"},
)
