"""Entry points for runs and reports: assess an event stream, write results.json, report.md and
the figures, read events.jsonl back.

    results = evaluate(events, characters, meta)   # characters: [{id, name, label}, ...]
    write_reports(out_dir, results)                # results.json, report.md (Tables 2-9,
                                                   # Behaviour), tables/*.csv, tables/*.tex
                                                   # (latex.py), progress.csv, figures/F4*, F5*,
                                                   # F6*, F7* (png, svg, pdf: FigureOptions)
    compare_runs(out_dir, [results_e1, results_e2]) # report.md with "E1 / E2" cells, and the
                                                    # statistics across worlds (aggregate.py)
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from asiworld import provenance
from asiworld.engine import codes
from asiworld.engine.errors import CodedError
from asiworld.evaluation import behaviour, figure_data, latex, longform, progress, tables
from asiworld.evaluation.aggregate import Aggregate, AggregateError, aggregate, differences
from asiworld.evaluation.figure_options import DEFAULT, FigureOptions

Event = dict[str, Any]
# Each figure is written as PNG, SVG and PDF beside each other (FigureOptions.formats);
# report.md shows the PNG.
FIGURES = {"dungeons": "figures/F4_dungeon_performance.png", "actions": "figures/F5_actions.png",
           "progress": "figures/F6_progress.png",
           "profiles": "figures/F7_profiles.png"}


class ReportError(CodedError):
    """A report could not be built; `code` is stable, the message says why in words."""


def evaluate(
    events: Iterable[Event],
    characters: Iterable[dict[str, Any]] = (),
    meta: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Assess a whole event stream; characters not listed are taken from `joined` events. The
    results carry their progress minute by minute (progress.py)."""
    return progress.assess(events, characters, meta)


def load_events(path: str | Path) -> list[Event]:
    """Read an events.jsonl file (one JSON object per line; blank lines are skipped)."""
    path = Path(path)
    if not path.is_file():
        raise ReportError(codes.EVENTS_MISSING, f"no event file at {path}")
    events: list[Event] = []
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                ev = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ReportError(
                    codes.BAD_EVENTS_LINE, f"{path} line {number} is not JSON: {exc.msg}"
                ) from None
            if not isinstance(ev, dict) or "kind" not in ev:
                raise ReportError(
                    codes.BAD_EVENTS_LINE, f"{path} line {number} is not an event (needs a kind)"
                )
            events.append(ev)
    return events


def write_reports(out_dir: str | Path, results: dict[str, Any],
                  draw: Executor | None = None,
                  figures: FigureOptions = DEFAULT) -> dict[str, Path]:
    """Write results.json, report.md, a CSV per table, progress.csv and the three figures (in
    `figures`' style and formats) for one run; returns their paths (the figures' PNGs, none
    with no formats; `tables` maps a table number to its CSV). `draw`: an executor the figures
    are drawn on (a study's worker processes, which imported matplotlib while the world ran)
    while the rest is written."""
    return _write(Path(out_dir), [results], results_json=results, draw=draw, figures=figures)


SPEED_KEPT = 0.95  # a realtime world below this share of its set speed fell behind


def clock_warnings(runs: list[dict[str, Any]]) -> list[str]:
    """A sentence for each realtime run whose world did not keep its set speed (`clock.
    measured_speed`, the study runner's): on a busy machine a model's answer then costs it more
    ticks than at the set speed, so its results are not those of the study as written."""
    lines = []
    for run in runs:
        clock = run.get("clock") or {}
        speed, measured = clock.get("speed"), clock.get("measured_speed")
        if clock.get("kind") != "realtime" or not speed or measured is None:
            continue
        if measured < SPEED_KEPT * speed:
            where = f"seed {run['seed']}: " if len(runs) > 1 and "seed" in run else ""
            lines.append(
                f"{where}the world ran at {measured:g} ticks per second, below the study's "
                f"{speed:g}: the machine did not keep up, so each model answer cost more ticks "
                "than the study sets. Run it on a quieter machine, or on the lockstep clock, "
                "which does not depend on the machine.")
    return lines


