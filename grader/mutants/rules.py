"""Mutants of a reference: the mistakes students make, each one small edit of the source made on its AST.

A rule is a function `(tree) -> Iterator[Change]`, registered with `@rule("name")`; a Change says which
stretches of the source to replace and with what. The edits are applied to the reference's own text (its
comments stay, so the diff shows only the mistake), the result is parsed again (a mutant that does not parse
is never made), and mutants whose AST equals the reference's or an earlier mutant's are dropped. The order is
the rules' order, then the position in the file: the same reference always gives the same mutants and ids.

The standard library's `ast` does it: mutation libraries (mutmut, cosmic-ray) mutate a package in place and
run pytest on it; here each mutant must be a file handed to the grader, and the rules are students' mistakes
(a shared mutable default, an argument sorted in place), not every operator swap.
"""

from __future__ import annotations

import ast
import copy
import difflib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from grader.records import record
from grader.registry import Registry

Position = tuple[int, int]  # line (from 1), column in UTF-8 bytes, as ast gives them


@record
class Edit:
    start: Position
    end: Position
    text: str
    bare: str = ""  # the text without the parentheses around it, used when it parses to the same tree


@record
class Change:
    line: int
    column: int
    what: str  # one line for the author: "`<` became `<=`"
    edits: tuple[Edit, ...]


@record
class Mutant:
    id: str  # "<reference stem>:<rule>@<line>:<column>", "#<n>" after it for a second change at one place
    reference: str  # the reference's file name
    rule: str
    line: int
    what: str
    source: str

    def diff(self, original: str) -> str:
        lines = difflib.unified_diff(original.splitlines(keepends=True), self.source.splitlines(keepends=True),
                                     f"reference/{self.reference}", f"mutant {self.id}", n=1)
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


Rule = Callable[[ast.Module], Iterator[Change]]
RULES: Registry[Rule] = Registry(what="mutation rule")


def rule(name: str) -> Callable[[Rule], Rule]:
    return RULES.register(name)


def make_mutants(source: str, reference: str) -> list[Mutant]:
    """Every mutant of one reference's source, deduplicated, each one parsing."""
    tree = ast.parse(source)
    setattr(tree, "source_lines", source.splitlines())  # for the indentation of replaced statements
    seen = {ast.dump(tree)}
    stem = reference.rsplit(".", 1)[0]
    mutants: list[Mutant] = []
    for name, make in RULES.items():
        places: dict[tuple[int, int], int] = {}
        for change in sorted(make(tree), key=lambda c: (c.line, c.column)):
            text = apply(source, change.edits)
            try:
                dump = ast.dump(ast.parse(text))
            except (SyntaxError, ValueError):
                continue
            bare = apply(source, tuple(replace(e, text=e.bare or e.text) for e in change.edits))
            if bare != text and _dump(bare) == dump:
                text = bare
            if dump in seen:
                continue
            seen.add(dump)
            place = (change.line, change.column)
            count = places[place] = places.get(place, 0) + 1
            suffix = f"#{count}" if count > 1 else ""
            mutants.append(Mutant(f"{stem}:{name}@{change.line}:{change.column}{suffix}", reference, name,
                                  change.line, change.what, text))
    return mutants


def _dump(source: str) -> str:
    try:
        return ast.dump(ast.parse(source))
    except (SyntaxError, ValueError):
        return ""


def apply(source: str, edits: tuple[Edit, ...]) -> str:
    data = source.encode("utf-8")
    starts = [0]
    for line in data.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(position: Position) -> int:
        return starts[position[0] - 1] + position[1]

    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        data = data[:offset(edit.start)] + edit.text.encode("utf-8") + data[offset(edit.end):]
    return data.decode("utf-8")


# ---------------------------------------------------------------- helpers


def _span(node: ast.AST) -> tuple[Position, Position]:
    return (node.lineno, node.col_offset), (node.end_lineno or node.lineno, node.end_col_offset or 0)  # type: ignore[attr-defined]


def _expression(node: ast.expr, new: ast.expr, what: str) -> Change:
    text = ast.unparse(new)
    start, end = _span(node)
    # In parentheses the new expression binds as tightly as the one it replaces; without them when that
    # parses to the same tree (make_mutants checks), so that the diff shows only the mistake.
    return Change(node.lineno, node.col_offset, what, (Edit(start, end, f"({text})", text),))


def _statement(source_line: str, node: ast.stmt, new: list[ast.stmt], what: str) -> Change:
    """Replace a statement by others (none: `pass`), indented as it was."""
    indent = source_line[:len(source_line) - len(source_line.lstrip())]
    body = "\n".join(ast.unparse(s) for s in new) if new else "pass"
    text = body.replace("\n", "\n" + indent)
    start, end = _span(node)
    return Change(node.lineno, node.col_offset, what, (Edit(start, end, text),))


