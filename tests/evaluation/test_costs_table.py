"""The report's cost table (a study's Table 5): one row per configuration, model seats with
their calls, tokens, latency and failures, the others by kind only."""

from __future__ import annotations

from asiworld.evaluation.tables import costs_table


def test_model_seats_show_their_costs_and_built_ins_their_kind():
    run = {"costs": [
        {"name": "m", "kind": "openai", "calls": 12, "prompt_tokens": 900,
         "completion_tokens": 40, "latency_p50_ms": 21.04, "latency_p95_ms": 80.0,
         "failures": 3, "incidents": 2},
        {"name": "planner", "kind": "builtin", "calls": 0},
    ]}
    table = costs_table([run]).splitlines()
    assert table[0].startswith("| Configuration | Kind | Calls |")
    assert table[2] == "| m | openai | 12 | 900 | 40 | 21.0 | 80.0 | 3 | 2 |"
    assert table[3] == "| planner | builtin | — | — | — | — | — | — | — |"
