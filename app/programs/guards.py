"""The guard functions a compiled program calls instead of raw Python operations.

Every helper here is reached only through names that start with an underscore (which program
source cannot mention) or through the safe builtins. Size checks happen *before* an object is
built; large built-in operations are charged extra steps so a program cannot hide unbounded work
inside one C call.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable
from itertools import islice
from types import GeneratorType
from typing import Any

from asiworld.programs.limits import Budget
from asiworld.programs.sizes import measure_text
from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence

SEQUENCES = (str, bytes, list, tuple)
CONTAINERS = (str, bytes, list, tuple, dict, set, frozenset)

# Attribute names a program may never read, whatever the object: frame/traceback/code walking,
# str.format attribute tricks, the class hierarchy, and text methods whose size we do not check.
BLOCKED_ATTRS = frozenset(
    {"format", "format_map", "mro", "with_traceback", "translate", "maketrans", "fromkeys",
     # an exception's `obj` (AttributeError) is the object as it was, not the program's view
     "obj"}
)
BLOCKED_PREFIXES = ("gi_", "f_", "tb_", "co_", "cr_", "ag_")
SIZED_TEXT_METHODS = frozenset(
    {"center", "ljust", "rjust", "zfill", "expandtabs", "replace", "join"}
)
# Text methods whose result can be longer than the text: at most this many times (ASCII text
# never grows under a case change, nor when encoded to UTF-8, ASCII or Latin-1).
GROWING_TEXT_METHODS = {
    "upper": 3,
    "lower": 3,
    "casefold": 3,
    "swapcase": 3,
    "title": 3,
    "capitalize": 3,
    "encode": 10,  # unicode_escape writes up to ten bytes a character (\U0001f600)
    "hex": 3,
}
NARROW_ENCODINGS = frozenset({"utf-8", "utf8", "utf_8", "ascii", "latin-1", "latin1", "latin_1"})
# Set and dict methods that merge other collections in.
MERGING_METHODS = frozenset(
    {"update", "union", "symmetric_difference", "symmetric_difference_update"}
)
MERGEABLE = (set, frozenset, dict)
WALK_PER_STEP = 16  # parts of a value sizes.measure_text visits for one step
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

    def _check_text(self, value: Any, what: str) -> None:
        """Refuse turning `value` into text past the cap (see sizes.text_size)."""
        n, visited = measure_text(value, self.budget.max_items)
        # The walk itself runs in Python: about a step's work per WALK_PER_STEP parts visited.
        if visited >= WALK_PER_STEP:
            self.charge(visited // WALK_PER_STEP)
        if n > self.budget.max_items:
            raise ProgramLimit(f"{what} would make over {self.budget.max_items} characters of text")
        if n >= self.budget.charge_per_items:
            self.charge(n // self.budget.charge_per_items)

    def _collect(self, items: Any, what: str) -> Any:
        """`items` itself when it has a length (checked), else its items in a list, taking no
        more than the cap allows (an iterator over a huge range is refused, not consumed)."""
        try:
            n = len(items)
        except TypeError:
            items = list(islice(items, self.budget.max_items + 1))
            n = len(items)
        self._check_items(n, what)
        return items

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
        if ta is int and type(b) is int:  # x = x + x doubles: a bit a step, to any size
            self._check_bits(max(a.bit_length(), b.bit_length()) + 1, "a sum")
            return a + b
        if ta is int or ta is float:
            return a + b
        if ta in SEQUENCES and type(b) is ta:
            self._check_items(len(a) + len(b), f"joining two {ta.__name__}s")
        return a + b

    def sub(self, a: Any, b: Any) -> Any:
        if type(a) is int and type(b) is int:  # x - (0 - x) doubles as well as x + x
            self._check_bits(max(a.bit_length(), b.bit_length()) + 1, "a difference")
        return a - b

    def or_(self, a: Any, b: Any) -> Any:
        if type(a) in MERGEABLE and type(b) in MERGEABLE:
            self._check_items(len(a) + len(b), f"merging two {type(a).__name__}s")
        return a | b

    def xor(self, a: Any, b: Any) -> Any:
        if type(a) in MERGEABLE and type(b) in MERGEABLE:
            self._check_items(len(a) + len(b), f"merging two {type(a).__name__}s")
        return a ^ b

    def mod(self, a: Any, b: Any) -> Any:
        if type(a) in (str, bytes):
            text = a if type(a) is str else a.decode("latin-1")
            for width, precision in PERCENT_SPEC.findall(text):
                for number in (width, precision):
                    self._check_format_number(number)
            self._check_text(b, "a % format")
        return a % b

    def _check_format_number(self, number: str) -> None:
        if number == "*":
            raise ProgramLimit("'*' widths in % formats are not allowed; write the number")
        if number and int(number) > self.budget.max_format_width:
            raise ProgramLimit(
                f"format width {number} is over the limit of {self.budget.max_format_width}"
            )

    def format(self, value: Any, spec: str, conversion: int) -> str:
        """One f-string field: `f"{value!conversion:spec}"`."""
        kind = type(value)
        if kind is not str and kind is not int and kind is not float:
            self._check_text(value, "an f-string field")
        if conversion == ord("r"):
            value = repr(value)
        elif conversion == ord("s"):
            value = str(value)
        elif conversion == ord("a"):
            value = ascii(value)
        if spec:
            for number in FORMAT_NUMBER.findall(spec):
                self._check_format_number(number)
        return format(value, spec)

    def fstring(self, *parts: str) -> str:
        """A whole f-string: its fields' total length is checked before they are joined."""
        if len(parts) > 1:
            self._check_items(sum(map(len, parts)), "an f-string")
        return "".join(parts)

    def display(self, kind: str, layout: str, *values: Any) -> Any:
        """A display or call arguments with unpacking (`[*a, b]`, `{**d}`, `f(*a, **d)`; see
        compiler._display): every part's size is added up before anything is built."""
        what = f"unpacking into a {kind}"
        parts, n = [], 0
        if kind == "dict":
            rest = iter(values)
            for mark in layout:
                if mark == "k":
                    parts.append((mark, (next(rest), next(rest))))
                    n += 1
                else:
                    mapping = next(rest)
                    if not hasattr(mapping, "keys"):
                        raise TypeError(f"'{type(mapping).__name__}' object is not a mapping")
                    parts.append((mark, mapping))
                    n += len(mapping)
            self._check_items(n, what)
            out: dict = {}
            for mark, part in parts:
                if mark == "k":
                    out[part[0]] = part[1]
                else:
                    out.update(part)
            return out
        for mark, value in zip(layout, values, strict=True):
            if mark == "s":
                value = self._collect(value, what)
                n += len(value)
                if n > self.budget.max_items:
                    self._check_items(n, what)
            else:
                n += 1
            parts.append((mark, value))
        self._check_items(n, what)
        items: list = []
        for mark, value in parts:
            if mark == "s":
                items.extend(value)
            else:
                items.append(value)
        return items if kind == "list" else tuple(items) if kind == "tuple" else set(items)

    def built(self, value: Any) -> Any:
        """A comprehension's result, checked once built."""
        if len(value) > self.budget.max_items:
            self._check_items(len(value), f"a {type(value).__name__} comprehension")
        return value

    def inplace(self, op: str, x: Any, y: Any) -> Any:
        if op == "+=":
            if type(x) is list:
                more = list(y)
                self._check_items(len(x) + len(more), "a list")
                x.extend(more)
                return x
            return self.add(x, y)
        if op == "-=":
            return self.sub(x, y)
        if op == "*=":
            return self.mul(x, y)
        if op == "**=":
            return self.pow(x, y)
        if op == "<<=":
            return self.lshift(x, y)
        if op == "%=":
            return self.mod(x, y)
        if op == "|=":
            return self.or_(x, y)
        if op == "^=":
            return self.xor(x, y)
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
        if type(obj) is Constructor:
            obj = obj.kind
        if (
            (obj is str or obj is bytes)
            and (name in SIZED_TEXT_METHODS or name in GROWING_TEXT_METHODS)
            or (obj is list and name == "extend")
            or (obj in MERGEABLE and name in MERGING_METHODS)
            or ((obj is int or obj is bool) and name == "to_bytes")
        ):
            raise AttributeError(
                f"use the method on a value, e.g. items.{name}(...), not {obj.__name__}.{name}"
            )
        value = getattr(obj, name)
        kind = type(obj)
        if kind in CONTAINERS and len(obj) >= self.budget.charge_per_items:
            # Methods of big containers (sort, index, count, copy...) walk them in C: charge.
            self.charge(len(obj) // self.budget.charge_per_items)
        if kind is str or kind is bytes:
            if name in SIZED_TEXT_METHODS:
                return self._sized_text_method(obj, name)
            if name in GROWING_TEXT_METHODS:
                return self._growing_text_method(obj, name, value)
        elif kind is list and name == "extend":
            return self._list_extend(obj)
        elif kind in MERGEABLE and name in MERGING_METHODS:
            return self._merging_method(obj, name, value)
        elif name == "from_bytes" and (obj is int or obj is bool or kind is int or kind is bool):
            return self._from_bytes(value)
        elif name == "to_bytes" and (kind is int or kind is bool):
            return self._to_bytes(value)
        return value

    def _growing_text_method(
        self, text: Any, name: str, method: Callable[..., Any]
    ) -> Callable[..., Any]:
        def checked(*args: Any, **kwargs: Any) -> Any:
            factor = GROWING_TEXT_METHODS[name]
            if text.isascii():
                encoding = args[0] if args else kwargs.get("encoding", "utf-8")
                if name != "encode" and name != "hex":
                    factor = 1
                elif name == "encode" and str(encoding).lower() in NARROW_ENCODINGS:
                    factor = 1
            if name == "hex" and not args and not kwargs:
                factor = 2
            self._check_items(len(text) * factor, f"{type(text).__name__}.{name}")
            return method(*args, **kwargs)

        return checked

    def _merging_method(
        self, target: Any, name: str, method: Callable[..., Any]
    ) -> Callable[..., Any]:
        def checked(*others: Any, **more: Any) -> Any:
            others = tuple(
                self._collect(other, f"{type(target).__name__}.{name}") for other in others
            )
            n = len(target) + sum(map(len, others)) + len(more)
            self._check_items(n, f"{type(target).__name__}.{name}")
            return method(*others, **more)

        return checked

    def _from_bytes(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def checked(data: Any, *args: Any, **kwargs: Any) -> int:
            data = self._collect(data, "int.from_bytes")
            self._check_bits(8 * len(data), "int.from_bytes")
            return method(data, *args, **kwargs)

        return checked

    def _to_bytes(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def checked(length: Any = 1, *args: Any, **kwargs: Any) -> bytes:
            if type(length) is int:
                self._check_items(length, "int.to_bytes")
            return method(length, *args, **kwargs)

        return checked

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
        """What a for loop or comprehension iterates: each element costs a step (an iterator
        from `map`, `zip`... already charges for itself)."""
        if type(obj) is GeneratorType and obj.gi_code is CHARGED_ITERATION:
            return obj
        return self.charged_iter(obj)

    def charged_iter(self, obj: Any) -> Any:
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
        """Wrap a built-in that walks its first argument: charge steps for its length (an
        iterator charges for itself, item by item: see `lazy`)."""

        def call(*args: Any, **kwargs: Any) -> Any:
            if args and hasattr(args[0], "__len__"):
                self._check_items(len(args[0]), f"{func.__name__}()")
            return func(*args, **kwargs)

        call.__name__ = func.__name__
        return call

    def lazy(self, func: Callable[..., Any]) -> Callable[..., Any]:
        """Wrap a built-in that makes an iterator (map, filter, zip...): each item it yields
        costs a step, whoever consumes it, so `max(map(f, huge))` is paused and stopped like a
        loop instead of running unseen in C."""
        charged_iter = self.charged_iter

        def call(*args: Any, **kwargs: Any) -> Any:
            return charged_iter(func(*args, **kwargs))

        call.__name__ = func.__name__
        return call

    def collection(self, kind: type) -> Constructor:
        """`list(x)`, `tuple(x)`, `set(x)`: x's size is checked (an iterator is taken only up to
        the cap), and `sorted(x)` the same."""

        def build(*args: Any) -> Any:
            if not args:
                return kind()
            if len(args) > 1:
                return kind(*args)  # the type's own error
            return kind(self._collect(args[0], f"{kind.__name__}()"))

        return Constructor(kind, build)

    def sorted_(self, items: Any, **kwargs: Any) -> list:
        return sorted(self._collect(items, "sorted()"), **kwargs)

    def dict_(self) -> Constructor:
        def build(*args: Any, **kwargs: Any) -> dict:
            if len(args) == 1:
                args = (self._collect(args[0], "dict()"),)
            self._check_items(sum(map(len, args)) + len(kwargs), "dict()")
            return dict(*args, **kwargs)

        return Constructor(dict, build)

    def str_(self) -> Constructor:
        def build(*args: Any, **kwargs: Any) -> str:
            if len(args) == 1 and not kwargs and type(args[0]) is not str:
                self._check_text(args[0], "str()")
            return str(*args, **kwargs)

        return Constructor(str, build)

    def repr_(self, value: Any) -> str:
        if type(value) is not str:
            self._check_text(value, "repr()")
        return repr(value)

    def int_(self) -> Constructor:
        def build(value: Any = 0, *args: Any, **kwargs: Any) -> int:
            if type(value) in (str, bytes):
                base = args[0] if args else kwargs.get("base", 10)
                # The bits a digit carries (base 0 reads a prefix: at most base 16).
                per_digit = math.log2(base) if type(base) is int and base > 1 else 4
                self._check_bits(int(len(value) * per_digit), "int()")
            return int(value, *args, **kwargs)

        return Constructor(int, build)

    def isinstance_(self, value: Any, kinds: Any) -> bool:
        return isinstance(value, _unwrap(kinds))

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
            "_sub_": self.sub,
            "_mod_": self.mod,
            "_format_": self.format,
            "_contains_": self.contains,
            "_or_": self.or_,
            "_xor_": self.xor,
            "_display_": self.display,
            "_fstring_": self.fstring,
            "_built_": self.built,
        }


class Constructor:
    """A built-in type as programs see it: calling it checks sizes (see `Guards.collection`),
    while `isinstance` and attribute access (`str.upper`, `int.from_bytes`) see the type."""

    __slots__ = ("kind", "_build")

    def __init__(self, kind: type, build: Callable[..., Any]) -> None:
        self.kind = kind
        self._build = build

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._build(*args, **kwargs)

    def __repr__(self) -> str:
        return repr(self.kind)


def _unwrap(kinds: Any) -> Any:
    if type(kinds) is Constructor:
        return kinds.kind
    if type(kinds) is tuple:
        return tuple(_unwrap(k) for k in kinds)
    return kinds


CHARGED_ITERATION = Guards.charged_iter.__code__


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
