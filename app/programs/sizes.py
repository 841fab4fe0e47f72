"""How big a value's text would be, found without building it.

`str(x)`, `repr(x)`, f-strings, `%` formats, log lines and error messages all turn a value into
text in one C call. A value built from shared references (`a = [a] * 200`, nine times over) is
small in memory but its text is astronomically long, so the guards ask `text_size` first: it walks
the value the way `repr` would, counting characters, and stops as soon as the count passes the
limit, so it never does more than about `limit` units of work whatever the value.
"""

from __future__ import annotations

from typing import Any

# Types whose text `text_size` can bound exactly enough; anything else a program can reach
# (functions, ranges, map objects, the API's helpers) has a short, fixed-size repr.
OTHER_TEXT = 120
FLOAT_TEXT = 26
MAX_DEPTH = 200  # deeper nesting than this fails like CPython's own repr (RecursionError)
_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))


def text_size(value: Any, limit: int) -> int:
    """An upper bound on `len(repr(value))` (and on `len(str(value))`); once it passes `limit`
    the walk stops and returns a number above `limit`."""
    return measure_text(value, limit)[0]


def measure_text(value: Any, limit: int) -> tuple[int, int]:
    """(`text_size(value, limit)`, how many parts of the value the walk visited)."""
    total = visited = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        item, depth = pop()
        visited += 1
        kind = type(item)
        if kind is str:
            n = len(item)
            total += n + 2 if n < 32 or item.isprintable() else 10 * n + 2
            if n >= 32:
                total += item.count("\\") + item.count("'")
        elif kind is int:
            total += item.bit_length() * 31 // 100 + 2
        elif kind is float or kind is bool or item is None:
            total += FLOAT_TEXT
        elif kind in (list, tuple, set, frozenset) or kind in _VIEWS:
            if depth >= MAX_DEPTH:
                raise RecursionError("a value nested too deeply to turn into text")
            total += 2 + 2 * len(item) + (13 if kind in _VIEWS else 0)
            if total <= limit:
                for child in item:
                    push((child, depth + 1))
        elif kind is dict:
            if depth >= MAX_DEPTH:
                raise RecursionError("a value nested too deeply to turn into text")
            total += 2 + 4 * len(item)
            if total <= limit:
                for key, child in item.items():
                    push((key, depth + 1))
                    push((child, depth + 1))
        elif kind is bytes:
            total += 4 * len(item) + 3
        elif isinstance(item, BaseException):
            total += len(kind.__name__) + 2
            push((item.args, depth + 1))
        elif kind is slice:
            total += 8
            for part in (item.start, item.stop, item.step):
                push((part, depth + 1))
        else:
            total += OTHER_TEXT
        if total > limit:
            break
    return total, visited


def fits_text(value: Any, limit: int) -> bool:
    return text_size(value, limit) <= limit


def short_text(value: Any, limit: int) -> str:
    """`str(value)` cut to `limit` characters, made only when that is cheap: a value whose text
    would be far longer (a shared structure, say) is named instead of being turned into text."""
    if type(value) is str:
        return value[:limit]
    if text_size(value, 4 * limit) <= 4 * limit:
        return str(value)[:limit]
    size = f" of {len(value)} items" if hasattr(value, "__len__") else ""
    return f"<a {type(value).__name__}{size}, too long to show>"[:limit]


def log_line(values: tuple, limit: int) -> str:
    """A log line of `values` (as `print` joins them), each at most `limit` characters."""
    return " ".join(short_text(v, limit) for v in values)
