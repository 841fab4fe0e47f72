"""Generated programs (issue 16): expressions from the allowed grammar, built from large literals
and the built-ins, never make a value over a cap, and never take the host down. Each program
reports the size of what it built; a refused build ends it with a clear code instead."""

from __future__ import annotations

from asiworld.engine import World
from asiworld.programs.limits import Budget
from asiworld.programs.manager import ProgramManager
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.programs.helpers import run_until_done

LIMITS = Budget(steps_total=60_000)
LITERALS = st.sampled_from(
    [
        "'a' * 600000",
        "[0] * 600000",
        "b'\\xff' * 600000",
        "range(600000)",
        "10 ** 2900",
        "'\\u00df' * 400000",
        "{i: i for i in range(2000)}",
        "set(range(2000))",
        "[1, 'x', (2, 3)]",
        "'xy'",
        "7",
    ]
)
COMBINATORS = [
    "[*{0}, *{0}]",
    "(*{0}, *{0}, 1)",
    "{{*{0}}}",
    "(lambda v: f'{{v}}{{v}}')({0})",  # a lambda: the expression may hold quotes itself
    "str({0})",
    "repr({0})",
    "list({0})",
    "tuple({0})",
    "sorted({0})",
    "max({0})",
    "list(map(str, {0}))",
    "list(zip({0}, {0}))",
    "list(enumerate({0}))",
    "''.join(map(str, {0}))",
    "[{0}] * 200",
    "{0} + {0}",
    "{0} * 3",
    "int.from_bytes({0}, 'big')",
    "str({0}).upper()",
    "str({0}).encode('utf-16')",
    "'%s%s' % ({0}, {0})",
    "{{**dict(enumerate({0})), **dict(enumerate({0}))}}",
    "set({0}) | set({0})",
    "{0} ** 4",
    "{0} << 9000",
]
EXPRESSIONS = st.recursive(
    LITERALS,
    lambda inner: st.builds(str.format, st.sampled_from(COMBINATORS), inner),
    max_leaves=3,
)
PROGRAM = """def size(v):
    if isinstance(v, int):
        return v.bit_length()
    try:
        return len(v)
    except TypeError:
        return 0
x = {expression}
log(isinstance(x, int), size(x))
"""
ENDINGS = ("finished", "failed")
CLEAR_CODES = {"too_large", "program_error", "step_budget_exhausted", "too_deep", "out_of_memory"}


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(EXPRESSIONS)
def test_no_generated_program_builds_a_value_over_a_cap_or_takes_the_host_down(expression):
    world = World.create(seed=3, size=48)
    char = world.add_character(name="fuzz")
    bystander = world.add_character(name="bystander")
    manager = ProgramManager(world, in_process=True, budget=LIMITS)
    try:
        steady = manager.submit(bystander, "steady", "while True:\n    wait(1)\n")["id"]
        submitted = manager.submit(char, "fuzz", PROGRAM.format(expression=expression))
        assert submitted["ok"], submitted
        status = run_until_done(manager, world, char, submitted["id"], limit=400)
        logs = manager.logs(char, submitted["id"])
        assert manager.status(bystander, steady)["status"] in ("running", "waiting")
        assert manager.host_restarts == 0
    finally:
        manager.close()
    assert status["status"] in ENDINGS, status
    if status["status"] == "failed":
        assert status["outcome"]["error"]["code"] in CLEAR_CODES, status
        return
    is_int, size = logs[-1].split()
    assert int(size) <= (LIMITS.max_int_bits if is_int == "True" else LIMITS.max_items)
