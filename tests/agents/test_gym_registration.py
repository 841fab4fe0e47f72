"""The Gymnasium ids the ecosystem's way, in the editable install `make serve` and `make test`
make (issue 33): there `gymnasium.make("ASIWorld-v0")` raised NameNotFound, because the ids were
registered by a start-up hook that only a built wheel installs. Now `import asiworld` registers
them, and `gymnasium.make("asiworld:ASIWorld-v0")` imports asiworld itself. Each program runs in
a fresh interpreter, so nothing this test process imported can help it."""

from __future__ import annotations

import subprocess
import sys

import pytest


def run(program: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize(
    "program",
    [
        "import asiworld, gymnasium\nenv = gymnasium.make('ASIWorld-v0', size=48)",
        "import gymnasium, asiworld\nenv = gymnasium.make('ASIWorldText-v0', size=48)",
        "import gymnasium\nenv = gymnasium.make('asiworld:ASIWorld-v0', size=48)",
    ],
    ids=["import asiworld first", "import gymnasium first", "the id names the package"],
)
def test_gymnasium_makes_the_ids_in_an_editable_install(program):
    done = run(program + "\nobs, info = env.reset(seed=1)\nprint('made', env.spec.id)")
    assert done.returncode == 0, done.stderr[-1500:]
    assert done.stdout.startswith("made ")


def test_without_asiworld_the_ids_are_unknown_and_gymnasium_says_so():
    # No start-up hook: a program that never names asiworld gets Gymnasium's own answer.
    done = run("import gymnasium\ngymnasium.make('ASIWorld-v0')")
    assert done.returncode == 1 and "NameNotFound" in done.stderr


def test_importing_asiworld_imports_neither_the_environment_nor_the_server():
    done = run("import sys, asiworld\n"
               "print(sorted(m for m in sys.modules if m.startswith(('asiworld.server', "
               "'asiworld.agents.gym_env'))))")
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr
