"""Escape attempts: each is refused at submit or stopped with a clear error, no file is touched,
and the world keeps ticking."""

from __future__ import annotations

import os

import pytest
from asiworld.engine import inventory as engine_inventory
from asiworld.programs.manager import ProgramManager

from tests.programs.helpers import run_ticks, run_until_done

SENTINEL = "/tmp/asiworld_program_escape_sentinel"


def outcome_of(manager, world, char, source):
    """Submit and run; -> (refusal dict or None, final status or None)."""
    before = world.tick
    submitted = manager.submit(char, "attempt", source)
    if not submitted["ok"]:
        return submitted, None
    status = run_until_done(manager, world, char, submitted["id"], limit=200)
    assert world.tick > before  # the world kept ticking
    assert not os.path.exists(SENTINEL)
    return None, status


REFUSED_AT_SUBMIT = {
    "import": ("import os\n", "imports are not available"),
    "from import": ("from os import system\n", "imports are not available"),
    "dunder import": ("__import__('os')\n", 'starts with "_"'),
    "class walk": ("x = ().__class__.__bases__[0].__subclasses__()\n", 'starts with "_"'),
    "function globals": ("g = move.__globals__\n", 'starts with "_"'),
    "builtins": ("b = __builtins__\n", 'starts with "_"'),
    "generator frame": ("g = (i for i in [1])\nf = g.gi_frame.f_back\n", "restricted name"),
    "frame back": ("def f(x):\n    return x.f_back\n", "restricted name"),
    "traceback frame": (
        "try:\n    1/0\nexcept Exception as e:\n    t = e.__traceback__.tb_frame\n",
        'starts with "_"',
    ),
    "tb_frame by name": ("def f(t):\n    return t.tb_frame.f_globals\n", "restricted name"),
    "f-string attribute": ("x = f'{move.__globals__}'\n", 'starts with "_"'),
    "delete a guard": ("del _step_\n", 'starts with "_"'),
    "shadow a guard": ("_getattr_ = lambda o, n: o\n", 'starts with "_"'),
    "rebind a guard in a loop": ("for _getiter_ in [1]:\n    pass\n", 'starts with "_"'),
    "class definition": ("class A:\n    pass\n", "class definitions are not available"),
    "generator function": ("def g():\n    yield 1\n", "generators"),
    "with statement": ("with x:\n    pass\n", "'with' statements"),
    "exec": ("exec('1')\n", "Exec calls are not allowed"),
    "random internals": ("r = random._rng\n", 'starts with "_"'),
}


@pytest.mark.parametrize("name", REFUSED_AT_SUBMIT)
def test_escape_attempts_are_refused_at_submit_with_a_clear_message(world, char, manager, name):
    source, why = REFUSED_AT_SUBMIT[name]
    refusal, _ = outcome_of(manager, world, char, source)
    assert refusal is not None and refusal["code"] == "forbidden"
    assert why in refusal["message"] and refusal["line"] is not None
    run_ticks(manager, world, 2)
    assert not os.path.exists(SENTINEL)


STOPPED_AT_RUN = {
    "open a file": (f"open('{SENTINEL}', 'w')\n", "program_error", "name 'open' is not defined"),
    "getattr builtin": ("getattr(move, '__globals__')\n", "program_error", "'getattr'"),
    "globals builtin": ("globals()\n", "program_error", "'globals'"),
    "type builtin": ("type(1)\n", "program_error", "'type'"),
    "str.format attribute trick": (
        "'{0.__class__}'.format(1)\n",
        "program_error",
        "'format' is not available",
    ),
    "str.format unbound": ("str.format('{0.__class__}', 1)\n", "program_error", "'format'"),
    "format_map": ("'{x.__class__}'.format_map({'x': 1})\n", "program_error", "'format_map'"),
    "class hierarchy": ("GameError.mro()\n", "program_error", "'mro' is not available"),
    "with_traceback": (
        "try:\n    1/0\nexcept Exception as e:\n    e.with_traceback(None)\n",
        "program_error",
        "'with_traceback'",
    ),
    "random state": ("random.getstate()\n", "program_error", "getstate"),
    "string bomb": ("x = 'a' * 10**10\n", "too_large", "the limit is"),
    "power bomb": ("x = 10 ** 10 ** 9\n", "too_large", "bit number"),
    "shift bomb": ("x = 1 << 10**10\n", "too_large", "bit number"),
    "list bomb": ("x = [0] * 10**9\n", "too_large", "the limit is"),
    "doubling string": ("x = 'ab'\nwhile True:\n    x = x + x\n", "too_large", "joining two strs"),
    "doubling list in place": ("x = [1]\nwhile True:\n    x += x\n", "too_large", "a list"),
    "extend bomb": ("x = [0] * 1000000\nx.extend(x)\n", "too_large", "list.extend"),
    "slice bomb": ("x = [0] * 1000000\nx[len(x):] = x\n", "too_large", "slice assignment"),
    "huge range": ("x = list(range(10**12))\n", "too_large", "range of"),
    "ljust bomb": ("x = 'a'.ljust(10**10)\n", "too_large", "str.ljust"),
    "replace bomb": ("x = ('a' * 1000000).replace('a', 'aaaa')\n", "too_large", "str.replace"),
    "join bomb": ("x = ''.join(['a' * 1000000] * 1000)\n", "too_large", "str.join"),
    "percent width": ("x = '%0999999999d' % 1\n", "too_large", "format width"),
    "percent star": ("x = '%*d' % (10**9, 1)\n", "too_large", "'*' widths"),
    "f-string width": ("x = f'{1:>999999999}'\n", "too_large", "format width"),
    "f-string nested width": ("w = 10**9\nx = f'{1:>{w}}'\n", "too_large", "format width"),
    "sum of lists": ("x = sum([[1] * 1000] * 1000, [])\n", "program_error", "numbers only"),
    "deep recursion": ("def f(n):\n    return f(n + 1)\nf(0)\n", "too_deep", "deeper than"),
    "lambda recursion": ("f = lambda n: f(n + 1)\nf(0)\n", "too_deep", "recursion"),
    "infinite loop": ("while True:\n    pass\n", "step_budget_exhausted", "total budget"),
    "catch the stop and go on": (
        "while True:\n    try:\n        while True:\n            pass\n"
        "    except:\n        log('caught')\n",
        "step_budget_exhausted",
        "total budget",
    ),
    "catch the stop inside recursion": (
        "def f():\n    try:\n        while True:\n            pass\n    except Exception:\n"
        "        f()\nf()\n",
        "step_budget_exhausted",
        "total budget",
    ),
    "comprehension spin": (
        "x = [i for i in range(1000000) for j in range(1000000)]\n",
        "step_budget_exhausted",
        "total budget",
    ),
}


