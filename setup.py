"""Package layout: the folder is `app/`, the import name is `asiworld`.

The metadata lives in pyproject.toml; this file only maps folders to import names, which
setuptools cannot derive from `packages.find` when the two differ. `docs/` and `replays/` ship
as data-only packages: the LLM prompt and MCP instructions embed the program API page, and a
fresh install lists the sample replays. Folders that hold only data (static/, templates/,
engine/content/) are listed as namespace packages, as setuptools asks, so their files stay in
the wheel when setuptools stops shipping data of unlisted folders.
"""

from pathlib import Path

from setuptools import find_namespace_packages, setup
from setuptools.command.build_py import build_py

# One line Python runs at start-up (site.py): it puts a finder on sys.meta_path that registers
# the Gymnasium ids once Gymnasium is imported (app/agents/gym_hook.py). Gymnasium 1.x reads no
# entry points, so this is how `gymnasium.make("ASIWorld-v0")` works with no import of ours.
PTH_NAME = "asiworld-gymnasium.pth"
PTH_LINE = "import asiworld.agents.gym_hook\n"


class BuildWithGymnasiumHook(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / PTH_NAME
        target.write_text(PTH_LINE, encoding="utf-8")

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), str(Path(self.build_lib) / PTH_NAME)]

PACKAGES = [
    "asiworld",
    *(f"asiworld.{name}" for name in find_namespace_packages("app", exclude=["*__pycache__*"])),
]

setup(
    cmdclass={"build_py": BuildWithGymnasiumHook},
    packages=[*PACKAGES, "asiworld.docs", "asiworld.replays"],
    package_dir={"asiworld": "app", "asiworld.docs": "docs", "asiworld.replays": "replays"},
)
