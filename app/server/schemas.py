"""The schemas REST bodies and Socket.IO payloads must fit: small declarative objects (`Obj`,
`Str`, `Int`, ...) that check a value (raising Invalid with a stable code and a sentence) and
describe themselves as JSON Schema for the OpenAPI document (`json_schema`).

Each spec raises Invalid with its own `code` (default `bad_argument`); an object field reports
the code of its top-level field, so `{"action": {"dir": "n"}}` is a `bad_action`. An action's own
arguments are the engine's to check (asiworld.engine.actions.parse, from its action table); here
it is a `type` word plus a few small values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from asiworld.engine import codes
from asiworld.engine.errors import CodedError


class Invalid(CodedError, ValueError):
    """A message that does not fit its schema; `code` is stable, `message` says why."""


class Spec:
    code: str = codes.BAD_ARGUMENT

    def check(self, value: Any, where: str) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def fail(self, message: str) -> Invalid:
        return Invalid(self.code, message)


@dataclass(frozen=True)
class Str(Spec):
    max_len: int = 200
    min_len: int = 0
    pattern: str | None = None
    code: str = codes.BAD_ARGUMENT
    help: str = ""

    def check(self, value: Any, where: str) -> None:
        if not isinstance(value, str):
            raise self.fail(f"{where} must be text")
        if not self.min_len <= len(value) <= self.max_len:
            raise self.fail(f"{where} is {self.min_len} to {self.max_len} characters long")
        if self.pattern is not None and not re.fullmatch(self.pattern, value):
            raise self.fail(f"{where} has characters that are not allowed")


@dataclass(frozen=True)
class Int(Spec):
    lo: int = -(2**31)
    hi: int = 2**31 - 1
    code: str = codes.BAD_ARGUMENT
    help: str = ""

    def check(self, value: Any, where: str) -> None:
        if type(value) is not int:
            raise self.fail(f"{where} must be a whole number")
        if not self.lo <= value <= self.hi:
            raise self.fail(f"{where} must be between {self.lo} and {self.hi}")


@dataclass(frozen=True)
class Num(Spec):
    lo: float
    hi: float
    code: str = codes.BAD_ARGUMENT

    def check(self, value: Any, where: str) -> None:
        if type(value) not in (int, float) or value != value:  # no bools, no NaN
            raise self.fail(f"{where} must be a number")
        if not self.lo <= value <= self.hi:
            raise self.fail(f"{where} must be between {self.lo:g} and {self.hi:g}")


@dataclass(frozen=True)
class Bool(Spec):
    code: str = codes.BAD_ARGUMENT

    def check(self, value: Any, where: str) -> None:
        if type(value) is not bool:
            raise self.fail(f"{where} must be true or false")


@dataclass(frozen=True)
class AnyOf(Spec):
    """The first option that fits; otherwise the last option's complaint."""

    options: tuple[Spec, ...]
    nullable: bool = False
    code: str = codes.BAD_ARGUMENT
    what: str = ""  # "a number or text": said instead of the last option's complaint

    def check(self, value: Any, where: str) -> None:
        if value is None and self.nullable:
            return
        last: Invalid | None = None
        for option in self.options:
            try:
                option.check(value, where)
                return
            except Invalid as exc:
                last = exc
        assert last is not None
        if self.what:
            raise self.fail(f"{where} must be {self.what}")
        raise last


@dataclass(frozen=True)
class List(Spec):
    item: Spec
    max_items: int = 16
    code: str = codes.BAD_ARGUMENT

    def check(self, value: Any, where: str) -> None:
        if not isinstance(value, list):
            raise self.fail(f"{where} must be a list")
        if len(value) > self.max_items:
            raise self.fail(f"{where} holds at most {self.max_items} items")
        for i, item in enumerate(value):
            self.item.check(item, f"{where}[{i}]")


@dataclass(frozen=True)
class Obj(Spec):
    """A JSON object with known keys; `rest` (when given) checks any other key's value.
    `nullable`: a missing payload (null) counts as an empty object."""

    fields: dict[str, Spec] = field(default_factory=dict)
    required: frozenset[str] = frozenset()
    rest: Spec | None = None
    max_keys: int = 16
    nullable: bool = False
    code: str = codes.BAD_REQUEST
    key_pattern: str = r"[a-z][a-z0-9_]{0,31}"
    ref: str | None = None  # documented as this component of the OpenAPI document

    def check(self, value: Any, where: str) -> None:
        if value is None and self.nullable:
            value = {}
        if not isinstance(value, dict):
            raise self.fail(f"{where} must be a JSON object")
        if len(value) > self.max_keys:
            raise self.fail(f"{where} has more than {self.max_keys} keys")
        for key in sorted(self.required):
            if key not in value:
                raise Invalid(self.fields[key].code, f"{where} needs `{key}`")
        for key, item in value.items():
            spec = self.fields.get(key)
            if spec is None:
                if self.rest is None or not re.fullmatch(self.key_pattern, str(key)):
                    raise Invalid(codes.UNKNOWN_ARGUMENT, f"{where} does not take `{key}`")
                spec = self.rest
            try:
                spec.check(item, f"`{key}`" if where == "the message" else f"{where}.{key}")
            except Invalid as exc:
                raise Invalid(
                    spec.code if exc.code != codes.UNKNOWN_ARGUMENT else exc.code, exc.message
                ) from None