@pytest.mark.parametrize("name", STOPPED_AT_RUN)
def test_escape_attempts_at_run_time_fail_with_a_clear_error(world, char, name):
    source, code, why = STOPPED_AT_RUN[name]
    manager = ProgramManager(
        world, in_process=True, budget=ProgramManager(world).budget.__class__(steps_total=20_000)
    )
    try:
        refusal, status = outcome_of(manager, world, char, source)
    finally:
        manager.close()
    assert refusal is None
    assert status["status"] == "failed"
    error = status["outcome"]["error"]
    assert error["code"] == code and why in error["message"]
    assert error["line"] is not None and error["message"].startswith(f"line {error['line']}: ")
    assert not any("caught" in line for line in manager.logs(char, status["id"]))


@pytest.mark.parametrize(
    "work", ["x.sort()", "y = 5 in x", "y = x[:]", "y = x.count(1)", "y = sorted(x)"]
)
def test_big_builtin_work_is_charged_so_a_tick_stays_short(world, char, manager, work):
    pid = manager.submit(char, "heavy", f"x = [0] * 1000000\nwhile True:\n    {work}\n")["id"]
    run_ticks(manager, world, 12)
    status = manager.status(char, pid)
    assert status["status"] == "running"
    one_pass = 1000000 // 256  # a pass over a million items is charged by its size...
    assert status["steps_total"] >= 2 * one_pass
    # ...and a charge past a tick's budget is paid off before the program runs again, so over
    # many ticks it averages a tick's budget (1,000 steps) at most, plus one pass outstanding.
    assert status["steps_total"] <= 12 * 1000 + 2 * one_pass


def test_an_endless_loop_of_refused_calls_costs_a_few_calls_per_tick(world, char, manager):
    pid = manager.submit(
        char,
        "pest",
        "while True:\n    try:\n        craft('iron_sword')\n    except GameError:\n        pass\n",
    )["id"]
    run_ticks(manager, world, 5)
    assert manager.status(char, pid)["status"] in ("running", "waiting")
    assert manager.status(char, pid)["steps_total"] < 200
    assert world.tick == 5


def test_a_program_cannot_act_for_another_character(world, char, manager):
    refusal, status = outcome_of(manager, world, char, "move('n', char=1)\n")
    assert status["outcome"]["error"]["code"] == "program_error"
    assert "unexpected keyword" in status["outcome"]["error"]["message"]


def test_a_program_cannot_dismantle_another_characters_wall(world, char, manager):
    other = world.add_character(name="bob")
    engine_inventory.add(world.character(other), "wall", 1, world.content)
    start = world.observe(other, consume=False)["self"]
    world.submit(other, {"type": "move_to", "x": start["x"] + 6, "y": start["y"] + 6})
    for _ in range(20):  # off the plaza, where building is allowed
        world.step()
    bob = world.observe(other, consume=False)["self"]
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if world.submit(
            other, {"type": "place", "item": "wall", "x": bob["x"] + dx, "y": bob["y"] + dy}
        ).ok:
            wall = (bob["x"] + dx, bob["y"] + dy)
            break
    world.step()
    source = (
        f"wx, wy = {wall[0]}, {wall[1]}\n"
        "for x, y in [(wx + 1, wy), (wx - 1, wy), (wx, wy + 1), (wx, wy - 1)]:\n"
        "    try:\n        move_to(x, y)\n        break\n    except GameError:\n        pass\n"
        "for act in (dismantle, lock, install_lock):\n"
        "    try:\n        act(wx, wy)\n    except GameError as e:\n        log(e.code)\n"
    )
    _, status = outcome_of(manager, world, char, source)
    assert status["status"] == "finished"
    assert manager.logs(char, status["id"])[0] == "not_owner"
    assert all(code in ("not_owner", "not_a_door") for code in manager.logs(char, status["id"]))
    assert any(s["kind"] == "wall" for s in world.observe(other, consume=False)["structures"])


def test_the_process_host_runs_under_resource_limits(world, char):
    manager = ProgramManager(world)
    try:
        pid = manager.submit(char, "idle", "wait(5)\n")["id"]
        with open(f"/proc/{manager._host.hosts[pid].process.pid}/limits") as f:
            limits = f.read()
    finally:
        manager.close()
    assert "Max address space" in limits
    lines = {line[:26].strip(): line[26:].split() for line in limits.splitlines()[1:]}
    assert lines["Max address space"][0] == str(1 << 30)
    assert lines["Max open files"][0] == "16"
    assert lines["Max file size"][0] == "0"
    assert lines["Max processes"][0] == "0"
