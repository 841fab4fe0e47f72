"""The evaluation page draws its stage rows from the evaluation's own stage list (handed over by
the server), not from a copy in the script."""

from __future__ import annotations

from asiworld.evaluation.achievements import STAGE_NAMES


def test_the_stage_table_lists_the_evaluations_own_stages(live_server, page):
    page.goto(live_server["url"] + "/evaluation")
    page.wait_for_selector("#eval-stages tr td")
    first_cells = page.eval_on_selector_all(
        "#eval-stages tr", "rows => rows.slice(1).map(r => r.cells[0].textContent)"
    )
    assert first_cells == [f"Stage {n}: {name}" for n, name in enumerate(STAGE_NAMES, start=1)]
