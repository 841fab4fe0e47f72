"""The report's tables as LaTeX (booktabs), for a paper to `\\input`: one file per table in
`tables/`, a bare `tabular` with `\\toprule`, `\\midrule` and `\\bottomrule` (the paper needs
`\\usepackage{booktabs}`), its caption in a comment above it so the paper writes its own
`table` float around it.

    write(out_dir, runs, across)   # tables/T3_main.tex, tables/T9_activity.tex, and with
                                   # `across` (a comparison) tables/across_worlds.tex

Cells come from the same grids as the Markdown and CSV (tables.py, aggregate.py), escaped for
LaTeX: a configuration named `fast_forager` or `50%` must not break a paper's build.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from asiworld.evaluation import stats, tables
from asiworld.evaluation.aggregate import HEADLINE, Aggregate, estimate_cell, interval_cell

# LaTeX's special characters in text mode, and the report's own non-ASCII marks (an 8-bit
# pdflatex paper without inputenc options would choke on them).
_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "–": "--", "—": "---", "✓": r"\checkmark{}", "Δ": r"$\Delta$", "×": r"$\times$",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", "\n": " ",
}
# Tables of a single run's grids written as LaTeX (their cells are short; T2's and T8's prose
# is better typeset by hand).
GRIDS = ("T3", "T9")
# Across worlds: which way is better per column (Downs are knockdowns: fewer is better).
_LOWER_IS_BETTER = frozenset({"downs"})


_MINUS = re.compile(r"(?<![\w-])-(?=\d)")  # a minus before a number, not a hyphen or dash


def escape(text: str) -> str:
    """`text` as LaTeX text, its special characters escaped."""
    return "".join(_SPECIAL.get(ch, ch) for ch in str(text))


def _number(text: str) -> str:
    """A cell that may hold signed numbers: a minus sign set as one, not as a hyphen."""
    return _MINUS.sub("$-$", escape(text))


def tabular(header: list[str], rows: list[list[str]], align: str, caption: str = "",
            bold: set[tuple[int, int]] = frozenset(), notes: list[str] = ()) -> str:
    """A booktabs tabular. `align` has one letter per column; `bold` holds (row, column) cells
    to set in bold; cells are escaped here. `caption` and `notes` become comments above."""
    if any(len(r) != len(align) for r in [header, *rows]):
        raise ValueError("every row needs one cell per column of the tabular's spec")
    lines = [f"% {line}" for line in [caption, *notes] if line]
    lines += ["% Needs \\usepackage{booktabs} (and amssymb for \\checkmark).",
              f"\\begin{{tabular}}{{{align}}}", "\\toprule",
              " & ".join(escape(h) for h in header) + r" \\", "\\midrule"]
    for i, row in enumerate(rows):
        cells = []
        for j, cell in enumerate(row):
            text = escape(cell) if align[j] == "l" else _number(cell)
            cells.append(f"\\textbf{{{text}}}" if (i, j) in bold else text)
        lines.append(" & ".join(cells) + r" \\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def _align(header: list[str], text_columns: set[str]) -> str:
    return "".join("l" if h in text_columns else "r" for h in header)


def grid_tex(spec: tables.TableSpec, runs: list[dict[str, Any]]) -> str:
    header, rows = spec.rows(runs)
    label = f"Table {spec.number[1:]}: {spec.title}. {spec.caption}"
    return tabular(header, rows, _align(header, {"Configuration", "Run", "Cause"}), label)


def across_tex(agg: Aggregate) -> str:
    """The Across-worlds table: each configuration's mean with its interval over worlds, the
    best of each column in bold, and its paired difference in score against the reference."""
    names = agg.ranked()
    header = ["Configuration", "Worlds", *(label for _, label in HEADLINE),
              f"Δ score vs {agg.reference}", "Sign test p"]
    rows, bold = [], set()
    for name in names:
        row = [name, str(agg.worlds_of(name))]
        row += [estimate_cell(agg.estimate(name, m)) for m, _ in HEADLINE]
        diff = agg.difference(name, "score")
        if diff is None:
            row += ["(reference)", ""]
        else:
            row += [interval_cell(diff.mean_difference, diff.low, diff.high, signed=True),
                    f"{diff.sign_p:.3g}"]
        rows.append(row)
    for j, (measure, _) in enumerate(HEADLINE, start=2):
        bold |= _best(names, j, lambda n, m=measure: _shown_mean(agg.estimate(n, m)),
                      lower=measure in _LOWER_IS_BETTER)
    delta = len(header) - 2
    bold |= _best(names, delta, lambda n: _shown_diff(agg.difference(n, "score")), lower=False)
    caption = (f"Across worlds: means over {agg.worlds} worlds (one per seed) with "
               f"{stats.CONFIDENCE:.0%} intervals [low, high]: bootstrap over worlds; Outfit and "
               "Hero are success rates with Wilson intervals; Δ score is the paired difference "
               f"against {agg.reference} in the same world, with a two-sided sign test. The best "
               "of each column is in bold (Downs: the fewest).")
    notes = [agg.warning()] if agg.warning() else []
    return tabular(header, rows, "lr" + "r" * (len(header) - 2), caption, bold, notes)


def _best(names: list[str], column: int, value: Callable[[str], float | None],
          lower: bool) -> set[tuple[int, int]]:
    """The rows whose value is the column's best, as shown; none when all rows are level (no
    configuration stands out)."""
    values = {i: value(n) for i, n in enumerate(names)}
    known = {i: v for i, v in values.items() if v is not None}
    if len(set(known.values())) < 2:
        return set()
    best = min(known.values()) if lower else max(known.values())
    return {(i, column) for i, v in known.items() if v == best}


def _shown_mean(e: stats.Estimate | None) -> float | None:
    if e is None:
        return None
    return round(100 * e.mean if e.kind == "rate" else e.mean, 1)


def _shown_diff(p: stats.Paired | None) -> float | None:
    return None if p is None else round(p.mean_difference, 1)


def write(out: Path, runs: list[dict[str, Any]], across: Aggregate | None = None) -> dict[str, Path]:
    """The LaTeX tables of a run (or a comparison, with `across`) into out/tables/."""
    (out / "tables").mkdir(parents=True, exist_ok=True)
    paths = {}
    for spec in tables.TABLES:
        if spec.number in GRIDS:
            path = out / spec.csv_name.replace(".csv", ".tex")
            path.write_text(grid_tex(spec, runs), encoding="utf-8")
            paths[spec.number] = path
    if across is not None:
        path = out / "tables" / "across_worlds.tex"
        path.write_text(across_tex(across), encoding="utf-8")
        paths["across"] = path
    return paths
