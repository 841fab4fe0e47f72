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
               "'asiworld.agents.envs.gym_env'))))")
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr


@pytest.mark.parametrize("argv0", ["/usr/local/bin/asiworld", "-m"])
def test_asiworlds_own_commands_do_not_pay_for_gymnasium(argv0):
    # `asiworld mcp` answers a coding agent's initialize in about half a second: Gymnasium's
    # import (numpy with it) would add about half as much again, for ids it never makes.
    done = run(f"import sys\nsys.argv[0] = {argv0!r}\nimport asiworld\n"
               "print('gymnasium' in sys.modules, 'numpy' in sys.modules)")
    assert done.returncode == 0 and done.stdout.split() == ["False", "False"], done.stderr


def test_a_program_that_imported_gymnasium_first_gets_the_ids_whoever_it_is():
    done = run("import sys\nsys.argv[0] = '-m'\nimport gymnasium, asiworld\n"
               "print('ASIWorld-v0' in gymnasium.registry)")
    assert done.returncode == 0 and done.stdout.strip() == "True", done.stderr
