"""The wheel, installed as a user installs it (`pip install .`, not editable), is the whole game.

The wheel is built offline from a copy of the checkout (the build writes build/ and egg-info
beside its sources) and installed into a fresh venv in a temporary folder. That venv has no
packages of its own: a .pth file names the test venv's site-packages, so the dependencies
(flask, numpy, ...) import from there. Lines of a .pth file are plain path entries, so the .pth
files inside that folder, among them the editable install's finder that maps `asiworld` to the
checkout, are never run: every `asiworld` module must come from the installed package, and the
tests check that they do.

Then a second package whose wheel ships a top-level `app/` (the folder name ASIWorld used to
install under) is installed beside it and uninstalled again: our files and our import survive.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import sysconfig
from base64 import urlsafe_b64encode
from pathlib import Path

import asiworld
import pytest
from asiworld.agents.clients.harness import system_prompt
from asiworld.engine import World

ROOT = Path(__file__).resolve().parents[2]
REPORT = Path(__file__).with_name("installed_report.py")
# What `pip wheel .` reads: the package folders and the files that configure them.
SOURCES = ["app", "docs", "replays", "setup.py", "pyproject.toml", "README.md", "LICENSE"]
# Offline: no index, no build isolation (setuptools and wheel are in the test extra).
PIP = ["-m", "pip", "--disable-pip-version-check", "--no-input", "-q"]
OFFLINE = ["--no-deps", "--no-index"]
INSTALL = ["install", *OFFLINE, "--no-compile"]


def pip(python: Path | str, *args: str) -> None:
    done = subprocess.run([str(python), *PIP, *args], capture_output=True, text=True)
    assert done.returncode == 0, f"pip {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"


def build_wheel(source: Path, out: Path) -> Path:
    pip(sys.executable, "wheel", *OFFLINE, "--no-build-isolation", "-w", str(out), str(source))
    (wheel,) = out.glob("*.whl")
    return wheel


def copy_checkout(to: Path) -> Path:
    junk = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")
    for name in SOURCES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, to / name, ignore=junk)
        else:
            shutil.copy2(src, to / name)
    return to


class Venv:
    """A fresh venv that borrows the test venv's dependencies through a .pth file."""

    def __init__(self, home: Path):
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(home)], check=True)
        self.python = home / "bin" / "python"
        self.site = Path(
            self.run("-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
        )
        (self.site / "borrowed-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    def run(self, *args: str, cwd: Path | None = None) -> str:
        # -I: no PYTHONPATH, no current folder, no user site: only the venv's own paths.
        done = subprocess.run(
            [str(self.python), "-I", *args], capture_output=True, text=True, cwd=cwd
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    def pip(self, *args: str) -> None:
        pip(self.python, *args)

    def record(self, dist: str) -> dict[str, str]:
        """Every file a distribution installed, with the hash pip recorded for it."""
        (info,) = self.site.glob(f"{dist}-*.dist-info")
        rows = (line.rsplit(",", 2) for line in (info / "RECORD").read_text().splitlines())
        return {path: digest for path, digest, _size in rows if digest}

    def changed_files(self, record: dict[str, str]) -> list[str]:
        changed = []
        for path, digest in record.items():
            file = self.site / path
            if not file.is_file() or digest != sha256(file):
                changed.append(path)
        return changed


def other_app(folder: Path) -> Path:
    """A project that ships a top-level `app/` package, with sub-packages named like ours."""
    for package in ("app", "app/engine", "app/server"):
        (folder / package).mkdir(parents=True)
        (folder / package / "__init__.py").write_text('WHO = "other-app"\n')
    (folder / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "other-app"\nversion = "1.0"\n'
        '[tool.setuptools]\npackages = ["app", "app.engine", "app.server"]\n'
    )
    return folder


def sha256(file: Path) -> str:
    digest = urlsafe_b64encode(hashlib.sha256(file.read_bytes()).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Venv:
    tmp = tmp_path_factory.mktemp("wheel")
    wheel = build_wheel(copy_checkout(tmp / "src"), tmp / "dist")
    venv = Venv(tmp / "venv")
    # --ignore-installed: pip sees the editable asiworld through the .pth and must not touch it.
    venv.pip(*INSTALL, "--ignore-installed", str(wheel))
    return venv


@pytest.fixture(scope="module")
def report(installed, tmp_path_factory) -> dict:
    cwd = tmp_path_factory.mktemp("elsewhere")
    return json.loads(installed.run(str(REPORT), cwd=cwd))


def test_every_asiworld_module_comes_from_the_installed_package(installed, report):
    package = installed.site / "asiworld"
    assert Path(report["file"]) == package / "__init__.py"
    assert not any("editable" in finder.lower() for finder in report["meta_path"])
    elsewhere = {
        name: paths
        for name, paths in report["modules"].items()
        if not all(Path(p).is_relative_to(package) for p in paths)
    }
    assert elsewhere == {}
    assert len(report["modules"]) > 20  # the server, engine, agents and replay really imported


def test_the_installed_llm_prompt_is_the_players_guide_written_from_its_content(report):
    # The prompt is written from the content and the template the wheel carries; the page
    # `asiworld mcp` hands its client is shipped too, and says the same.
    page = (ROOT / "docs" / "player-guide.md").read_text(encoding="utf-8")
    assert report["prompt"] == system_prompt() == page
    assert report["shipped_guide"] == page


def test_docs_replays_content_templates_and_static_are_read_from_the_package(installed, report):
    package = installed.site / "asiworld"
    assert report["folders"] == {
        "docs": str(package / "docs"),
        "replays": str(package / "replays"),
        "content": str(package / "engine" / "content"),
        "templates": str(package / "templates"),
        "static": str(package / "static"),
    }
    # The same content as the checkout's, so worlds and their state hashes are the same.
    assert report["content_hash"] == World.create(seed=3, size=48).content.hash


def test_the_installed_server_serves_pages_static_files_and_the_sample_replays(installed, report):
    package = installed.site / "asiworld"
    pages = report["pages"]
    status, home = pages["/"]
    assert status == 200 and "<html" in home.lower()
    status, script = pages["/static/js/live.js"]
    assert status == 200 and script == (package / "static" / "js" / "live.js").read_text()
    status, listing = pages["/replays"]
    samples = sorted(p.stem for p in (ROOT / "replays").glob("*.asirep"))
    assert status == 200 and len(samples) >= 2
    for sample in samples:
        assert f'href="/replay/{sample}"' in listing


def test_the_wheel_carries_the_license_the_type_marker_and_its_classifiers(installed, report):
    (info,) = installed.site.glob("asiworld-*.dist-info")
    licenses = list(info.rglob("LICENSE"))
    assert [p.read_text() for p in licenses] == [(ROOT / "LICENSE").read_text()]
    assert (installed.site / "asiworld" / "py.typed").is_file()
    metadata = (info / "METADATA").read_text()
    assert "License-Expression: MIT" in metadata
    assert "Classifier: Typing :: Typed" in metadata
    # an installed wheel runs from no checkout: its results say so instead of naming one
    assert report["provenance"] == {"asiworld_version": asiworld.__version__, "git_commit": None}


# Gymnasium 1.x reads no entry points: a program names the package in the id (which imports it),
# or imports asiworld first, as with any environment package.
GYM_MAKE = (
    "import sys, gymnasium; env = gymnasium.make('asiworld:ASIWorld-v0', size=48); "
    "obs, info = env.reset(seed=1); "
    "print(sorted(obs), sorted(m for m in sys.modules if m.startswith('asiworld.server')))"
)
GYM_MAKE_AFTER_IMPORT = (
    "import asiworld, gymnasium; env = gymnasium.make('ASIWorldText-v0', size=48); "
    "print(type(env.reset(seed=1)[0]).__name__)"
)


def test_gymnasium_makes_asiworld_v0_from_the_installed_wheel_without_the_server(installed):
    assert installed.run("-c", GYM_MAKE) == "['entities', 'inventory', 'stats', 'tiles'] []"
    assert installed.run("-c", GYM_MAKE_AFTER_IMPORT) == "str"
    assert not list(installed.site.glob("*.pth")) or all(
        "asiworld" not in p.read_text() for p in installed.site.glob("*.pth")
        if p.name != "borrowed-deps.pth"
    )  # no start-up hook: nothing of ours runs in a program that does not ask for it
    (info,) = installed.site.glob("asiworld-*.dist-info")
    assert "[gymnasium.envs]" in (info / "entry_points.txt").read_text()


USE_OURS = "import asiworld.cli, asiworld.engine, asiworld.server; print(asiworld.__file__)"


def test_a_package_shipping_app_installed_beside_ours_and_uninstalled_changes_nothing_of_ours(
    installed, tmp_path
):
    # The last test of the module: it installs into the shared venv and leaves it as it was.
    ours = installed.record("asiworld")
    assert len(ours) > 150 and "asiworld/docs/programs.md" in ours
    wheel = build_wheel(other_app(tmp_path / "other"), tmp_path / "dist")
    package = str(installed.site / "asiworld" / "__init__.py")

    installed.pip(*INSTALL, str(wheel))
    assert installed.run("-c", "import app; print(app.WHO, app.__file__)") == (
        f"other-app {installed.site / 'app' / '__init__.py'}"
    )
    assert installed.changed_files(ours) == []
    assert installed.run("-c", USE_OURS) == package

    installed.pip("uninstall", "-y", "other-app")
    assert not (installed.site / "app").exists()
    assert installed.changed_files(ours) == []
    assert installed.run("-c", USE_OURS) == package