def figure_inputs(runs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """What each of FIGURES draws, by key: the pooled counts (and their intervals over worlds),
    the progress lines. Plain data, so a worker process can draw it."""
    pooled = tables.pool(runs)
    return {"dungeons": {"pooled": pooled, "runs": len(runs),
                         "intervals": figure_data.dungeon_intervals(runs)},
            "actions": {"pooled": pooled, "runs": len(runs)},
            "progress": {"lines": figure_data.progress_lines(runs)},
            "profiles": {"pooled": behaviour.pool(runs), "runs": len(runs)}}


def draw_figure(key: str, stem: Path, data: dict[str, Any],
                options: FigureOptions = DEFAULT) -> Path:
    """One of FIGURES (by key) from its figure_inputs, as figures.py draws it; its PNG's path."""
    # matplotlib takes seconds to import: only code that draws figures pays for it (the
    # Gymnasium environment and the MCP server read the evaluation without drawing).
    from asiworld.evaluation import figures

    drawn = {"dungeons": figures.dungeon_figure, "actions": figures.actions_figure,
             "progress": figures.progress_figure, "profiles": figures.profiles_figure}[key]
    return drawn(stem, **data, options=options)


def compare_runs(out_dir: str | Path, runs: list[dict[str, Any]],
                 draw: Executor | None = None, reference: str | None = None,
                 allow_mixed: bool = False, figures: FigureOptions = DEFAULT) -> dict[str, Path]:
    """Write a comparison of several runs (E1, E2, ... in the given order) into `out_dir`: the
    statistics across worlds against `reference` (None: the best mean score), then every table
    with "E1 / E2" cells. Runs of different horizons, content or clocks are refused unless
    `allow_mixed`, and then the report says how they differ."""
    if not runs:
        raise ReportError(codes.NO_RUNS, "nothing to compare: give at least one run")
    differ = differences(runs)
    if differ and not allow_mixed:
        raise ReportError(codes.MIXED_RUNS, "these runs are not repeats of one setting ("
                          + "; ".join(differ) + "); --allow-mixed compares them anyway")
    try:
        across = aggregate(runs, reference)
    except AggregateError as err:
        raise ReportError(err.code, err.message) from None
    summary = {
        "schema": "asiworld-comparison/1",
        "runs": [{"meta": r.get("meta", {}), "tick": r.get("tick", 0)} for r in runs],
        "configurations": tables.names_in_order(runs),
        "mixed": differ,
        **across.summary(),
        "results": runs,
    }
    return _write(Path(out_dir), runs, results_json=summary, json_name="comparison.json",
                  draw=draw, across=across, mixed=differ, figures=figures)


def _write(
    out: Path,
    runs: list[dict[str, Any]],
    results_json: dict[str, Any],
    json_name: str = "results.json",
    draw: Executor | None = None,
    across: Aggregate | None = None,
    mixed: list[str] | None = None,
    figures: FigureOptions = DEFAULT,
) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(exist_ok=True)
    stem = {key: (out / path).with_suffix("") for key, path in FIGURES.items()}
    paths: dict[str, Any] = {}
    drawing = {}  # on `draw`, while the tables and the report are written
    if figures.drawn:
        (out / "figures").mkdir(exist_ok=True)
        for key, data in figure_inputs(runs).items():
            if draw is None:
                paths[key] = draw_figure(key, stem[key], data, figures)
            else:
                drawing[key] = draw.submit(draw_figure, key, stem[key], data, figures)
    csvs = {}
    for spec in tables.TABLES + tables.FIGURE_DATA:
        target = out / spec.csv_name
        target.write_text(tables.csv_text(spec.rows(runs)), encoding="utf-8")
        csvs[spec.number] = target
    paths["tables"] = csvs
    paths["latex"] = latex.write(out, runs, across)  # for a paper to \input, beside the CSVs
    paths.update(behaviour.write(out, runs))
    paths["progress_csv"] = out / "progress.csv"
    paths["progress_csv"].write_text(
        longform.csv_text(progress.rows(runs), progress.COLUMNS), encoding="utf-8")
    if across is not None:
        paths.update(across.write(out))
    else:  # one run: its long-format rows, also in results.json
        rows = longform.rows(runs)
        results_json = {**results_json, "rows": rows}
        paths["results_csv"] = out / "results.csv"
        paths["results_csv"].write_text(longform.csv_text(rows), encoding="utf-8")
    json_path = out / json_name
    # The code that wrote the file, whatever wrote the run's events (`asiworld report` rebuilds).
    results_json = {**results_json, **provenance.stamp()}
    json_path.write_text(json.dumps(results_json, indent=1, sort_keys=False, default=str) + "\n")
    md_path = out / "report.md"
    sections = [] if across is None else [across.markdown()]
    sections.append(behaviour.markdown(runs, FIGURES["profiles"] if figures.drawn else None,
                                       figures.formats))
    if mixed:
        sections.insert(0, "**Warning:** these runs are not repeats of one setting: "
                        + "; ".join(mixed) + ".")
    sections[:0] = [f"**Warning:** {line}" for line in clock_warnings(runs)]
    md_path.write_text(tables.markdown(runs, FIGURES, sections, figures.formats),
                       encoding="utf-8")  # fmt: skip
    paths.update({"json": json_path, "markdown": md_path})
    for key, future in drawing.items():
        paths[key] = future.result()
    return paths
