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


def rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def test_each_row_is_drawn_in_the_colour_the_server_hands_it(page):
    # The page used to pick colours with its own copy of the palette's name hash.
    from asiworld.evaluation.palette import palette

    from e2e.conftest import served

    with served({"SEED": 7, "SPEED": 20, "AGENTS": ["planner", "forager"]}) as server:
        page.goto(server["url"] + "/evaluation")
        page.wait_for_selector("#eval-main .swatch")
        drawn = page.eval_on_selector_all(
            "#eval-main tr", "rows => rows.slice(1).map(r => [r.querySelector('a').textContent, "
            "getComputedStyle(r.querySelector('.swatch')).backgroundColor])"
        )
    named = palette()["configurations"]
    assert dict(drawn) == {"planner-1": rgb(named["planner"]), "forager-2": rgb(named["forager"])}
