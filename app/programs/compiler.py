"""Compile agent source into guarded code.

RestrictedPython does the heavy lifting (no underscore names, guarded attribute/item access and
iteration). On top of its transform this policy:
- refuses constructs programs do not need and that widen the attack surface (imports, classes,
  generators, `with`, async);
- inserts a step guard at the top of every `while` body, every function body (with a call-depth
  guard around it) and every lambda; `for` loops and comprehensions are counted by `_getiter_`;
- routes `*`, `**`, `<<`, `+`, `%`, `|`, `^`, every f-string and every display or call with
  `*`/`**` unpacking through size-checked helpers, and checks the size of every comprehension's
  result, so no single expression can build a value over a cap.

The guard names all start with an underscore, which RestrictedPython forbids in program source, so
a program can neither call, shadow nor delete them.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from types import CodeType

from asiworld import syntax_trees
from RestrictedPython import compile_restricted_exec
from RestrictedPython.transformer import RestrictingNodeTransformer, copy_locations

PROGRAM_FILENAME = "<program>"
MAX_SOURCE_CHARS = 50_000

# Binary operators whose result can be far larger than their operands.
GUARDED_BINOPS = {
    ast.Mult: "_mul_",
    ast.Pow: "_pow_",
    ast.LShift: "_lshift_",
    ast.Add: "_add_",
    ast.Sub: "_sub_",
    ast.Mod: "_mod_",
    ast.BitOr: "_or_",
    ast.BitXor: "_xor_",
}
DISPLAY_KINDS = {ast.List: "list", ast.Tuple: "tuple", ast.Set: "set"}

REFUSED = {
    ast.Import: "imports are not available in programs; the game API is already loaded",
    ast.ImportFrom: "imports are not available in programs; the game API is already loaded",
    ast.ClassDef: "class definitions are not available in programs; use functions and dicts",
    ast.Yield: "generators (yield) are not available in programs",
    ast.YieldFrom: "generators (yield from) are not available in programs",
    ast.With: "'with' statements are not available in programs",
    ast.Global: "'global' is not available in programs; pass values as arguments",
}


@dataclass(frozen=True)
class CompiledProgram:
    code: CodeType
    source: str


@dataclass(frozen=True)
class CompileError:
    code: str  # stable snake_case: "syntax_error", "forbidden", "too_long"
    message: str
    line: int | None

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message, "line": self.line}


def _call(name: str, args: list[ast.expr], like: ast.AST) -> ast.Call:
    node = ast.Call(func=ast.Name(name, ast.Load()), args=args, keywords=[])
    copy_locations(node, like)
    return ast.fix_missing_locations(node)


def _display(kind: str, layout: str, values: list[ast.expr], like: ast.AST) -> ast.Call:
    """`_display_(kind, layout, *values)`: layout says, value by value, "v" (an item), "s" (an
    iterable to unpack), "k" (a key, its value next) or "d" (a mapping to merge)."""
    return _call("_display_", [ast.Constant(kind), ast.Constant(layout), *values], like)


def _has_starred(items: list[ast.expr]) -> bool:
    return any(isinstance(item, ast.Starred) for item in items)


def _sequence_display(kind: str, items: list[ast.expr], like: ast.AST) -> ast.Call:
    layout = "".join("s" if isinstance(item, ast.Starred) else "v" for item in items)
    values = [item.value if isinstance(item, ast.Starred) else item for item in items]
    return _display(kind, layout, values, like)


def _stmt(name: str, like: ast.AST) -> ast.Expr:
    node = ast.Expr(_call(name, [], like))
    copy_locations(node, like)
    return node


class ProgramPolicy(RestrictingNodeTransformer):
    """RestrictedPython's policy plus step guards and size guards."""

    def visit_Import(self, node: ast.Import) -> ast.AST:
        self.error(node, REFUSED[ast.Import])
        return node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST:
        self.error(node, REFUSED[ast.ImportFrom])
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        self.error(node, REFUSED[ast.ClassDef])
        return node

    def visit_Yield(self, node: ast.Yield) -> ast.AST:
        self.error(node, REFUSED[ast.Yield])
        return node

    def visit_YieldFrom(self, node: ast.YieldFrom) -> ast.AST:
        self.error(node, REFUSED[ast.YieldFrom])
        return node

    def visit_With(self, node: ast.With) -> ast.AST:
        self.error(node, REFUSED[ast.With])
        return node

    def visit_Global(self, node: ast.Global) -> ast.AST:
        self.error(node, REFUSED[ast.Global])
        return node

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.AST:
        # A bare `except:` would also catch the runtime's stop signal; make it mean Exception.
        if node.type is None:
            node.type = ast.Name("Exception", ast.Load())
            copy_locations(node.type, node)
        return super().visit_ExceptHandler(node)

    def visit_While(self, node: ast.While) -> ast.AST:
        node = super().visit_While(node)
        # Located on the body's first line, so a preempted loop reports the line it is on.
        node.body.insert(0, _stmt("_step_", node.body[0]))
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node = super().visit_FunctionDef(node)
        # _enter_() counts a step and the call depth; _leave_() undoes the depth on any exit.
        guarded = ast.Try(
            body=node.body, handlers=[], orelse=[], finalbody=[_stmt("_leave_", node)]
        )
        copy_locations(guarded, node)
        node.body = [_stmt("_enter_", node), guarded]
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        node = super().visit_Lambda(node)
        # `_step_() or body`: the guard returns None, so the lambda still returns body.
        node.body = ast.BoolOp(op=ast.Or(), values=[_call("_step_", [], node), node.body])
        copy_locations(node.body, node)
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        node = super().visit_BinOp(node)
        helper = GUARDED_BINOPS.get(type(node.op))
        if helper is None:
            return node
        return _call(helper, [node.left, node.right], node)

    # -- displays and calls that unpack: the sum of the parts is checked before it is built -----
    def _visit_sequence(self, node: ast.List | ast.Tuple | ast.Set) -> ast.AST:
        node = self.node_contents_visit(node)
        if isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)) or not _has_starred(
            node.elts
        ):
            return node
        return _sequence_display(DISPLAY_KINDS[type(node)], node.elts, node)

    visit_List = visit_Tuple = visit_Set = _visit_sequence

    def visit_Dict(self, node: ast.Dict) -> ast.AST:
        node = self.node_contents_visit(node)
        if all(key is not None for key in node.keys):
            return node
        layout, values = "", []
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                layout += "d"
                values.append(value)
            else:
                layout += "k"
                values += [key, value]
        return _display("dict", layout, values, node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        node = super().visit_Call(node)
        if _has_starred(node.args):
            # _apply_(f, a, *b) -> _apply_(f, *_display_("tuple", "vvs", f, a, b))
            node.args = [ast.Starred(_sequence_display("tuple", node.args, node), ast.Load())]
            copy_locations(node.args[0], node)
        if any(keyword.arg is None for keyword in node.keywords):
            layout, values = "", []
            for keyword in node.keywords:
                if keyword.arg is None:
                    layout += "d"
                    values.append(keyword.value)
                else:
                    layout += "k"
                    values += [ast.Constant(keyword.arg), keyword.value]
            node.keywords = [ast.keyword(None, _display("dict", layout, values, node))]
            copy_locations(node.keywords[0], node)
        return node

    # Each element of a comprehension costs a step, but a whole run's steps would still make a
    # list past the cap: the result is checked once built.
    def visit_ListComp(self, node: ast.ListComp) -> ast.AST:
        return _call("_built_", [super().visit_ListComp(node)], node)

    def visit_SetComp(self, node: ast.SetComp) -> ast.AST:
        return _call("_built_", [super().visit_SetComp(node)], node)

    def visit_DictComp(self, node: ast.DictComp) -> ast.AST:
        return _call("_built_", [super().visit_DictComp(node)], node)

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        node = super().visit_Compare(node)
        # `x in big` walks big in one C call: route it through a helper that charges steps.
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            negate = ast.Constant(isinstance(node.ops[0], ast.NotIn))
            return _call("_contains_", [node.left, node.comparators[0], negate], node)
        return node

    def visit_FormattedValue(self, node: ast.FormattedValue) -> ast.AST:
        node = super().visit_FormattedValue(node)
        # f"{x!r:>{w}}" -> _format_(x, _fstring_(">", _format_(w, "", -1)), 114): the helper
        # caps widths and the size of the text (see visit_JoinedStr for the join).
        spec = node.format_spec if node.format_spec is not None else ast.Constant("")
        node.value = _call("_format_", [node.value, spec, ast.Constant(node.conversion)], node)
        node.format_spec = None
        node.conversion = -1
        return node

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        node = self.node_contents_visit(node)
        # f"a{x}b" -> _fstring_("a", _format_(x, "", -1), "b"): the total length is checked
        # before the parts are joined.
        parts = [v.value if isinstance(v, ast.FormattedValue) else v for v in node.values]
        return _call("_fstring_", parts, node)


def _first_line(errors: list[str]) -> int | None:
    for text in errors:
        if text.startswith("Line "):
            head = text[5:].split(":", 1)[0]
            if head.isdigit():
                return int(head)
    return None


def compile_program(source: str) -> CompiledProgram | CompileError:
    """Compile program source; a refusal is a CompileError value, never an exception."""
    if not isinstance(source, str):
        return CompileError("bad_argument", "program source must be text", None)
    if len(source) > MAX_SOURCE_CHARS:
        return CompileError(
            "too_long",
            f"program is {len(source)} characters; the limit is {MAX_SOURCE_CHARS}",
            None,
        )
    try:
        with syntax_trees.LOCK:  # seats submit programs on threads of their own
            result = compile_restricted_exec(source, filename=PROGRAM_FILENAME,
                                             policy=ProgramPolicy)
    except (RecursionError, MemoryError, ValueError) as exc:
        return CompileError("syntax_error", f"program cannot be compiled: {exc}", None)
    if result.errors:
        errors = list(result.errors)
        kind = "syntax_error" if any("SyntaxError" in e for e in errors) else "forbidden"
        return CompileError(kind, "; ".join(errors), _first_line(errors))
    return CompiledProgram(code=result.code, source=source)
