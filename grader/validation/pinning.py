"""Objects compared by their own ==: an `equals` step holds only if the submission's __eq__ is honest (one
that always answers True passes it), so a test of two objects of the submission's classes needs a step
that pins them down with plain data (a repr, an attribute, a value compared as the spec wrote it)."""

from __future__ import annotations

import ast

from grader.kinds.base import primary_reference
from grader.model import Exercise


def unpinned_equals(exercise: Exercise) -> list[str]:
    """One note per test whose `equals` steps compare objects of classes the reference defines, with no step
    of the test whose value is compared as plain data."""
    classes = _classes(exercise)
    if not classes:
        return []
    notes = []
    for test in exercise.tests:
        pinned = any(step.expression and step.equals is None and step.raises is None for step in test.steps)
        for step in test.steps:
            if step.equals is None or pinned or _literal(step.equals):
                continue
            named = _names(step.code) & classes
            if named and _names(step.equals) & classes:
                kind = sorted(named)[0]
                notes.append(f"test '{test.name}' (line {test.line}): `{step.code}` equals `{step.equals}` is "
                             f"judged by {kind}'s own ==, and no step of the test pins the objects down (a repr, "
                             f"an attribute, a plain value): an __eq__ that always answers True passes it; add "
                             f"a step such as `repr({step.code})` with its expect_literal")
                break
    return notes


def _classes(exercise: Exercise) -> set[str]:
    """The classes the first accepted reference defines at its top level."""
    path = primary_reference(exercise)
    if path is None or not path.is_file():
        return set()
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, ValueError, OSError, UnicodeError):
        return set()
    return {node.name for node in tree.body if isinstance(node, ast.ClassDef)}


def _names(code: str) -> set[str]:
    try:
        tree = ast.parse(code, mode="eval")
    except SyntaxError:
        return set()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


def _literal(code: str) -> bool:
    try:
        ast.literal_eval(code)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True
