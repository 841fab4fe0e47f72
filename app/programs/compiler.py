"""Compile agent source into guarded code.

RestrictedPython does the heavy lifting (no underscore names, guarded attribute/item access and
iteration). On top of its transform this policy:
- refuses constructs programs do not need and that widen the attack surface (imports, classes,
  generators, `with`, async);
- inserts a step guard at the top of every `while` body, every function body (with a call-depth
  guard around it) and every lambda; `for` loops and comprehensions are counted by `_getiter_`;
- routes `*`, `**`, `<<`, `+`, `%` and f-string format specs through size-checked helpers so a
  single expression cannot build a huge object.

The guard names all start with an underscore, which RestrictedPython forbids in program source, so
a program can neither call, shadow nor delete them.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from types import CodeType

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
    ast.Mod: "_mod_",
}

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

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        node = super().visit_Compare(node)
        # `x in big` walks big in one C call: route it through a helper that charges steps.
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            negate = ast.Constant(isinstance(node.ops[0], ast.NotIn))
            return _call("_contains_", [node.left, node.comparators[0], negate], node)
        return node

    def visit_FormattedValue(self, node: ast.FormattedValue) -> ast.AST:
        node = super().visit_FormattedValue(node)
        if node.format_spec is None:
            return node
        # f"{x:>{w}}" -> f"{_format_(x, f'>{w}', conversion)}": the helper caps widths.
        node.value = _call(
            "_format_", [node.value, node.format_spec, ast.Constant(node.conversion)], node
        )
        node.format_spec = None
        node.conversion = -1
        return node


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
        result = compile_restricted_exec(source, filename=PROGRAM_FILENAME, policy=ProgramPolicy)
    except (RecursionError, MemoryError, ValueError) as exc:
        return CompileError("syntax_error", f"program cannot be compiled: {exc}", None)
    if result.errors:
        errors = list(result.errors)
        kind = "syntax_error" if any("SyntaxError" in e for e in errors) else "forbidden"
        return CompileError(kind, "; ".join(errors), _first_line(errors))
    return CompiledProgram(code=result.code, source=source)
