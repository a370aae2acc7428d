"""require/forbid rules, checked on the syntax tree: comments and strings never count, aliases do."""

from __future__ import annotations

import ast

from grader.model import Rule
from grader.records import record


@record
class Violation:
    line: int
    message: str


def names_used(tree: ast.AST) -> dict[str, int]:
    """Every module, name and attribute the code uses, with the first line it appears on."""
    used: dict[str, int] = {}

    def note(name: str, line: int) -> None:
        for part in _prefixes(name):
            used.setdefault(part, line)

    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            for alias in node.names:
                note(alias.name, line)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            note(module, line)
            for alias in node.names:
                note(alias.name, line)
                note(f"{module}.{alias.name}", line)
        elif isinstance(node, ast.Name):
            note(node.id, line)
        elif isinstance(node, ast.Attribute):
            note(node.attr, line)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            note(node.name, line)
    return dict(sorted(used.items(), key=lambda item: item[1]))


def _prefixes(dotted: str) -> list[str]:
    """'os.path.join' -> 'os', 'os.path', 'os.path.join', and the last part alone."""
    parts = dotted.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))] + ([parts[-1]] if len(parts) > 1 else [])


def check_rules(tree: ast.AST, require: tuple[Rule, ...], forbid: tuple[Rule, ...]) -> list[Violation]:
    if not require and not forbid:
        return []  # no walk of the tree for exercises without rules: most of them
    used = names_used(tree)
    violations = []
    for rule in forbid:
        if rule.name in used:
            why = f": {rule.message}" if rule.message else ""
            violations.append(Violation(used[rule.name], f"line {used[rule.name]}: uses {rule.name}, which this exercise forbids{why}"))
    for rule in require:
        if rule.name not in used:
            why = f": {rule.message}" if rule.message else ""
            violations.append(Violation(1, f"the code must use {rule.name}{why}"))
    return violations