@dataclass(frozen=True)
class ByKey(Spec):
    """One of several object shapes, chosen by which key is present (join: name or token)."""

    choices: tuple[tuple[str, Obj], ...]
    default: Obj
    code: str = codes.BAD_REQUEST

    def check(self, value: Any, where: str) -> None:
        if isinstance(value, dict):
            for key, spec in self.choices:
                if key in value:
                    spec.check(value, where)
                    return
        self.default.check(value, where)


def obj(required: tuple[str, ...] = (), nullable: bool = False, **fields: Spec) -> Obj:
    return Obj(fields=fields, required=frozenset(required), nullable=nullable)


def named(code: str, spec: Spec) -> Spec:
    """The same spec reporting another code (`bad_name`, `bad_token`, ...)."""
    return type(spec)(**{**spec.__dict__, "code": code})


NAME = Str(max_len=24, min_len=1, pattern=r"[A-Za-z0-9_\- ]{1,24}", code=codes.BAD_NAME,
           help="the character's name")
LABEL = Str(max_len=32, min_len=1, pattern=r"[A-Za-z0-9_.\-]{1,32}", code=codes.BAD_LABEL,
            help="configuration label")
TOKEN = Str(max_len=128, min_len=1, pattern=r"[A-Za-z0-9_\-.~+/=]+", code=codes.BAD_TOKEN)
CHAR_ID = Int(0, 2**31 - 1)

# An action: a `type` word plus a few small arguments; the engine checks what they mean.
ACTION_VALUE = AnyOf(
    (Int(-(10**6), 10**6), Str(max_len=200), Bool(), List(Int(0, 2**31 - 1))),
    what="a whole number, text of at most 200 characters, true/false or a list of ids",
)
ACTION = Obj(
    fields={"type": Str(max_len=32, min_len=1, pattern=r"[a-z_]{1,32}", code=codes.BAD_ACTION)},
    required=frozenset({"type"}),
    rest=ACTION_VALUE,
    max_keys=8,
    code=codes.BAD_ACTION,
    ref="Action",  # the engine's action table, one schema per action
)


def json_schema(spec: Spec) -> dict[str, Any]:
    """The JSON Schema (OpenAPI 3.0 dialect) of what `spec.check` accepts."""
    if isinstance(spec, Str):
        out: dict[str, Any] = {"type": "string", "maxLength": spec.max_len}
        if spec.min_len:
            out["minLength"] = spec.min_len
        if spec.pattern is not None:
            out["pattern"] = f"^{spec.pattern}$"
        if spec.help:
            out["description"] = spec.help
        return out
    if isinstance(spec, Int):
        out = {"type": "integer", "minimum": spec.lo, "maximum": spec.hi}
        if spec.help:
            out["description"] = spec.help
        return out
    if isinstance(spec, Num):
        return {"type": "number", "minimum": spec.lo, "maximum": spec.hi}
    if isinstance(spec, Bool):
        return {"type": "boolean"}
    if isinstance(spec, List):
        return {"type": "array", "items": json_schema(spec.item), "maxItems": spec.max_items}
    if isinstance(spec, AnyOf):
        options = [json_schema(o) for o in spec.options]
        out = dict(options[0]) if len(options) == 1 else {"anyOf": options}
        if spec.nullable:
            out["nullable"] = True
        return out
    if isinstance(spec, Obj):
        if spec.ref is not None:
            return {"$ref": f"#/components/schemas/{spec.ref}"}
        out = {
            "type": "object",
            "properties": {k: json_schema(v) for k, v in spec.fields.items()},
            "additionalProperties": json_schema(spec.rest) if spec.rest else False,
            "maxProperties": spec.max_keys,
        }
        if spec.required:
            out["required"] = sorted(spec.required)
        return out
    if isinstance(spec, ByKey):
        return {"anyOf": [json_schema(c) for _, c in spec.choices] + [json_schema(spec.default)]}
    raise TypeError(f"no JSON Schema for {type(spec).__name__}")