def _code(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."


def _outside_fstrings(tree: ast.Module) -> Iterator[ast.AST]:
    """Every node but those inside an f-string, whose positions Python 3.11 does not give reliably."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.JoinedStr):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _functions(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in _outside_fstrings(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def _is_docstring(body: list[ast.stmt], index: int) -> bool:
    node = body[index]
    return index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
        and isinstance(node.value.value, str)


@dataclass
class _Lines:
    lines: list[str]

    def of(self, node: ast.stmt) -> str:
        return self.lines[node.lineno - 1]


def _source_lines(tree: ast.Module) -> _Lines:
    return _Lines(getattr(tree, "source_lines", []))


# ---------------------------------------------------------------- the rules

_BOUNDARY: dict[type[ast.cmpop], tuple[type[ast.cmpop], ...]] = {
    ast.Lt: (ast.LtE,), ast.LtE: (ast.Lt,), ast.Gt: (ast.GtE,), ast.GtE: (ast.Gt,),
    ast.Eq: (ast.NotEq,), ast.NotEq: (ast.Eq,), ast.In: (ast.NotIn,), ast.NotIn: (ast.In,),
    ast.Is: (ast.IsNot,), ast.IsNot: (ast.Is,),
}
_SYMBOL = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.In: "in",
           ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not"}


@rule("comparison")
def comparison(tree: ast.Module) -> Iterator[Change]:
    """`<` <-> `<=`, `>` <-> `>=`, `==` <-> `!=`, `in` <-> `not in`: the boundary one step off."""
    for node in _outside_fstrings(tree):
        if isinstance(node, ast.Compare):
            for index, op in enumerate(node.ops):
                for other in _BOUNDARY.get(type(op), ()):
                    new = copy.deepcopy(node)
                    new.ops[index] = other()
                    yield _expression(node, new, f"`{_SYMBOL[type(op)]}` became `{_SYMBOL[other]}`")


@rule("range")
def range_bound(tree: ast.Module) -> Iterator[Change]:
    """`range(n)` -> `range(n - 1)` and `range(n + 1)`: a loop one step short or long."""
    for node in _outside_fstrings(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range" \
                and 1 <= len(node.args) <= 3 and not node.keywords:
            stop = 0 if len(node.args) == 1 else 1
            for op, word in ((ast.Sub(), "- 1"), (ast.Add(), "+ 1")):
                new = copy.deepcopy(node)
                new.args[stop] = ast.BinOp(new.args[stop], op, ast.Constant(1))
                yield _expression(node, new, f"`{_code(node)}` became `{_code(new)}`")


@rule("off-by-one")
def off_by_one(tree: ast.Module) -> Iterator[Change]:
    """`x + 1` -> `x`, `x - 1` -> `x`: the forgotten (or needless) one."""
    for node in _outside_fstrings(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)) \
                and isinstance(node.right, ast.Constant) and node.right.value == 1 \
                and not isinstance(node.right.value, bool):
            yield _expression(node, node.left, f"`{_code(node)}` became `{_code(node.left)}`")


@rule("statement")
def removed_statement(tree: ast.Module) -> Iterator[Change]:
    """A statement of a function left out (an update, an undo, a check)."""
    lines = _source_lines(tree)
    for function in _functions(tree):
        for body in _bodies(function):
            for index, statement in enumerate(body):
                if _is_docstring(body, index) or isinstance(
                        statement, (ast.Pass, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import,
                                    ast.ImportFrom, ast.Global, ast.Nonlocal)):
                    continue
                yield _statement(lines.of(statement), statement, [],
                                 f"`{_code(statement).splitlines()[0]}` left out")


def _bodies(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[list[ast.stmt]]:
    """The statement lists of a function and of its blocks, not of the functions it defines."""
    stack: list[list[ast.stmt]] = [function.body]
    while stack:
        body = stack.pop()
        yield body
        for statement in body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for name in ("body", "orelse", "finalbody"):
                inner = getattr(statement, name, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    stack.append(inner)
            for handler in getattr(statement, "handlers", ()):
                stack.append(handler.body)


@rule("branch")
def removed_branch(tree: ast.Module) -> Iterator[Change]:
    """An `else` (or `elif`) branch left out."""
    lines = _source_lines(tree)
    for node in _outside_fstrings(tree):
        if isinstance(node, ast.If) and node.orelse:
            new = copy.deepcopy(node)
            new.orelse = []
            kind = "elif" if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) else "else"
            yield _statement(lines.of(node), node, [new], f"the `{kind}` branch of `if {_code(node.test)}` left out")


@rule("arguments")
def swapped_arguments(tree: ast.Module) -> Iterator[Change]:
    """Two arguments of a call in the wrong order."""
    for node in _outside_fstrings(tree):
        if isinstance(node, ast.Call) and not any(isinstance(a, ast.Starred) for a in node.args):
            for index in range(len(node.args) - 1):
                first, second = node.args[index], node.args[index + 1]
                if ast.dump(first) == ast.dump(second):
                    continue
                new = copy.deepcopy(node)
                new.args[index], new.args[index + 1] = new.args[index + 1], new.args[index]
                yield _expression(node, new, f"arguments `{_code(first)}` and `{_code(second)}` swapped")


@rule("constant")
def changed_constant(tree: ast.Module) -> Iterator[Change]:
    """A number one more or one less."""
    for node in _outside_fstrings(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            for delta in (1, -1):
                new = ast.Constant(node.value + delta)
                yield _expression(node, new, f"`{node.value}` became `{node.value + delta}`")


@rule("return")
def wrong_return(tree: ast.Module) -> Iterator[Change]:
    """`return x` -> `return type(x)()`: a value of the right type (0, [], '', False) but the wrong one."""
    for node in _outside_fstrings(tree):
        if isinstance(node, ast.Return) and node.value is not None and not _is_empty_value(node.value):
            new = ast.Call(ast.Call(ast.Name("type"), [node.value], []), [], [])
            yield _expression(node.value, new, f"returns an empty `{_code(node.value)}` of its type")


_EMPTY_CALLS = ("list", "dict", "set")


def _is_empty_value(value: ast.expr) -> bool:
    """None, 0, '', False, [], {}, (), set(): what `type(value)()` gives back, or nothing to change."""
    if isinstance(value, ast.Constant):
        return not value.value
    if isinstance(value, ast.Tuple):
        return not value.elts
    return _is_empty(value)


@rule("shared-default")
def shared_default(tree: ast.Module) -> Iterator[Change]:
    """A function's fresh `x = []` (or `{}`, `set()`) made a default argument, shared between calls."""
    for function in _functions(tree):
        for statement in function.body:
            if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                    and isinstance(statement.targets[0], ast.Name) and _is_empty(statement.value)):
                continue
            name = statement.targets[0].id
            header = copy.deepcopy(function)
            header.decorator_list = []
            header.body = [ast.Pass()]
            if header.args.vararg is None and not header.args.kwonlyargs and header.args.kwarg is None \
                    and not header.args.args and not header.args.posonlyargs:
                header.args.args.append(ast.arg(name))
                header.args.defaults.append(statement.value)
            else:
                header.args.kwonlyargs.append(ast.arg(name))
                header.args.kw_defaults.append(statement.value)
            if header.args.kwarg is not None:
                continue  # a keyword argument after **kwargs does not parse
            first_line = ast.unparse(header).splitlines()[0]
            body_start = function.body[0]
            yield Change(statement.lineno, statement.col_offset,
                         f"`{_code(statement)}` became a default argument of {function.name}(), shared "
                         f"between calls",
                         (Edit((function.lineno, function.col_offset), (body_start.lineno, body_start.col_offset),
                               first_line + "\n" + " " * body_start.col_offset),
                          Edit(*_span(statement), "pass")))


