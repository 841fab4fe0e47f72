"""The report's cost table (a study's Table 5): one row per configuration, model seats with
their calls, tokens, dollars, latency, failures and the classes of their answers, the others by
kind only."""

from __future__ import annotations

from asiworld.evaluation.tables import costs_table


def test_model_seats_show_their_costs_and_built_ins_their_kind():
    run = {"costs": [
        {"name": "m", "kind": "openai", "calls": 12, "prompt_tokens": 900,
         "completion_tokens": 40, "dollars": 0.01234, "latency_p50_ms": 21.04,
         "latency_p95_ms": 80.0, "failures": 3, "incidents": 2,
         "replies": {"tool_call": 6, "text_action": 1, "text": 1, "empty": 1, "malformed": 1,
                     "failed": 2}},
        {"name": "unpriced", "kind": "openai", "calls": 1, "prompt_tokens": 9,
         "completion_tokens": 4, "dollars": None, "latency_p50_ms": 2.0,
         "latency_p95_ms": 2.0, "failures": 0, "incidents": 0},
        {"name": "planner", "kind": "builtin", "calls": 0},
    ]}
    table = costs_table([run]).splitlines()
    assert table[0].startswith("| Configuration | Kind | Calls |")
    assert "| Dollars |" in table[0]
    assert table[2] == "| m | openai | 12 | 900 | 40 | 0.0123 | 21.0 | 80.0 | 3 | 2 | 6/1/1/1/1/2 |"
    assert table[3] == "| unpriced | openai | 1 | 9 | 4 | — | 2.0 | 2.0 | 0 | 0 | — |"
    assert table[4] == "| planner | builtin | — | — | — | — | — | — | — | — | — |"


def test_external_and_python_seats_show_their_calls_and_failures():
    run = {"costs": [
        {"name": "outside", "kind": "external", "calls": 384, "api_calls": 384, "failures": 2},
        {"name": "mine", "kind": "python", "calls": 40, "failures": 1, "refusals": 5},
        {"name": "planner", "kind": "builtin", "calls": 0},
        {"name": "older", "kind": "external", "calls": 0, "api_calls": 296},  # before failures
    ]}
    table = costs_table([run]).splitlines()
    assert table[2] == "| outside | external | 384 | — | — | — | — | — | 2 | — | — |"
    assert table[3] == "| mine | python | 40 | — | — | — | — | — | 1 | — | — |"
    assert table[4] == "| planner | builtin | — | — | — | — | — | — | — | — | — |"
    assert table[5] == "| older | external | 296 | — | — | — | — | — | — | — | — |"


def test_the_long_format_counts_the_calls_of_every_seat_that_makes_them():
    from asiworld.evaluation.longform import rows

    run = {"meta": {"seed": 1}, "configurations": [
        {"name": n, "id": i} for i, n in enumerate(("outside", "mine", "planner", "older"))],
        "costs": [
            {"name": "outside", "kind": "external", "calls": 384, "api_calls": 384,
             "failures": 2},
            {"name": "mine", "kind": "python", "calls": 40, "failures": 1},
            {"name": "planner", "kind": "builtin", "calls": 0},
            {"name": "older", "kind": "external", "calls": 0, "api_calls": 296}]}
    values = {(r["configuration"], r["measure"]): r["value"] for r in rows([run])}
    assert values["outside", "cost.calls"] == 384 and values["outside", "cost.failures"] == 2
    assert values["mine", "cost.calls"] == 40 and values["mine", "cost.failures"] == 1
    assert values["older", "cost.calls"] == 296
    assert values["planner", "cost.calls"] is None  # a built-in calls nothing


def test_an_outside_seat_that_reported_its_tokens_shows_them():
    run = {"costs": [
        {"name": "coder", "kind": "external", "calls": 30, "api_calls": 30, "failures": 0,
         "prompt_tokens": 9000, "completion_tokens": 1200},
        {"name": "ada", "kind": "human", "calls": 12, "api_calls": 12, "failures": 1}]}
    table = costs_table([run]).splitlines()
    assert table[2] == "| coder | external | 30 | 9000 | 1200 | — | — | — | 0 | — | — |"
    assert table[3] == "| ada | human | 12 | — | — | — | — | — | 1 | — | — |"
