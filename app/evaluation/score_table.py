"""Reading a table of raw measures (CSV) for `asiworld score`, so the composite score can be
checked against published rows.

Columns: name,outfit,depth,hero,kills,bosses,crafts,coins,trial,downs (any order, extra columns
ignored, header case-insensitive). Booleans: Y/N, 1/0, true/false. Counts: whole numbers >= 0;
depth at most 3, trial at most 8. A bad table gives a `TableError` value, never a partial score.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from asiworld.engine import codes
from asiworld.evaluation.score import MAX_DEPTH, MAX_TRIAL, RawMeasures

COLUMNS = (
    "name",
    "outfit",
    "depth",
    "hero",
    "kills",
    "bosses",
    "crafts",
    "coins",
    "trial",
    "downs",
)
BOOLEANS = {"y": True, "1": True, "true": True, "n": False, "0": False, "false": False}
LIMITS = {"depth": MAX_DEPTH, "trial": MAX_TRIAL}


@dataclass(frozen=True)
class TableError:
    code: str
    message: str


def parse_measures(text: str) -> list[RawMeasures] | TableError:
    if not text.strip():
        return TableError(codes.EMPTY_FILE, "the table is empty: expected a header line and rows")
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    rows = [r for r in reader if any(cell.strip() for cell in r)]
    header = [h.strip().lower() for h in rows[0]]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        return TableError(
            codes.MISSING_COLUMN,
            f"the header lacks column{'s' if len(missing) > 1 else ''} {', '.join(missing)}; "
            f"expected {','.join(COLUMNS)}",
        )
    if len(rows) == 1:
        return TableError(codes.NO_ROWS, "the table has a header but no configuration rows")
    where = {c: header.index(c) for c in COLUMNS}
    parsed: list[RawMeasures] = []
    seen: set[str] = set()
    for line, row in enumerate(rows[1:], start=2):
        if len(row) < len(header):
            return TableError(
                codes.SHORT_ROW, f"row {line} has {len(row)} cells, expected {len(header)}"
            )
        cells = {c: row[where[c]].strip() for c in COLUMNS}
        if not cells["name"]:
            return TableError(codes.EMPTY_NAME, f"row {line} has no configuration name")
        if cells["name"] in seen:
            return TableError(codes.DUPLICATE_NAME,
                              f"row {line} repeats the name {cells['name']!r}")
        seen.add(cells["name"])
        values: dict[str, object] = {"name": cells["name"]}
        for column in ("outfit", "hero"):
            flag = BOOLEANS.get(cells[column].lower())
            if flag is None:
                return TableError(
                    codes.BAD_BOOLEAN,
                    f"row {line}, column {column}: {cells[column]!r} is not Y/N, 1/0 or true/false",
                )
            values[column] = flag
        for column in ("depth", "kills", "bosses", "crafts", "coins", "trial", "downs"):
            number = _count(cells[column], line, column)
            if isinstance(number, TableError):
                return number
            values[column] = number
        parsed.append(RawMeasures(**values))  # type: ignore[arg-type]
    return parsed


def _count(cell: str, line: int, column: str) -> int | TableError:
    try:
        number = int(cell)
    except ValueError:
        return TableError(
            codes.BAD_NUMBER, f"row {line}, column {column}: {cell!r} is not a whole number"
        )
    if number < 0:
        return TableError(codes.NEGATIVE_NUMBER,
                          f"row {line}, column {column}: {number} is negative")
    if column in LIMITS and number > LIMITS[column]:
        return TableError(
            codes.OUT_OF_RANGE,
            f"row {line}, column {column}: {number} is above the maximum {LIMITS[column]}",
        )
    return number
