"""The guard functions a compiled program calls instead of raw Python operations.

Every helper here is reached only through names that start with an underscore (which program
source cannot mention) or through the safe builtins. Size checks happen *before* an object is
built; large built-in operations are charged extra steps so a program cannot hide unbounded work
inside one C call.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any

from asiworld.programs.limits import Budget
from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence

SEQUENCES = (str, bytes, list, tuple)
CONTAINERS = (str, bytes, list, tuple, dict, set, frozenset)

# Attribute names a program may never read, whatever the object: frame/traceback/code walking,
# str.format attribute tricks, the class hierarchy, and text methods whose size we do not check.
BLOCKED_ATTRS = frozenset(
    {"format", "format_map", "mro", "with_traceback", "translate", "maketrans", "fromkeys"}
)
BLOCKED_PREFIXES = ("gi_", "f_", "tb_", "co_", "cr_", "ag_")
SIZED_TEXT_METHODS = frozenset(
    {"center", "ljust", "rjust", "zfill", "expandtabs", "replace", "join"}
)
FORMAT_NUMBER = re.compile(r"\d+")
PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?")


class ProgramLimit(Exception):
    """A guarded operation refused because its result would be too large."""

    code = "too_large"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Guards:
    """Guard functions bound to one program's budget and step counter."""

    def __init__(self, budget: Budget, charge: Callable[[int], None], step: Callable[[], None]):
        self.budget = budget
        self.charge = charge
        self.step = step

    # -- size checks ------------------------------------------------------------------------
    def _check_items(self, n: int, what: str) -> None:
        if n > self.budget.max_items:
            raise ProgramLimit(f"{what} would hold {n} items; the limit is {self.budget.max_items}")
        if n >= self.budget.charge_per_items:
            self.charge(n // self.budget.charge_per_items)

    def _check_bits(self, bits: int, what: str) -> None:
        if bits > self.budget.max_int_bits:
            raise ProgramLimit(
                f"{what} would be a {bits}-bit number; the limit is {self.budget.max_int_bits} bits"
            )

    # -- operators --------------------------------------------------------------------------
    def mul(self, a: Any, b: Any) -> Any:
        ta, tb = type(a), type(b)
        if ta is int and tb is int:
            self._check_bits(a.bit_length() + b.bit_length(), "a product")
        elif ta in SEQUENCES and tb in (int, bool):
            self._check_items(len(a) * max(b, 0), f"repeating a {ta.__name__}")
        elif tb in SEQUENCES and ta in (int, bool):
            self._check_items(len(b) * max(a, 0), f"repeating a {tb.__name__}")
        return a * b

    def pow(self, a: Any, b: Any) -> Any:
        if type(a) is int and type(b) is int and b > 0 and a not in (0, 1, -1):
            self._check_bits(a.bit_length() * b, "a power")
        return a**b

    def lshift(self, a: Any, b: Any) -> Any:
        if type(a) is int and type(b) is int and b > 0 and a != 0:
            self._check_bits(a.bit_length() + b, "a shift")
        return a << b

    def add(self, a: Any, b: Any) -> Any:
        ta = type(a)
        if ta is int or ta is float:
            return a + b
        if ta in SEQUENCES and type(b) is ta:
            self._check_items(len(a) + len(b), f"joining two {ta.__name__}s")
        return a + b

    def mod(self, a: Any, b: Any) -> Any:
        if type(a) in (str, bytes):
            text = a if type(a) is str else a.decode("latin-1")
            for width, precision in PERCENT_SPEC.findall(text):
                for number in (width, precision):
                    self._check_format_number(number)
        return a % b

    def _check_format_number(self, number: str) -> None:
        if number == "*":
            raise ProgramLimit("'*' widths in % formats are not allowed; write the number")
        if number and int(number) > self.budget.max_format_width:
            raise ProgramLimit(
                f"format width {number} is over the limit of {self.budget.max_format_width}"
            )

    def format(self, value: Any, spec: str, conversion: int) -> str:
        if conversion == ord("r"):
            value = repr(value)
        elif conversion == ord("s"):
            value = str(value)
        elif conversion == ord("a"):
            value = ascii(value)
        for number in FORMAT_NUMBER.findall(spec):
            self._check_format_number(number)
        return format(value, spec)

    def inplace(self, op: str, x: Any, y: Any) -> Any:
        if op == "+=":
            if type(x) is list:
                more = list(y)
                self._check_items(len(x) + len(more), "a list")
                x.extend(more)
                return x
            return self.add(x, y)
        if op == "*=":
            return self.mul(x, y)
        if op == "**=":
            return self.pow(x, y)
        if op == "<<=":
            return self.lshift(x, y)
        if op == "%=":
            return self.mod(x, y)
        return INPLACE_OPS[op](x, y)

    # -- access -----------------------------------------------------------------------------
    def getattr(self, obj: Any, name: str, default: Any = None) -> Any:
        if (
            type(name) is not str
            or name.startswith("_")
            or name in BLOCKED_ATTRS
            or name.startswith(BLOCKED_PREFIXES)
        ):
            raise AttributeError(f"attribute '{name}' is not available to programs")
        if name in SIZED_TEXT_METHODS and (obj is str or obj is bytes):
            raise AttributeError(
                f"use the method on a value, e.g. ', '.join(items), not str.{name}"
            )
        value = getattr(obj, name)
        kind = type(obj)
        if kind in CONTAINERS and len(obj) >= self.budget.charge_per_items:
            # Methods of big containers (sort, index, count, copy...) walk them in C: charge.
            self.charge(len(obj) // self.budget.charge_per_items)
        if kind is str or kind is bytes:
            if name in SIZED_TEXT_METHODS:
                return self._sized_text_method(obj, name)
        elif kind is list and name == "extend":
            return self._list_extend(obj)
        elif obj is list and name == "extend":
            raise AttributeError("use items.extend(more) on a list value")
        return value

    def _sized_text_method(self, text: Any, name: str) -> Callable[..., Any]:
        method = getattr(text, name)

        def checked(*args: Any) -> Any:
            if name in ("center", "ljust", "rjust", "zfill") and args and type(args[0]) is int:
                self._check_items(args[0], f"str.{name}")
            elif name == "expandtabs":
                size = args[0] if args else 8
                self._check_items(len(text) * max(int(size), 1), "str.expandtabs")
            elif name == "replace" and len(args) >= 2:
                old, new = args[0], args[1]
                hits = text.count(old) if old else len(text) + 1
                self._check_items(len(text) + hits * len(new), "str.replace")
            elif name == "join" and args:
                items = list(args[0])
                self._check_items(len(items), "str.join")
                total = sum(len(item) for item in items if type(item) in (str, bytes))
                self._check_items(total + len(text) * len(items), "str.join")
                return method(items)
            return method(*args)

        return checked

    def _list_extend(self, items: list) -> Callable[[Any], None]:
        def extend(more: Any) -> None:
            more = list(more)
            self._check_items(len(items) + len(more), "list.extend")
            items.extend(more)

        return extend

    def getitem(self, obj: Any, key: Any) -> Any:
        if type(key) is slice and type(obj) in CONTAINERS:
            n = len(obj)
            if n >= self.budget.charge_per_items:
                self.charge(n // self.budget.charge_per_items)
        return obj[key]

    def contains(self, item: Any, container: Any, negate: bool) -> bool:
        if type(container) in CONTAINERS:
            n = len(container)
            if n >= self.budget.charge_per_items:
                self.charge(n // self.budget.charge_per_items)
        found = item in container
        return not found if negate else found

    def write(self, obj: Any) -> Any:
        if type(obj) is list:
            return ListWriter(obj, self)
        if type(obj) in (dict, set):
            return obj
        raise TypeError(f"programs may only change lists and dicts, not {type(obj).__name__}")

    def getiter(self, obj: Any) -> Any:
        # Each element of a for loop or comprehension costs a step.
        step = self.step
        for item in obj:
            step()
            yield item

    def apply(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    # -- builtins with limits ---------------------------------------------------------------
    def range(self, *args: Any) -> range:
        span = range(*args)
        try:
            n = len(span)
        except OverflowError:
            n = self.budget.max_items + 1
        if n > self.budget.max_items:
            raise ProgramLimit(f"range of {n} numbers; the limit is {self.budget.max_items}")
        return span

    def sum(self, items: Any, start: Any = 0) -> Any:
        if type(start) not in (int, float, bool):
            raise TypeError("sum() adds numbers only; use list.extend or ''.join for sequences")
        if hasattr(items, "__len__"):
            self._check_items(len(items), "sum()")
        return sum(items, start)

    def charged(self, func: Callable[..., Any]) -> Callable[..., Any]:
        """Wrap a built-in that walks its first argument: charge steps for its length."""

        def call(*args: Any, **kwargs: Any) -> Any:
            if args and hasattr(args[0], "__len__"):
                self._check_items(len(args[0]), f"{func.__name__}()")
            return func(*args, **kwargs)

        call.__name__ = func.__name__
        return call

    def names(self) -> dict[str, Any]:
        """The underscore names the compiled code refers to."""
        return {
            "_getattr_": self.getattr,
            "_getitem_": self.getitem,
            "_getiter_": self.getiter,
            "_write_": self.write,
            "_apply_": self.apply,
            "_inplacevar_": self.inplace,
            "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
            "_unpack_sequence_": guarded_unpack_sequence,
            "_mul_": self.mul,
            "_pow_": self.pow,
            "_lshift_": self.lshift,
            "_add_": self.add,
            "_mod_": self.mod,
            "_format_": self.format,
            "_contains_": self.contains,
        }


class ListWriter:
    """What `items[k] = v` writes through: slice assignment is size-checked."""

    __slots__ = ("_items", "_guards")

    def __init__(self, items: list, guards: Guards) -> None:
        self._items = items
        self._guards = guards

    def __setitem__(self, key: Any, value: Any) -> None:
        if type(key) is slice:
            value = list(value)
            self._guards._check_items(len(self._items) + len(value), "a slice assignment")
        self._items[key] = value

    def __delitem__(self, key: Any) -> None:
        del self._items[key]


INPLACE_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "-=": operator.sub,
    "/=": operator.truediv,
    "//=": operator.floordiv,
    ">>=": operator.rshift,
    "&=": operator.and_,
    "|=": operator.or_,
    "^=": operator.xor,
    "@=": operator.matmul,
}