def _is_empty(value: ast.expr) -> bool:
    if isinstance(value, (ast.List, ast.Set)) and not value.elts:
        return True
    if isinstance(value, ast.Dict) and not value.keys:
        return True
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _EMPTY_CALLS \
        and not value.args and not value.keywords


@rule("in-place")
def changed_argument(tree: ast.Module) -> Iterator[Change]:
    """A copy of an argument left out, or `sorted(xs)` made `xs.sort()`: the caller's value is changed."""
    for function in _functions(tree):
        params = {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sorted" \
                    and len(node.args) == 1 and isinstance(node.args[0], ast.Name) and node.args[0].id in params:
                name = node.args[0].id
                sort = ast.Call(ast.Attribute(ast.Name(name), "sort"), [], node.keywords)
                new = ast.BoolOp(ast.Or(), [sort, ast.Name(name)])
                yield _expression(node, new, f"`{_code(node)}` sorts the argument {name} in place")
                continue
            copied = _copied_argument(node)
            if copied is not None and copied in params:
                yield _expression(node, ast.Name(copied), f"`{_code(node)}` became `{copied}`: no copy, the "
                                                          f"caller's value is changed")


def _copied_argument(node: ast.AST) -> str | None:
    """The name `node` copies: list(x), dict(x), x.copy(), x[:], copy.copy(x), copy.deepcopy(x) (not set(x): a
    conversion more often than a copy)."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
            and isinstance(node.args[0], ast.Name):
        func = node.func
        if (isinstance(func, ast.Name) and func.id in ("list", "dict")) or (
                isinstance(func, ast.Attribute) and func.attr in ("copy", "deepcopy")
                and isinstance(func.value, ast.Name) and func.value.id == "copy"):
            return node.args[0].id
    if isinstance(node, ast.Call) and not node.args and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "copy" and isinstance(node.func.value, ast.Name):
        return node.func.value.id
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Slice) \
            and node.slice.lower is None and node.slice.upper is None and node.slice.step is None:
        return node.value.id
    return None
